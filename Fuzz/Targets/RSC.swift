// libFuzzer target: RSC Measurement (0x2A53).
//
// Built by Fuzz/run.sh together with Sources/IntervalProCore/*.swift as one module. A
// thrown GATTParseError is an expected outcome; a trap or sanitizer report is a failure.
//
// Properties checked on every value that parses:
// - encoded() parses back to an equal measurement (encode/parse round trip);
// - the optional fields are present exactly when their flag bits are set;
// - cadence normalisation and the `decode --json` output can be produced.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let measurement = try? RSCMeasurement.parse(bytes) else { return 0 }

    let flags = bytes[0]
    fuzzCheck((measurement.strideLengthRaw != nil) == (flags & 0x01 != 0), "stride length vs flag bit 0")
    fuzzCheck((measurement.totalDistanceRaw != nil) == (flags & 0x02 != 0), "total distance vs flag bit 1")
    fuzzCheck(measurement.running == (flags & 0x04 != 0), "running vs flag bit 2")

    let wire = measurement.encoded()
    let again: RSCMeasurement
    do {
        again = try RSCMeasurement.parse(wire)
    } catch {
        fatalError("encoded measurement does not parse: \(error) (\(Hex.encode(wire)))")
    }
    fuzzCheck(again == measurement, "round trip changed \(measurement) into \(again)")

    for unit in CadenceUnit.allCases {
        var normaliser = CadenceNormaliser(unit: unit)
        let spm = normaliser.stepsPerMinute(measurement)
        fuzzCheck(spm == Int(measurement.cadence) || spm == 2 * Int(measurement.cadence))
    }
    _ = SensorReading.rsc(measurement).json.serialized()
    return 0
}
