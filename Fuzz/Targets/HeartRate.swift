// libFuzzer target: Heart Rate Measurement (0x2A37).
//
// Built by Fuzz/run.sh together with Sources/IntervalProCore/*.swift as one module, so
// the parser is instrumented for coverage and AddressSanitizer. A thrown GATTParseError is
// an expected outcome; a trap (index out of range, overflow, failed precondition) or a
// sanitizer report is a failure.
//
// Properties checked on every value that parses:
// - encoded() parses back to an equal measurement (encode/parse round trip);
// - the decoded form's `decode --json` output can be produced.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let measurement = try? HeartRateMeasurement.parse(bytes) else { return 0 }

    let wire = measurement.encoded()
    fuzzCheck(wire.count <= bytes.count, "encoded form is longer than the value it came from")
    let again: HeartRateMeasurement
    do {
        again = try HeartRateMeasurement.parse(wire)
    } catch {
        fatalError("encoded measurement does not parse: \(error) (\(Hex.encode(wire)))")
    }
    fuzzCheck(again == measurement, "round trip changed \(measurement) into \(again)")
    fuzzCheck(measurement.rrIntervalsMs.count == measurement.rrIntervals.count)

    _ = SensorReading.heartRate(measurement).json.serialized()
    return 0
}
