import Testing
@testable import IntervalProCore

@Suite("RSC Feature, Body Sensor Location, Battery Level")
struct SmallCharacteristicsTests {
    @Test("RSC Feature bits and names", arguments: [
        (UInt16(0x0000), [String]()),
        (0x0001, ["stride_length"]),
        (0x0002, ["total_distance"]),
        (0x0004, ["walking_or_running_status"]),
        (0x0008, ["calibration_procedure"]),
        (0x0010, ["multiple_sensor_locations"]),
        (0x0005, ["stride_length", "walking_or_running_status"]),
        (0x001F, ["stride_length", "total_distance", "walking_or_running_status", "calibration_procedure", "multiple_sensor_locations"]),
        (0xFFE0, []),  // reserved bits only
        (0xFF03, ["stride_length", "total_distance"]),
    ] as [(UInt16, [String])])
    func rscFeature(raw: UInt16, names: [String]) throws {
        let feature = try RSCFeature.parse([UInt8(raw & 0xFF), UInt8(raw >> 8)])
        #expect(feature.rawValue == raw)
        #expect(feature.names == names)
    }

    @Test func rscFeatureMembers() throws {
        let feature = try RSCFeature.parse([0x13, 0x00, 0xEE])  // extra byte ignored
        #expect(feature == [.strideLength, .totalDistance, .multipleSensorLocations])
        #expect(feature.contains(.strideLength))
        #expect(!feature.contains(.walkingOrRunningStatus))
        #expect(!feature.contains(.calibrationProcedure))
    }

    @Test func rscFeatureTruncated() {
        #expect(throws: GATTParseError(.rscFeature, .truncated(needed: 2, got: 0))) { try RSCFeature.parse([]) }
        #expect(throws: GATTParseError(.rscFeature, .truncated(needed: 2, got: 1))) { try RSCFeature.parse([0x01]) }
    }

    @Test("Body Sensor Location valid values", arguments: [
        (UInt8(0), BodySensorLocation.other, "other"),
        (1, .chest, "chest"),
        (2, .wrist, "wrist"),
        (3, .finger, "finger"),
        (4, .hand, "hand"),
        (5, .earLobe, "ear_lobe"),
        (6, .foot, "foot"),
    ])
    func bodySensorLocation(raw: UInt8, location: BodySensorLocation, name: String) throws {
        let parsed = try BodySensorLocation.parse([raw])
        #expect(parsed == location)
        #expect(parsed.name == name)
        #expect(parsed.rawValue == raw)
    }

    @Test func bodySensorLocationCoversAllCases() {
        #expect(BodySensorLocation.allCases.count == 7)
    }

    @Test("Body Sensor Location reserved values", arguments: [UInt8(7), 8, 0x80, 0xFF])
    func bodySensorLocationReserved(raw: UInt8) {
        #expect(throws: GATTParseError(.bodySensorLocation, .invalidValue(field: "location", value: Int(raw)))) {
            try BodySensorLocation.parse([raw])
        }
    }

    @Test func bodySensorLocationEmpty() {
        #expect(throws: GATTParseError(.bodySensorLocation, .truncated(needed: 1, got: 0))) {
            try BodySensorLocation.parse([])
        }
        #expect(
            GATTParseError(.bodySensorLocation, .invalidValue(field: "location", value: 7)).description
                == "Body Sensor Location (0x2A38): location has the reserved value 7")
    }

    @Test("Battery Level valid", arguments: [UInt8(0), 1, 50, 99, 100])
    func batteryLevel(raw: UInt8) throws {
        #expect(try BatteryLevel.parse([raw]) == BatteryLevel(percent: raw))
    }

    @Test("Battery Level above 100", arguments: [UInt8(101), 200, 255])
    func batteryLevelInvalid(raw: UInt8) {
        #expect(throws: GATTParseError(.batteryLevel, .invalidValue(field: "level", value: Int(raw)))) {
            try BatteryLevel.parse([raw])
        }
    }

    @Test func batteryLevelEmpty() {
        #expect(throws: GATTParseError(.batteryLevel, .truncated(needed: 1, got: 0))) { try BatteryLevel.parse([]) }
        #expect(
            GATTParseError(.batteryLevel, .invalidValue(field: "level", value: 101)).description
                == "Battery Level (0x2A19): level has the reserved value 101")
    }
}

@Suite("GATTCharacteristic")
struct GATTCharacteristicTests {
    @Test("accepted identifiers", arguments: [
        ("2a37", GATTCharacteristic.heartRateMeasurement),
        ("2A37", .heartRateMeasurement),
        ("0x2A37", .heartRateMeasurement),
        ("0x2a37", .heartRateMeasurement),
        ("0X2A37", .heartRateMeasurement),
        ("00002a37-0000-1000-8000-00805f9b34fb", .heartRateMeasurement),
        ("00002A37-0000-1000-8000-00805F9B34FB", .heartRateMeasurement),
        ("2a38", .bodySensorLocation),
        ("0x2A19", .batteryLevel),
        ("00002a19-0000-1000-8000-00805f9b34fb", .batteryLevel),
        ("2a53", .rscMeasurement),
        ("00002a53-0000-1000-8000-00805f9b34fb", .rscMeasurement),
        ("0x2a54", .rscFeature),
    ])
    func accepts(identifier: String, characteristic: GATTCharacteristic) {
        #expect(GATTCharacteristic(identifier: identifier) == characteristic)
    }

    @Test("rejected identifiers", arguments: [
        "", "2a3", "2a370", "02a37", "0x", "0x2a3", "0x02a37", "zzzz", "2a3g", " 2a37", "2a37 ",
        "2a5b",  // a real characteristic IntervalPro does not handle
        "180d",  // the Heart Rate service, not a characteristic
        "00002a37-0000-1000-8000-00805f9b34fc",  // not the Bluetooth base UUID
        "10002a37-0000-1000-8000-00805f9b34fb",
        "0000zz37-0000-1000-8000-00805f9b34fb",
        "0000180d-0000-1000-8000-00805f9b34fb",
        "00002a37-0000-1000-8000-00805f9b34fb0",
        "00002a37-0000-1000-8000\r00805f9b34fb",  // a control character is no hyphen in any case
        "2a3\u{00E9}", "\u{FF12}a37",  // letters outside ASCII
        "heart_rate",
    ])
    func rejects(identifier: String) {
        #expect(GATTCharacteristic(identifier: identifier) == nil)
    }

    @Test func forms() {
        #expect(GATTCharacteristic.heartRateMeasurement.shortID == "2a37")
        #expect(GATTCharacteristic.batteryLevel.shortID == "2a19")
        #expect(GATTCharacteristic.rscMeasurement.uuid == "00002a53-0000-1000-8000-00805f9b34fb")
        #expect(GATTCharacteristic.rscFeature.description == "RSC Feature (0x2A54)")
        for characteristic in GATTCharacteristic.allCases {
            #expect(GATTCharacteristic(identifier: characteristic.shortID) == characteristic)
            #expect(GATTCharacteristic(identifier: characteristic.uuid) == characteristic)
        }
    }
}

@Suite("SensorReading")
struct SensorReadingTests {
    @Test func decodeDispatchesByCharacteristic() throws {
        #expect(try SensorReading.decode(.heartRateMeasurement, [0x00, 72]) == .heartRate(HeartRateMeasurement(heartRate: 72)))
        #expect(try SensorReading.decode(.rscMeasurement, [0x04, 0x00, 0x03, 90]) == .rsc(RSCMeasurement(speedRaw: 768, cadence: 90, running: true)))
        #expect(try SensorReading.decode(.rscFeature, [0x03, 0x00]) == .rscFeature([.strideLength, .totalDistance]))
        #expect(try SensorReading.decode(.bodySensorLocation, [0x01]) == .bodySensorLocation(.chest))
        #expect(try SensorReading.decode(.batteryLevel, [0x55]) == .batteryLevel(BatteryLevel(percent: 85)))
        #expect(throws: GATTParseError(.rscMeasurement, .truncated(needed: 4, got: 2))) {
            try SensorReading.decode(.rscMeasurement, [0x00, 0x00])
        }
    }

    @Test("JSON for heart rate", arguments: [
        (HeartRateMeasurement(heartRate: 72), #"{"heart_rate_bpm":72,"sensor_contact":"unsupported"}"#),
        (HeartRateMeasurement(heartRate: 300, sensorContact: .notDetected), #"{"heart_rate_bpm":300,"sensor_contact":"not_detected"}"#),
        (
            HeartRateMeasurement(heartRate: 150, sensorContact: .detected, energyExpendedKJ: 12),
            #"{"heart_rate_bpm":150,"sensor_contact":"detected","energy_expended_kj":12}"#
        ),
        (
            HeartRateMeasurement(heartRate: 150, sensorContact: .detected, rrIntervals: [1024, 512, 1000, 1]),
            #"{"heart_rate_bpm":150,"sensor_contact":"detected","rr_intervals_ms":[1000,500,976.563,0.977]}"#
        ),
        (
            HeartRateMeasurement(heartRate: 60, energyExpendedKJ: 0, rrIntervals: [800]),
            #"{"heart_rate_bpm":60,"sensor_contact":"unsupported","energy_expended_kj":0,"rr_intervals_ms":[781.25]}"#
        ),
    ])
    func heartRateJSON(measurement: HeartRateMeasurement, json: String) {
        #expect(SensorReading.heartRate(measurement).json.serialized() == json)
    }

    @Test("JSON for RSC", arguments: [
        (RSCMeasurement(speedRaw: 768, cadence: 170), #"{"speed_mps":3,"cadence_per_min":170,"running":false}"#),
        (
            RSCMeasurement(speedRaw: 700, cadence: 88, strideLengthRaw: 105, running: true),
            #"{"speed_mps":2.7344,"cadence_per_min":88,"stride_length_m":1.05,"running":true}"#
        ),
        (
            RSCMeasurement(speedRaw: 640, cadence: 180, totalDistanceRaw: 12345),
            #"{"speed_mps":2.5,"cadence_per_min":180,"total_distance_m":1234.5,"running":false}"#
        ),
        (
            RSCMeasurement(speedRaw: 1, cadence: 0, strideLengthRaw: 100, totalDistanceRaw: 20, running: true),
            #"{"speed_mps":0.0039,"cadence_per_min":0,"stride_length_m":1,"total_distance_m":2,"running":true}"#
        ),
    ])
    func rscJSON(measurement: RSCMeasurement, json: String) {
        #expect(SensorReading.rsc(measurement).json.serialized() == json)
    }

    @Test func otherJSON() {
        #expect(SensorReading.rscFeature([.strideLength, .calibrationProcedure]).json.serialized() == #"{"features":["stride_length","calibration_procedure"]}"#)
        #expect(SensorReading.rscFeature([]).json.serialized() == #"{"features":[]}"#)
        #expect(SensorReading.bodySensorLocation(.earLobe).json.serialized() == #"{"body_sensor_location":"ear_lobe"}"#)
        #expect(SensorReading.batteryLevel(BatteryLevel(percent: 100)).json.serialized() == #"{"battery_level_percent":100}"#)
    }

    @Test func roundedToPlaces() {
        #expect(2.734375.rounded(toPlaces: 4) == 2.7344)
        #expect(976.5625.rounded(toPlaces: 3) == 976.563)
        #expect((-1.25).rounded(toPlaces: 1) == -1.3)
        #expect(1.5.rounded(toPlaces: 0) == 2)
        #expect(123.456.rounded(toPlaces: 2) == 123.46)
    }
}

@Suite("BluetoothUUID: the one text conversion recordings, BlueZ and tests share")
struct BluetoothUUIDTests {
    @Test func forms() {
        #expect(BluetoothUUID.shortText(0x180D) == "180d")
        #expect(BluetoothUUID.shortText(0x0001) == "0001")
        #expect(BluetoothUUID.fullText(0x1814) == "00001814-0000-1000-8000-00805f9b34fb")
        #expect(BluetoothUUID.value(of: "0000180D-0000-1000-8000-00805F9B34FB") == 0x180D)
        #expect(BluetoothUUID.value(of: "0x1814") == 0x1814)
        #expect(BluetoothUUID.value(of: "+a37") == nil)
        #expect(BluetoothUUID.value(of: "6e400001-b5a3-f393-e0a9-e50e24dcca9e") == nil, "a vendor's own UUID")
        for value: UInt16 in [0, 0x2A37, 0xFFFF] {
            #expect(BluetoothUUID.value(of: BluetoothUUID.fullText(value)) == value)
            #expect(BluetoothUUID.value(of: BluetoothUUID.shortText(value)) == value)
        }
    }
}
