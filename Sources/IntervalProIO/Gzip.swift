import CZlib

/// A gzip file (RFC 1952) inflated with zlib: how Strava's bulk export keeps each activity
/// (`.fit.gz`, `.gpx.gz`, `.tcx.gz`).
public enum Gzip {
    /// Why a gzip file could not be inflated, in words for the runner.
    public struct InflateError: Error, Equatable, Sendable {
        public var message: String
    }

    /// A gzip file starts with 1F 8B (RFC 1952, 2.3.1).
    public static func isGzip(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 2 && bytes[0] == 0x1F && bytes[1] == 0x8B
    }

    /// The bytes the file holds, every member in turn as `gunzip` gives them.
    public static func inflate(_ bytes: [UInt8]) throws(InflateError) -> [UInt8] {
        let salvage = try inflateSalvaging(bytes)
        if let damage = salvage.damage { throw damage }
        return salvage.content
    }

    /// As `inflate`, except that a file cut short or damaged part way (a copy that stopped)
    /// gives what it inflated before the damage, with the damage; throws only when nothing
    /// could be inflated.
    public static func inflateSalvaging(_ bytes: [UInt8]) throws(InflateError) -> (content: [UInt8], damage: InflateError?) {
        let inflated: (content: [UInt8], damage: Zlib.InflateError?)
        do {
            // 16 + 15: a gzip wrapper around a window of up to 32 KiB.
            inflated = try Zlib.inflate(bytes, windowBits: 16 + MAX_WBITS, untilEnd: true)
        } catch {
            throw InflateError(message: error.message)
        }
        let damage = inflated.damage.map { InflateError(message: $0.message) }
        if let damage, inflated.content.isEmpty { throw damage }
        return (inflated.content, damage)
    }
}

/// zlib, opened at run time (see CZlib/shim.h), for gzip files and zip entries.
enum Zlib {
    struct InflateError: Error {
        var message: String
    }

    /// More than any activity: data that inflates past it is refused, not read into memory
    /// (the same bound as a file read whole).
    static let largestContent = FileIO.largestRead

    /// `input` inflated, up to the damage if there is any (and then the damage). `windowBits`
    /// chooses the wrapper (zlib's inflateInit2); with `untilEnd`, streams that follow one
    /// another (gzip members) are inflated in turn. Throws when zlib cannot be had.
    static func inflate(_ input: UnsafeBufferPointer<UInt8>, windowBits: Int32, untilEnd: Bool) throws(InflateError)
        -> (content: [UInt8], damage: InflateError?)
    {
        var output: [UInt8] = []
        let damage = try inflate(input, windowBits: windowBits, untilEnd: untilEnd, limit: largestContent) { piece in
            output += piece
            return true
        }
        return (output, damage)
    }

    static func inflate(_ input: [UInt8], windowBits: Int32, untilEnd: Bool) throws(InflateError) -> (content: [UInt8], damage: InflateError?) {
        try input.withUnsafeBufferPointer { input in
            Result { () throws(InflateError) in try inflate(input, windowBits: windowBits, untilEnd: untilEnd) }
        }.get()
    }

    /// `input` inflated a piece at a time into `sink`, which returns false to stop there; the
    /// damage, if there is any, or more than `limit` bytes (a `limit` of `largestContent` is
    /// refused in an activity's words). Throws when zlib cannot be had.
    static func inflate(
        _ input: UnsafeBufferPointer<UInt8>, windowBits: Int32, untilEnd: Bool, limit: Int,
        into sink: (UnsafeBufferPointer<UInt8>) -> Bool
    ) throws(InflateError) -> InflateError? {
        guard var api = library else {
            throw InflateError(message: "zlib is not installed (Debian: apt install zlib1g)")
        }
        var stream = z_stream()
        guard intervalpro_inflate_init2(&api, &stream, windowBits) == Z_OK else {
            throw InflateError(message: "zlib could not start inflating")
        }
        defer { _ = api.inflate_end(&stream) }
        let chunk = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 64 << 10)
        defer { chunk.deallocate() }
        var total = 0
        stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
        stream.avail_in = uInt(input.count)
        while true {
            stream.next_out = chunk.baseAddress
            stream.avail_out = uInt(chunk.count)
            let status = api.inflate(&stream, Z_NO_FLUSH)
            let produced = chunk.count - Int(stream.avail_out)
            total += produced
            guard total <= limit else {
                return InflateError(
                    message: limit == largestContent
                        ? "it inflates to more than \(largestContent >> 20) MiB: not an activity"
                        : "it inflates to more than \(limit) bytes, its size: the file is damaged")
            }
            guard sink(UnsafeBufferPointer(rebasing: chunk[0..<produced])) else { return nil }
            switch status {
            case Z_STREAM_END:
                // Another gzip member follows (`cat a.gz b.gz`), or the data ends.
                guard untilEnd, stream.avail_in >= 2, stream.next_in[0] == 0x1F, stream.next_in[1] == 0x8B else { return nil }
                _ = api.inflate_reset(&stream)
            case Z_OK:
                continue
            case Z_BUF_ERROR where stream.avail_in == 0:
                return InflateError(message: "the file ends inside its compressed data (\(total) bytes inflated): it was cut short")
            default:
                let reason = stream.msg.map { String(cString: $0) } ?? "zlib status \(status)"
                return InflateError(message: "its compressed data is damaged (\(reason)) after \(total) bytes")
            }
        }
    }

    /// The CRC-32 that zip keeps of an entry's content, `crc` the CRC-32 of what comes before
    /// `bytes` (0 at the start).
    static func crc32(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) throws(InflateError) -> UInt32 {
        guard let api = library else { throw InflateError(message: "zlib is not installed (Debian: apt install zlib1g)") }
        let result = api.crc32(uLong(crc), bytes.bindMemory(to: UInt8.self).baseAddress, uInt(bytes.count))
        return UInt32(truncatingIfNeeded: result)
    }

    /// zlib, opened on first use; nil when it cannot be.
    private static let library: intervalpro_zlib? = {
        var api = intervalpro_zlib()
        return intervalpro_zlib_open(&api) == 0 ? api : nil
    }()
}
