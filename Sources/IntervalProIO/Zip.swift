import CZlib

/// The files of a zip archive (PKWARE's APPNOTE.TXT), as Garmin Connect's "Export Original"
/// hands out an activity: found through the central directory at the end, stored or deflated
/// (inflated by the zlib that gzip files use, opened at run time), each checked against its
/// CRC-32. ZIP64 archives (over 4 GiB or 65,535 files, as a large Strava bulk export is, or
/// written so by `zip -fz`) are read through their ZIP64 end record and each entry's ZIP64
/// extra field (APPNOTE 4.3.14-4.3.15, 4.5.3). Encrypted entries are refused with that word.
public enum Zip {
    public struct ArchiveError: Error, Equatable, Sendable {
        public var message: String

        public init(message: String) {
            self.message = message
        }
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
            name.hasSuffix("/") || MacMetadata.holds(name)
        }

        /// Larger than any activity (a video beside the activities of a Strava export): its
        /// content is not taken out (`contents` refuses it).
        public var isLargerThanAnyActivity: Bool { size > Zlib.largestContent }
    }

    /// A zip file starts with a local file header, "PK\3\4" (an empty one with its end, "PK\5\6").
    public static func isZip(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 4 && bytes[0] == 0x50 && bytes[1] == 0x4B
            && ((bytes[2] == 3 && bytes[3] == 4) || (bytes[2] == 5 && bytes[3] == 6))
    }

    /// The entries the central directory lists, in its order.
    public static func entries(_ bytes: [UInt8]) throws(ArchiveError) -> [Entry] {
        try bytes.withUnsafeBytes { bytes in Result { () throws(ArchiveError) in try entries(bytes) } }.get()
    }

    /// The entries of an archive in memory or mapped (`MappedFile`), as above.
    public static func entries(_ bytes: UnsafeRawBufferPointer) throws(ArchiveError) -> [Entry] {
        let reader = LittleEndian(bytes)
        // The end of central directory record: 22 bytes and a comment of up to 65,535.
        let lowest = max(0, bytes.count - 22 - 0xFFFF)
        guard let end = stride(from: bytes.count - 22, through: lowest, by: -1).first(where: { reader.u32($0) == 0x0605_4B50 })
        else {
            throw ArchiveError(message: "no zip directory at its end: the file was cut short, or is no zip file")
        }
        var count = Int(reader.u16(end + 10))
        var directorySize = Int(reader.u32(end + 12))
        var directoryOffset = Int(reader.u32(end + 16))
        // The directory ends where the records after it begin: the ZIP64 end record, if any.
        var directoryEnd = end
        if count == 0xFFFF || directorySize == 0xFFFF_FFFF || directoryOffset == 0xFFFF_FFFF {
            // The ZIP64 end locator, 20 bytes just before the end record, says where the
            // ZIP64 end record is; that record holds the counts in 64 bits.
            let locator = end - 20
            guard locator >= 0, reader.u32(locator) == 0x0706_4B50, let record = reader.int64(locator + 8),
                record + 56 <= locator, reader.u32(record) == 0x0606_4B50,
                let total = reader.int64(record + 32), let size = reader.int64(record + 40), let offset = reader.int64(record + 48)
            else {
                throw ArchiveError(message: "a ZIP64 archive whose ZIP64 end record is missing or damaged: the file is damaged")
            }
            (count, directorySize, directoryOffset, directoryEnd) = (total, size, offset, record)
        }
        guard directoryOffset <= directoryEnd, directorySize <= directoryEnd - directoryOffset else {
            throw ArchiveError(message: "its directory points past the end of the file: the file is damaged")
        }
        var entries: [Entry] = []
        var p = directoryOffset
        for index in 0..<count {
            func damaged() -> ArchiveError { ArchiveError(message: "entry \(index + 1) of its directory is damaged (at byte \(p))") }
            guard p + 46 <= directoryEnd, reader.u32(p) == 0x0201_4B50 else { throw damaged() }
            let nameLength = Int(reader.u16(p + 28))
            let extraLength = Int(reader.u16(p + 30))
            let commentLength = Int(reader.u16(p + 32))
            guard p + 46 + nameLength + extraLength <= directoryEnd else { throw damaged() }
            var entry = Entry(
                name: Self.name(bytes[(p + 46)..<(p + 46 + nameLength)], flags: reader.u16(p + 8)),
                method: reader.u16(p + 10), flags: reader.u16(p + 8), crc32: reader.u32(p + 16),
                compressedSize: Int(reader.u32(p + 20)), size: Int(reader.u32(p + 24)),
                localHeaderOffset: Int(reader.u32(p + 42)))
            // A size or offset of 0xFFFFFFFF is in the ZIP64 extra field (id 1), in this order,
            // holding only those that are.
            let sentinel = 0xFFFF_FFFF
            if entry.size == sentinel || entry.compressedSize == sentinel || entry.localHeaderOffset == sentinel {
                guard var field = reader.extraField(id: 1, in: (p + 46 + nameLength)..<(p + 46 + nameLength + extraLength)) else {
                    throw damaged()
                }
                for keyPath in [\Entry.size, \Entry.compressedSize, \Entry.localHeaderOffset] where entry[keyPath: keyPath] == sentinel {
                    // Only the uncompressed size may be larger than the archive.
                    guard field.count >= 8, let value = reader.int64(field.lowerBound), keyPath == \Entry.size || value <= bytes.count
                    else { throw damaged() }
                    entry[keyPath: keyPath] = value
                    field = (field.lowerBound + 8)..<field.upperBound
                }
            }
            entries.append(entry)
            p += 46 + nameLength + extraLength + commentLength
        }
        return entries
    }

    /// An entry's content, checked against its size and CRC-32.
    public static func contents(of entry: Entry, in bytes: [UInt8]) throws(ArchiveError) -> [UInt8] {
        try bytes.withUnsafeBytes { bytes in Result { () throws(ArchiveError) in try contents(of: entry, in: bytes) } }.get()
    }

    /// An entry's content, from an archive in memory or mapped (`MappedFile`), as above.
    public static func contents(of entry: Entry, in bytes: UnsafeRawBufferPointer) throws(ArchiveError) -> [UInt8] {
        guard !entry.isLargerThanAnyActivity else {
            throw ArchiveError(message: "\(entry.name): \(entry.size >> 20) MiB, more than any activity")
        }
        var content: [UInt8] = []
        content.reserveCapacity(entry.size)
        try contents(of: entry, in: bytes) { (piece) throws(ArchiveError) in content += piece }
        return content
    }

    /// An entry's content handed to `sink` a piece at a time, as it is read or inflated, for
    /// an entry too large to hold in memory (a zip inside a zip, written to a file). Its size
    /// and CRC-32 are checked as it goes and at its end: once this throws, what `sink` had is
    /// not the entry.
    public static func contents(
        of entry: Entry, in bytes: UnsafeRawBufferPointer, into sink: (UnsafeRawBufferPointer) throws(ArchiveError) -> Void
    ) throws(ArchiveError) {
        func damaged(_ what: String) -> ArchiveError { ArchiveError(message: "\(entry.name): \(what)") }
        guard entry.flags & 1 == 0 else { throw damaged("encrypted, which is not read") }
        let reader = LittleEndian(bytes)
        let header = entry.localHeaderOffset
        guard header + 30 <= bytes.count, reader.u32(header) == 0x0403_4B50 else {
            throw damaged("its local header is missing (byte \(header)): the file is damaged")
        }
        let start = header + 30 + Int(reader.u16(header + 26)) + Int(reader.u16(header + 28))
        guard start + entry.compressedSize <= bytes.count else {
            throw damaged("its data runs past the end of the file: the file was cut short")
        }
        let data = UnsafeRawBufferPointer(rebasing: bytes[start..<(start + entry.compressedSize)])
        var count = 0
        var crc: UInt32 = 0
        var failure: ArchiveError?
        // Counted, checked and handed on; false (a failure kept) stops the inflating.
        func take(_ piece: UnsafeRawBufferPointer) -> Bool {
            do throws(ArchiveError) {
                count += piece.count
                do { crc = try Zlib.crc32(piece, continuing: crc) } catch { throw damaged(error.message) }
                try sink(piece)
                return true
            } catch {
                failure = error
                return false
            }
        }
        switch entry.method {
        case 0:
            _ = take(data)
        case 8:
            let damage: Zlib.InflateError?
            do {
                // Negative window bits: raw deflate, no zlib or gzip wrapper. Inflating stops
                // past the size the directory gives: more is damage, and never all held.
                damage = try Zlib.inflate(
                    data.bindMemory(to: UInt8.self), windowBits: -MAX_WBITS, untilEnd: false, limit: entry.size
                ) { piece in take(UnsafeRawBufferPointer(piece)) }
            } catch {
                throw damaged(error.message)
            }
            if let failure { throw failure }
            if let damage { throw damaged(damage.message) }
        default:
            throw damaged("compressed with method \(entry.method), which is not read (only stored and deflated)")
        }
        if let failure { throw failure }
        guard count == entry.size else {
            throw damaged("\(count) bytes where the directory says \(entry.size): the file is damaged")
        }
        guard crc == entry.crc32 else { throw damaged("its CRC-32 does not match: the file is damaged") }
    }

    /// Little-endian integers at byte offsets the caller has checked.
    private struct LittleEndian {
        let bytes: UnsafeRawBufferPointer
        init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }
        func u16(_ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> UInt32 { UInt32(u16(at)) | UInt32(u16(at + 2)) << 16 }
        /// A 64-bit field as an Int; nil when it lies outside the bytes or does not fit.
        func int64(_ at: Int) -> Int? {
            guard at >= 0, at + 8 <= bytes.count else { return nil }
            let value = UInt64(u32(at)) | UInt64(u32(at + 4)) << 32
            return value <= UInt64(Int.max) ? Int(value) : nil
        }

        /// The data of the extra field `id` among the extra fields in `range`.
        func extraField(id: UInt16, in range: Range<Int>) -> Range<Int>? {
            var p = range.lowerBound
            while p + 4 <= range.upperBound {
                let size = Int(u16(p + 2))
                guard p + 4 + size <= range.upperBound else { return nil }
                if u16(p) == id { return (p + 4)..<(p + 4 + size) }
                p += 4 + size
            }
            return nil
        }
    }
}

extension Zip {
    /// An entry's name: UTF-8 where the entry says so (general purpose flag bit 11), or where
    /// its bytes are UTF-8 (Info-ZIP on Linux and macOS writes them without the flag); else IBM
    /// code page 437, as APPNOTE.TXT (section 4.4.4) has names without the flag, which Windows
    /// tools write ("Läufe" was shown "L�ufe").
    static func name<Bytes: Collection<UInt8>>(_ bytes: Bytes, flags: UInt16) -> String {
        if flags & 0x0800 != 0 || String(validating: bytes, as: UTF8.self) != nil {
            return String(decoding: bytes, as: UTF8.self)
        }
        return String(bytes.map { $0 < 0x80 ? Character(Unicode.Scalar($0)) : codePage437[Int($0) - 0x80] })
    }

    /// Code page 437's characters for bytes 0x80 to 0xFF.
    private static let codePage437 = Array(
        "ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u{00A0}")
}
