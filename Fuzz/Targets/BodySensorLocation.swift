// libFuzzer target: Body Sensor Location (0x2A38).
//
// Built by Fuzz/run.sh together with Sources/IntervalProCore/*.swift as one module. A
// thrown GATTParseError is an expected outcome; a trap or sanitizer report is a failure.
//
// Properties checked: a value parses exactly when its first byte is 0-6, to the location
// with that raw value; reserved values throw `invalidValue`.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        let location = try BodySensorLocation.parse(bytes)
        fuzzCheck(location.rawValue == bytes[0], "location \(location) from byte \(bytes[0])")
        fuzzCheck(!location.name.isEmpty)
        _ = SensorReading.bodySensorLocation(location).json.serialized()
    } catch {
        switch error.reason {
        case .truncated: fuzzCheck(bytes.isEmpty, "truncated error for a non-empty value")
        case .invalidValue(_, let value): fuzzCheck(value > 6 && value == Int(bytes[0]), "rejected \(value)")
        }
        _ = error.description
    }
    return 0
}
