import CZlib

/// A gzip file (RFC 1952) inflated with zlib, opened at run time (see CZlib/shim.h): how
/// Strava's bulk export keeps each activity (`.fit.gz`, `.gpx.gz`, `.tcx.gz`).
public enum Gzip {
    /// Why a gzip file could not be inflated, in words for the runner.
    public struct Failure: Error, Equatable, Sendable {
        public var message: String
    }

    /// A gzip file starts with 1F 8B (RFC 1952, 2.3.1).
    public static func isGzip(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 2 && bytes[0] == 0x1F && bytes[1] == 0x8B
    }

    /// More than any activity: a file that inflates past it is refused, not read into memory.
    public static let largestContent = 512 << 20

    /// The bytes the file holds, every member in turn as `gunzip` gives them.
    public static func inflate(_ bytes: [UInt8]) throws(Failure) -> [UInt8] {
        guard var api = library else {
            throw Failure(message: "zlib is not installed (Debian: apt install zlib1g)")
        }
        var stream = z_stream()
        // 16 + 15: a gzip wrapper around a window of up to 32 KiB.
        guard intervalpro_inflate_init2(&api, &stream, 16 + MAX_WBITS) == Z_OK else {
            throw Failure(message: "zlib could not start inflating")
        }
        defer { _ = api.inflate_end(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        var status = Z_OK
        try bytes.withUnsafeBufferPointer { (input) throws(Failure) in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.avail_in = uInt(input.count)
            while true {
                let before = stream.total_out
                status = chunk.withUnsafeMutableBufferPointer { buffer in
                    stream.next_out = buffer.baseAddress
                    stream.avail_out = uInt(buffer.count)
                    return api.inflate(&stream, Z_NO_FLUSH)
                }
                output += chunk[0..<Int(stream.total_out - before)]
                guard output.count <= largestContent else {
                    throw Failure(message: "it inflates to more than \(largestContent >> 20) MiB: not an activity")
                }
                switch status {
                case Z_STREAM_END:
                    // Another member follows (`cat a.gz b.gz`), or the file ends.
                    guard stream.avail_in > 0, isGzip(Array(UnsafeBufferPointer(start: stream.next_in, count: min(2, Int(stream.avail_in))))) else {
                        return
                    }
                    _ = api.inflate_reset(&stream)
                case Z_OK:
                    continue
                case Z_BUF_ERROR where stream.avail_in == 0:
                    throw Failure(message: "the file ends inside its compressed data (\(output.count) bytes inflated): it was cut short")
                default:
                    let reason = stream.msg.map { String(cString: $0) } ?? "zlib status \(status)"
                    throw Failure(message: "its compressed data is damaged (\(reason)) after \(output.count) bytes")
                }
            }
        }
        return output
    }

    /// zlib, opened on the first inflate; nil when it cannot be.
    private static let library: intervalpro_zlib? = {
        var api = intervalpro_zlib()
        return intervalpro_zlib_open(&api) == 0 ? api : nil
    }()
}
