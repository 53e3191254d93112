import SystemPackage

/// Writes 16-bit PCM as a RIFF/WAVE file. The header's sizes are written as zero first
/// and filled in by `close`, so a long render streams to disk in pieces.
public final class WAVWriter {
    public let path: String
    public let sampleRate: Int
    public let channels: Int
    public private(set) var frames: Int = 0
    private var fd: FileDescriptor?

    public init(path: String, sampleRate: Int, channels: Int) throws(FileError) {
        self.path = path
        self.sampleRate = sampleRate
        self.channels = channels
        do {
            fd = try FileDescriptor.open(
                FilePath(path), .writeOnly, options: [.create, .truncate],
                permissions: [.ownerReadWrite, .groupRead, .otherRead])
        } catch {
            throw FileError(path: path, operation: .create, errno: error as? Errno ?? .ioError)
        }
        try write(bytes: Self.header(sampleRate: sampleRate, channels: channels, dataBytes: 0))
    }

    /// Appends interleaved samples (a whole number of frames).
    public func write(_ samples: UnsafeBufferPointer<Int16>) throws(FileError) {
        precondition(samples.count % channels == 0)
        frames += samples.count / channels
        // WAV is little-endian, as is every machine this runs on; say so if that changes.
        #if _endian(big)
        try write(bytes: samples.flatMap { withUnsafeBytes(of: $0.littleEndian, Array.init) })
        #else
        try write(raw: UnsafeRawBufferPointer(samples))
        #endif
    }

    /// Fills in the sizes and closes the file.
    public func close() throws(FileError) {
        guard let fd else { return }
        defer { self.fd = nil }
        let header = Self.header(sampleRate: sampleRate, channels: channels, dataBytes: frames * channels * 2)
        do {
            try fd.closeAfter {
                _ = try fd.seek(offset: 0, from: .start)
                _ = try fd.writeAll(header)
            }
        } catch {
            throw FileError(path: path, operation: .write, errno: error as? Errno ?? .ioError)
        }
    }

    deinit {
        try? close()
    }

    private func write(bytes: [UInt8]) throws(FileError) {
        var failure: FileError?
        bytes.withUnsafeBytes { raw in
            do throws(FileError) { try write(raw: raw) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    private func write(raw: UnsafeRawBufferPointer) throws(FileError) {
        guard let fd else { return }
        do {
            _ = try fd.writeAll(raw)
        } catch {
            throw FileError(path: path, operation: .write, errno: error as? Errno ?? .ioError)
        }
    }

    /// The 44-byte canonical header.
    public static func header(sampleRate: Int, channels: Int, dataBytes: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        func text(_ s: String) { bytes += Array(s.utf8) }
        func u32(_ v: Int) { bytes += withUnsafeBytes(of: UInt32(truncatingIfNeeded: v).littleEndian, Array.init) }
        func u16(_ v: Int) { bytes += withUnsafeBytes(of: UInt16(truncatingIfNeeded: v).littleEndian, Array.init) }
        text("RIFF"); u32(36 + dataBytes); text("WAVE")
        text("fmt "); u32(16); u16(1); u16(channels); u32(sampleRate)
        u32(sampleRate * channels * 2); u16(channels * 2); u16(16)
        text("data"); u32(dataBytes)
        return bytes
    }
}

/// A WAV file read back: the format and the interleaved samples.
public struct WAVFile: Sendable {
    public var sampleRate: Int
    public var channels: Int
    public var samples: [Int16]

    /// Reads a 16-bit PCM WAV, walking its chunks (ALSA's file plugin and other writers
    /// may add chunks before "data"). Nil when it is not one.
    public static func parse(_ bytes: [UInt8]) -> WAVFile? {
        func u32(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        guard bytes.count >= 12, bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WAVE".utf8)
        else { return nil }
        var offset = 12
        var rate = 0
        var channels = 0
        while offset + 8 <= bytes.count {
            let id = bytes[offset..<offset + 4]
            var size = u32(offset + 4)
            let body = offset + 8
            if id.elementsEqual("fmt ".utf8), body + 16 <= bytes.count {
                guard u16(body) == 1, u16(body + 14) == 16 else { return nil }
                channels = u16(body + 2)
                rate = u32(body + 4)
            } else if id.elementsEqual("data".utf8) {
                guard channels > 0 else { return nil }
                // A writer that was not closed leaves the size at 0 or too large: take what is there.
                if size == 0 || body + size > bytes.count { size = bytes.count - body }
                var samples = [Int16](repeating: 0, count: size / 2)
                for i in samples.indices { samples[i] = Int16(bitPattern: UInt16(u16(body + 2 * i))) }
                return WAVFile(sampleRate: rate, channels: channels, samples: samples)
            }
            offset = body + size + (size & 1)
        }
        return nil
    }
}
