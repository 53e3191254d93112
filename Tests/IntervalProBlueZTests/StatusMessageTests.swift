import IntervalProBlueZ
import Testing

@Suite("What the link says as it goes")
struct StatusMessageTests {
    /// A readiness measurement, which asks for the strap alone, said it was scanning for
    /// heart-rate and running sensors.
    @Test func scanningSaysWhatItLooksFor() {
        typealias Status = SensorLinkMachine.Status
        #expect(Status.scanning(roles: [.heartRate]).message == "scanning for a heart-rate sensor")
        #expect(Status.scanning(roles: [.cadence]).message == "scanning for a running sensor (cadence)")
        #expect(Status.scanning(roles: [.heartRate, .cadence]).message == "scanning for heart-rate and running sensors")
    }
}
