// libFuzzer target: Battery Level (0x2A19).
//
// Built by Fuzz/run.sh together with Sources/IntervalProCore/*.swift as one module. A
// thrown GATTParseError is an expected outcome; a trap or sanitizer report is a failure.
//
// Properties checked: a value parses exactly when its first byte is 0-100, to that
// percentage; anything above 100 throws `invalidValue`.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        let level = try BatteryLevel.parse(bytes)
        fuzzCheck(level.percent <= 100 && level.percent == bytes[0], "level \(level.percent) from \(bytes[0])")
        _ = SensorReading.batteryLevel(level).json.serialized()
    } catch {
        switch error.reason {
        case .truncated: fuzzCheck(bytes.isEmpty, "truncated error for a non-empty value")
        case .invalidValue(_, let value): fuzzCheck(value > 100 && value == Int(bytes[0]), "rejected \(value)")
        }
        _ = error.description
    }
    return 0
}
