// libFuzzer target: the compressed files an export holds activities in, as `history import`,
// `replay` and `readiness import` open them: a zip archive (`Zip.entries`, then each entry's
// `Zip.contents`, stored or deflated, ZIP64 included) and a gzip file (`Gzip.inflateSalvaging`
// and `Gzip.inflate`), with zlib opened at run time as the program opens it.
//
// Thrown errors are expected outcomes; a trap or sanitizer report is a failure. Checked: an
// entry read whole has the size its directory gives; `inflate` refuses exactly what
// `inflateSalvaging` finds damaged, and both give the same bytes otherwise.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let entries = try? Zip.entries(bytes) {
        for entry in entries.prefix(16) {
            _ = entry.isFolderOrMacResource
            guard let content = try? Zip.contents(of: entry, in: bytes) else { continue }
            fuzzCheck(content.count == entry.size, "\(entry.name): \(content.count) bytes where the directory says \(entry.size)")
        }
    }
    if let salvage = try? Gzip.inflateSalvaging(bytes) {
        do {
            let whole = try Gzip.inflate(bytes)
            fuzzCheck(salvage.damage == nil && whole == salvage.content, "inflate read what salvaging found damaged, or other bytes")
        } catch {
            fuzzCheck(salvage.damage == error, "inflate refused with another error than salvaging's damage")
        }
    }
    return 0
}
