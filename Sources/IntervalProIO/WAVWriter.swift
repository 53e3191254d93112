import SystemPackage

/// Writes 16-bit PCM as a RIFF/WAVE file. The length is known before the first sample (a
/// session's audio timeline ends where its last event does), so the header is written once,
/// first, and a long render streams out in pieces: to a file, which replaces the old one only
/// once whole (`FileIO.Replacement`), or to standard output or a pipe (`-o -`), which cannot
/// seek back to fill sizes in.
public final class WAVWriter {
    public let sampleRate: Int
    public let channels: Int
    /// The most bytes of samples a WAV file's 32-bit sizes can say (its RIFF size counts 36
    /// more): 93 minutes at 192 kHz in stereo, 6.2 hours at 48 kHz.
    public static let mostDataBytes = Int(UInt32.max) - 36
    /// The frames the header promises.
    public let length: Int
    public private(set) var frames: Int = 0
    private let file: FileIO.Replacement

    public init(_ file: FileIO.Replacement, sampleRate: Int, channels: Int, frames: Int) throws(FileError) {
        self.file = file
        self.sampleRate = sampleRate
        self.channels = channels
        length = frames
        try file.write(Self.header(sampleRate: sampleRate, channels: channels, dataBytes: frames * channels * 2))
    }

    /// Appends interleaved samples (a whole number of frames).
    public func write(_ samples: UnsafeBufferPointer<Int16>) throws(FileError) {
        precondition(samples.count % channels == 0)
        frames += samples.count / channels
        // WAV is little-endian, as is every machine this runs on; say so if that changes.
        #if _endian(big)
        try file.write(samples.flatMap { withUnsafeBytes(of: $0.littleEndian, Array.init) })
        #else
        try file.write(UnsafeRawBufferPointer(samples))
        #endif
    }

    /// Puts the file in place, once every frame the header promised is written.
    public func finish() throws(FileError) {
        assert(frames == length, "the header promised \(length) frames, \(frames) were written")
        try file.commit()
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
