import CZlib

/// The files of a zip archive (PKWARE's APPNOTE.TXT), as Garmin Connect's "Export Original"
/// hands out an activity: found through the central directory at the end, stored or deflated
/// (inflated by the zlib that gzip files use, opened at run time), each checked against its
/// CRC-32. Encrypted entries and ZIP64 archives (over 4 GiB or 65,535 files) are refused
/// with those words.
public enum Zip {
    public struct Failure: Error, Equatable, Sendable {
        public var message: String
    }

    /// A file in the archive, as its central directory lists it.
    public struct Entry: Equatable, Sendable {
        public var name: String
        public var method: UInt16
        public var flags: UInt16
        public var crc32: UInt32
        public var compressedSize: Int
        public var size: Int
        public var localHeaderOffset: Int

        /// A folder, or the resource forks macOS's archiver adds: never an activity.
        public var isFolderOrMacResource: Bool {
            name.hasSuffix("/") || name.hasPrefix("__MACOSX/")
        }
    }

    /// A zip file starts with a local file header, "PK\3\4" (an empty one with its end, "PK\5\6").
    public static func isZip(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 4 && bytes[0] == 0x50 && bytes[1] == 0x4B
            && ((bytes[2] == 3 && bytes[3] == 4) || (bytes[2] == 5 && bytes[3] == 6))
    }

    /// The entries the central directory lists, in its order.
    public static func entries(_ bytes: [UInt8]) throws(Failure) -> [Entry] {
        let reader = LittleEndian(bytes)
        // The end of central directory record: 22 bytes and a comment of up to 65,535.
        let lowest = max(0, bytes.count - 22 - 0xFFFF)
        guard let end = stride(from: bytes.count - 22, through: lowest, by: -1).first(where: { reader.u32($0) == 0x0605_4B50 })
        else {
            throw Failure(message: "no zip directory at its end: the file was cut short, or is no zip file")
        }
        let count = Int(reader.u16(end + 10))
        let directorySize = Int(reader.u32(end + 12))
        let directoryOffset = Int(reader.u32(end + 16))
        if count == 0xFFFF || directorySize == 0xFFFF_FFFF || directoryOffset == 0xFFFF_FFFF {
            throw Failure(message: "a ZIP64 archive (over 4 GiB or 65,535 files), which is not read: unpack it first")
        }
        guard directoryOffset + directorySize <= end else {
            throw Failure(message: "its directory points past the end of the file: the file is damaged")
        }
        var entries: [Entry] = []
        var p = directoryOffset
        for index in 0..<count {
            guard p + 46 <= end, reader.u32(p) == 0x0201_4B50 else {
                throw Failure(message: "entry \(index + 1) of its directory is damaged (at byte \(p))")
            }
            let nameLength = Int(reader.u16(p + 28))
            let extraLength = Int(reader.u16(p + 30))
            let commentLength = Int(reader.u16(p + 32))
            guard p + 46 + nameLength <= end else {
                throw Failure(message: "entry \(index + 1) of its directory is damaged (at byte \(p))")
            }
            entries.append(
                Entry(
                    name: String(decoding: bytes[(p + 46)..<(p + 46 + nameLength)], as: UTF8.self),
                    method: reader.u16(p + 10), flags: reader.u16(p + 8), crc32: reader.u32(p + 16),
                    compressedSize: Int(reader.u32(p + 20)), size: Int(reader.u32(p + 24)),
                    localHeaderOffset: Int(reader.u32(p + 42))))
            p += 46 + nameLength + extraLength + commentLength
        }
        return entries
    }

    /// An entry's content, checked against its size and CRC-32.
    public static func contents(of entry: Entry, in bytes: [UInt8]) throws(Failure) -> [UInt8] {
        func damaged(_ what: String) -> Failure { Failure(message: "\(entry.name): \(what)") }
        guard entry.flags & 1 == 0 else { throw damaged("encrypted, which is not read") }
        guard entry.size <= Zlib.largestContent else {
            throw damaged("\(entry.size >> 20) MiB, more than any activity")
        }
        let reader = LittleEndian(bytes)
        let header = entry.localHeaderOffset
        guard header + 30 <= bytes.count, reader.u32(header) == 0x0403_4B50 else {
            throw damaged("its local header is missing (byte \(header)): the file is damaged")
        }
        let start = header + 30 + Int(reader.u16(header + 26)) + Int(reader.u16(header + 28))
        guard start + entry.compressedSize <= bytes.count else {
            throw damaged("its data runs past the end of the file: the file was cut short")
        }
        let data = bytes[start..<(start + entry.compressedSize)]
        let content: [UInt8]
        switch entry.method {
        case 0:
            content = Array(data)
        case 8:
            let inflated: (content: [UInt8], damage: Zlib.Failure?)
            do {
                // Negative window bits: raw deflate, no zlib or gzip wrapper.
                inflated = try Zlib.inflate(data, windowBits: -MAX_WBITS, untilEnd: false)
            } catch {
                throw damaged(error.message)
            }
            if let damage = inflated.damage { throw damaged(damage.message) }
            content = inflated.content
        default:
            throw damaged("compressed with method \(entry.method), which is not read (only stored and deflated)")
        }
        guard content.count == entry.size else {
            throw damaged("\(content.count) bytes where the directory says \(entry.size): the file is damaged")
        }
        let crc: UInt32
        do { crc = try Zlib.crc32(content) } catch { throw damaged(error.message) }
        guard crc == entry.crc32 else { throw damaged("its CRC-32 does not match: the file is damaged") }
        return content
    }

    /// Little-endian integers at byte offsets the caller has checked.
    private struct LittleEndian {
        let bytes: [UInt8]
        init(_ bytes: [UInt8]) { self.bytes = bytes }
        func u16(_ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> UInt32 { UInt32(u16(at)) | UInt32(u16(at + 2)) << 16 }
    }
}
