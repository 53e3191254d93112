import CQRencode
import Glibc

/// Why a text could not become a QR code.
public enum QRCodeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Nothing to encode.
    case empty
    /// More bytes than the largest symbol holds (version 40 at level M: 2,331 in 8-bit mode).
    case tooLong(bytes: Int)
    /// libqrencode could not allocate memory.
    case outOfMemory
    /// Any other failure libqrencode reports, with its errno.
    case failed(errno: Int32)

    public var description: String {
        switch self {
        case .empty: "a QR code needs at least one byte"
        case .tooLong(let bytes): "\(bytes) bytes are too many for a QR code (at most 2331 at level M)"
        case .outOfMemory: "out of memory while making a QR code"
        case .failed(let code): "cannot make a QR code: \(String(cString: strerror(code)))"
        }
    }
}

/// A QR code of a text: its UTF-8 bytes in 8-bit mode, error correction level M (15 % of the
/// symbol may be lost: a phone reads it off a screen with glare), in the smallest version
/// that holds them. Made by libqrencode; the modules are copied out, so it is a plain value.
public struct QRCode: Equatable, Sendable {
    /// Modules per side, without a quiet zone (21 for version 1, 4 more per version).
    public let size: Int
    /// Row-major, true for a dark module.
    private let modules: [Bool]

    public init(_ text: String) throws(QRCodeError) {
        let symbol = try EncodedSymbol(Array(text.utf8))
        size = symbol.width
        modules = symbol.darkModules()
    }

    /// Whether the module in column `x`, row `y` (from the top left, 0 to size - 1) is dark.
    public func isDark(x: Int, y: Int) -> Bool {
        precondition((0..<size).contains(x) && (0..<size).contains(y), "module (\(x), \(y)) outside a \(size)×\(size) code")
        return modules[y * size + x]
    }

    /// The code for a terminal: two module rows per line, each ending in "\n", with a quiet
    /// zone of `quietZone` modules around it.
    ///
    /// Drawn in negative: the block characters (▀ ▄ █) paint the *light* modules and the
    /// quiet zone in the terminal's text colour, and dark modules are left as spaces, showing
    /// the background. On the usual light-on-dark terminal that gives dark modules on a light
    /// field, which is what a phone expects; on a dark-on-light terminal it shows inverted,
    /// which some scanners do not read. Past the last row (an odd row count) the lower half of
    /// the last line is background, outside the quiet zone.
    public func terminalText(quietZone: Int = 2) -> String {
        precondition(quietZone >= 0, "negative quiet zone")
        let extent = size + 2 * quietZone
        func isLight(_ x: Int, _ y: Int) -> Bool {
            guard y < extent else { return false }
            let column = x - quietZone
            let row = y - quietZone
            guard (0..<size).contains(column) && (0..<size).contains(row) else { return true }
            return !modules[row * size + column]
        }
        var text = ""
        text.unicodeScalars.reserveCapacity((extent + 1) * (extent + 1) / 2)
        for top in stride(from: 0, to: extent, by: 2) {
            for x in 0..<extent {
                let character: Unicode.Scalar =
                    switch (isLight(x, top), isLight(x, top + 1)) {
                    case (true, true): "█"
                    case (true, false): "▀"
                    case (false, true): "▄"
                    case (false, false): " "
                    }
                text.unicodeScalars.append(character)
            }
            text.unicodeScalars.append("\n")
        }
        return text
    }

    /// The code as a binary portable bitmap (PBM, P4): `scale` pixels per module, a quiet zone
    /// of `quietZone` modules, 1 bits (black) for dark modules, as image tools and decoders
    /// such as zbarimg read it.
    public func pbm(scale: Int = 4, quietZone: Int = 4) -> [UInt8] {
        precondition(scale >= 1, "scale below 1")
        precondition(quietZone >= 0, "negative quiet zone")
        let pixels = (size + 2 * quietZone) * scale
        let bytesPerRow = (pixels + 7) / 8
        var image = Array("P4\n\(pixels) \(pixels)\n".utf8)
        image.reserveCapacity(image.count + bytesPerRow * pixels)
        for y in 0..<pixels {
            var row = [UInt8](repeating: 0, count: bytesPerRow)
            let moduleRow = y / scale - quietZone
            if (0..<size).contains(moduleRow) {
                for x in 0..<pixels {
                    let moduleColumn = x / scale - quietZone
                    if (0..<size).contains(moduleColumn) && modules[moduleRow * size + moduleColumn] {
                        row[x / 8] |= 0x80 >> UInt8(x % 8)
                    }
                }
            }
            image += row
        }
        return image
    }
}

/// A symbol libqrencode made, freed with this object.
private final class EncodedSymbol {
    private let symbol: UnsafeMutablePointer<QRcode>

    init(_ bytes: [UInt8]) throws(QRCodeError) {
        guard !bytes.isEmpty else { throw .empty }
        symbol = try Self.encodeData(bytes)
    }

    deinit {
        QRcode_free(symbol)
    }

    var width: Int { Int(symbol.pointee.width) }

    /// libqrencode gives a byte per module; its lowest bit is the colour (1 = dark), the
    /// others say which part of the symbol the module belongs to.
    func darkModules() -> [Bool] {
        let count = width * width
        return [Bool](unsafeUninitializedCapacity: count) { buffer, initialized in
            for index in 0..<count {
                buffer[index] = symbol.pointee.data[index] & 1 == 1
            }
            initialized = count
        }
    }

    /// QRcode_encodeData: 8-bit mode whatever the bytes, smallest version (0), level M.
    private static func encodeData(_ bytes: [UInt8]) throws(QRCodeError) -> UnsafeMutablePointer<QRcode> {
        errno = 0
        let symbol = bytes.withUnsafeBufferPointer { buffer in
            QRcode_encodeData(Int32(clamping: buffer.count), buffer.baseAddress, 0, QR_ECLEVEL_M)
        }
        guard let symbol else { throw error(errno: errno, bytes: bytes.count) }
        return symbol
    }

    /// The one place libqrencode's errno values become errors.
    private static func error(errno code: Int32, bytes: Int) -> QRCodeError {
        switch code {
        case ERANGE: .tooLong(bytes: bytes)
        case ENOMEM: .outOfMemory
        default: .failed(errno: code)
        }
    }
}
