import Testing
@testable import IntervalProCore

@Suite("StreamStatistics")
struct StreamStatisticsTests {
    static let header = RecordingHeader(
        startedAt: nil, devices: [RecordedDevice(id: "pod", name: "Pod", cadenceUnit: .strides), RecordedDevice(id: "strap")])

    static var entries: [RecordingEntry] {
        [
            .notification(Fixture.rsc(0, spm: 85)),  // 170 steps
            .notification(Fixture.hr(0.5, bpm: 140)),
            .notification(Fixture.rsc(1, spm: 86)),  // 172, current until 4
            .event(time: .seconds(2), device: "pod", name: "disconnected"),
            .notification(Fixture.hr(2.5, bpm: 150)),  // current until 5.5
            .notification(Fixture.rsc(9, spm: 90)),  // 180 after a 5 s gap
            .notification(RawNotification(time: .seconds(9), device: "pod", characteristic: .rscMeasurement, bytes: [0x00])),
            .notification(RawNotification(time: .seconds(10), device: "strap", characteristicID: "2a5b", bytes: [0x01])),
            .notification(Fixture.rsc(11.5, spm: 88)),  // 176, current until 14.5
            .event(time: .seconds(14.5), device: "strap", name: "disconnected"),
        ]
    }

    /// Counted by the characteristic whatever the line's spelling: "2A37", the full UUID and
    /// "2a37" were three keys for one characteristic.
    @Test func notificationsAreCountedByCharacteristic() {
        let bytes = HeartRateMeasurement(heartRate: 140, sensorContact: .detected).encoded()
        let entries: [RecordingEntry] = ["2A37", "00002A37-0000-1000-8000-00805F9B34FB", "2a37", "2A5B"].enumerated().map {
            .notification(RawNotification(time: .seconds(Double($0.offset)), device: "strap", characteristicID: $0.element, bytes: bytes))
        }
        let stats = StreamStatistics(header: Self.header, entries: entries, units: [:])
        #expect(stats.devices[1].notifications == ["2a37": 3, "2a5b": 1])
    }

    @Test func figures() {
        let stats = StreamStatistics(header: Self.header, entries: Self.entries, units: ["pod": .strides])
        #expect(stats.duration == .seconds(14.5))
        #expect(stats.cadenceRange == 170...180)
        #expect(stats.heartRateRange == 140...150)
        #expect(stats.averageCadence == (Double(170 * 1 + 172 * 3 + 176 * 3) + 180 * 2.5) / 9.5)
        #expect(stats.averageHeartRate == Double(140 * 2 + 150 * 3) / 5)
        #expect(stats.gaps.map(\.start) == [.seconds(4)])
        #expect(stats.gaps.map(\.length) == [.seconds(5)])
        #expect(stats.distance == 10.5)  // 3 m/s for 1 s, then 2.5 s; nothing across the gap
        #expect(stats.devices.map(\.device.id) == ["pod", "strap"])
        #expect(stats.devices[0].notifications == ["2a53": 5])
        #expect(stats.devices[0].rejected == 1)
        #expect(stats.devices[0].events == ["disconnected": 1])
        #expect(stats.devices[0].cadenceUnit == .strides)
        #expect(stats.devices[1].notifications == ["2a37": 2, "2a5b": 1])
        #expect(stats.devices[1].cadenceUnit == nil)
    }

    @Test func json() {
        let stats = StreamStatistics(header: Self.header, entries: Self.entries, units: ["pod": .strides], outOfOrderLines: 2)
        let expected =
            #"{"duration_s":14.5,"devices":[{"id":"pod","name":"Pod","cadence_unit":"strides","notifications":{"2a53":5},"rejected":1,"events":{"disconnected":1}},"#
            + #"{"id":"strap","name":null,"cadence_unit":null,"notifications":{"2a37":2,"2a5b":1},"rejected":0,"events":{"disconnected":1}}],"#
            + #""cadence_spm":{"min":170,"max":180},"avg_cadence_spm":175.2,"heart_rate_bpm":{"min":140,"max":150},"avg_hr_bpm":146,"#
            + #""cadence_gaps":1,"cadence_gap_s":5,"distance_m":10.5,"lines_out_of_order":2}"#
        #expect(stats.json.serialized() == expected)
    }

    @Test func text() {
        let stats = StreamStatistics(header: Self.header, entries: Self.entries, units: ["pod": .strides])
        #expect(
            stats.text == """
                duration 0:14
                device pod (Pod): 5 × 2a53, cadence in strides, 1 rejected, events: 1 × disconnected
                device strap: 2 × 2a37, 1 × 2a5b, events: 1 × disconnected
                cadence 170-180 spm, average 175.2
                heart rate 140-150 bpm, average 146
                cadence gaps (no signal): 1, 0:05 in all
                distance 0.01 km
                """)
    }

    @Test func emptyRecording() {
        let stats = StreamStatistics(header: RecordingHeader(startedAt: nil, devices: []), entries: [], units: [:])
        #expect(stats.duration == .zero)
        #expect(stats.devices.isEmpty)
        #expect(stats.averageCadence == nil)
        #expect(stats.cadenceRange == nil)
        #expect(stats.distance == nil)
        #expect(stats.json.serialized().contains(#""avg_cadence_spm":null"#))
    }

    @Test func entryDevice() {
        #expect(RecordingEntry.event(time: .zero, device: "a", name: "x").device == "a")
        #expect(RecordingEntry.notification(Fixture.rsc(0, spm: 1, device: "b")).device == "b")
    }
}
