import IntervalProCore
import IntervalProIO
import IntervalProLaunch

/// The token off-loopback requests need: 128 random bits as hex, kept in the data folder
/// (0600) so a phone's cookie outlives a restart of the server.
public enum WebToken {
    /// The stored token, made anew when there is none, it is malformed, or `renew` asks.
    public static func load(renew: Bool = false) throws -> String {
        guard let directory = UserFolders.data else {
            throw LaunchError("no data directory for the web token: set XDG_DATA_HOME or HOME", kind: .unavailable)
        }
        let path = "\(directory)/web-token"
        if !renew, let bytes = try? FileIO.readAll(path) {
            let text = String(decoding: bytes, as: UTF8.self).trimmingWhitespace
            if text.count == 32, text.allSatisfy(\.isHexDigit) {
                // Kept as it was, a token others could read (0644) stayed readable to them.
                FileIO.keepPrivate(path)
                return text
            }
        }
        let token = RandomText.hex(bytes: 16)
        do throws(FileError) {
            try FileIO.makeDirectories(directory)
            try FileIO.replaceContents(of: path, with: token + "\n")
        } catch {
            throw LaunchError(error)
        }
        return token
    }
}
