// libFuzzer target: RSC Feature (0x2A54).
//
// Built by Fuzz/run.sh together with Sources/IntervalProCore/*.swift as one module. A
// thrown GATTParseError is an expected outcome; a trap or sanitizer report is a failure.
//
// Properties checked on every value that parses: the feature bits are the first two bytes,
// little-endian, and `names` lists exactly the known bits that are set.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let feature = try? RSCFeature.parse(bytes) else { return 0 }

    fuzzCheck(feature.rawValue == UInt16(bytes[0]) | UInt16(bytes[1]) << 8, "feature bits are not bytes 0-1 LE")
    fuzzCheck(feature.names.count == (feature.rawValue & 0x1F).nonzeroBitCount, "names vs set bits")
    _ = SensorReading.rscFeature(feature).json.serialized()
    return 0
}
