#if canImport(Glibc)
import Glibc
#endif

/// A store in a folder this process may not write (a read-only mount, a backup copy, another
/// user's folder), opened to be read.
extension SessionStore {
    /// Whether the store's folder may not be written by this process.
    static func inAFolderNotWritten(_ path: String) -> Bool {
        let folder = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        return access(folder.isEmpty ? "/" : folder, W_OK) != 0
    }

    /// Whether the store's write-ahead log holds nothing (or is not there).
    static func walIsEmpty(_ path: String) -> Bool {
        var info = stat()
        return stat(path + "-wal", &info) != 0 || info.st_size == 0
    }

    /// The path as an SQLite URI's: the characters a URI gives a meaning, and bytes beyond
    /// ASCII, escaped.
    static func uriPath(_ path: String) -> String {
        var escaped = ""
        for byte in path.utf8 {
            if byte >= 0x80 || byte == UInt8(ascii: "%") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") {
                escaped += "%" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            } else {
                escaped.unicodeScalars.append(UnicodeScalar(byte))
            }
        }
        return escaped
    }
}
