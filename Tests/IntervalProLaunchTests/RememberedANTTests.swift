import IntervalProBlueZ
import IntervalProIO
@testable import IntervalProLaunch
import Testing

/// A role not named on the command line is read from the ANT stick when its remembered device
/// is an ANT+ one and a stick is there; only the roles the command looks for.
@Suite struct RememberedANTTests {
    let memory = SensorMemory(
        heartRate: SensorMemory.Sensor(address: "A0:9E:1A:12:34:56", name: "Polar H10"),
        cadence: SensorMemory.Sensor(address: "ant:4321", name: "Foot Pod"))

    @Test("a run reads the remembered ANT+ foot pod from the stick")
    func aRunTakesTheRememberedFootPod() {
        let (request, remembered) = LiveSensorSet.rememberedANT(SensorRequest(), memory: memory) { true }
        #expect(request.cadence == "ant:4321")
        #expect(request.heartRate == nil)
        #expect(remembered == [.cadence])
    }

    /// Before, the morning opened the stick for the foot pod a run remembered, and with the pod
    /// asleep by the door refused the whole measurement: "no ANT+ device heard".
    @Test("a readiness measurement, looking for heart rate alone, leaves the remembered foot pod alone")
    func aMorningLeavesTheFootPodAlone() {
        var morning = SensorRequest()
        morning.roles = [.heartRate]
        var asked = false
        let (request, remembered) = LiveSensorSet.rememberedANT(morning, memory: memory) {
            asked = true
            return true
        }
        #expect(request.cadence == nil)
        #expect(remembered.isEmpty)
        #expect(!asked, "no stick is looked for when no role needs one")
    }

    @Test("a role named on the command line, or no stick, keeps the memory aside")
    func namedOrNoStick() {
        let named = LiveSensorSet.rememberedANT(SensorRequest(cadence: "Stryd"), memory: memory) { true }
        #expect(named.0.cadence == "Stryd")
        #expect(named.remembered.isEmpty)
        let noStick = LiveSensorSet.rememberedANT(SensorRequest(), memory: memory) { false }
        #expect(noStick.0.cadence == nil)
        #expect(noStick.remembered.isEmpty)
    }

    /// A file edited by hand (or written by an older page) into `ant:abc`: a preference that
    /// cannot be followed is passed over, where it made every live run a usage error.
    @Test("a remembered ANT+ choice without a device number is passed over")
    func aMalformedMemoryIsPassedOver() {
        let edited = SensorMemory(cadence: SensorMemory.Sensor(address: "ant:abc", name: nil))
        let (request, remembered) = LiveSensorSet.rememberedANT(SensorRequest(), memory: edited) { true }
        #expect(request.cadence == nil)
        #expect(remembered.isEmpty)
    }
}
