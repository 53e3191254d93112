/// Where the server listens, as `--listen HOST:PORT` or `--web [HOST:]PORT` give it.
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public static let defaultPort = 8417

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// "8417", "0.0.0.0:8417", "[::1]:8417", "localhost:8417"; an address alone ("0.0.0.0",
    /// "localhost", "pi.local", "::1", "[::1]") takes the default port. Nil when malformed.
    public init?(_ text: String, defaultHost: String = "127.0.0.1") {
        var host = defaultHost
        var portText = Substring(text)
        if !text.contains(":"), Int(text) == nil {
            // `--listen 0.0.0.0`, as servers take a host and a port apart, was "not a valid
            // value". A word without a dot ("nonsense") stays one: more likely a slip than a host.
            guard text == "localhost" || (text.contains(".") && text.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" }))
            else { return nil }
            host = text
            portText = Substring(String(Self.defaultPort))
        } else if text.hasPrefix("[") {
            // "[::1]" alone takes the default port too ("is invalid", it was).
            guard let close = text.firstIndex(of: "]") else { return nil }
            let after = text[text.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else { return nil }
            host = String(text[text.index(after: text.startIndex)..<close])
            portText = after.isEmpty ? Substring(String(Self.defaultPort)) : after.dropFirst()
        } else if text.count(where: { $0 == ":" }) > 1 {
            // An IPv6 address alone ("::1", "fe80::2%eth0"): one with a port is written in
            // brackets. It was cut at its last colon: "cannot listen on [:]:1".
            guard text.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." || $0 == "%" || $0.isLetter || $0.isNumber }) else { return nil }
            host = text
            portText = Substring(String(Self.defaultPort))
        } else if let colon = text.lastIndex(of: ":") {
            host = String(text[..<colon])
            portText = text[text.index(after: colon)...]
        }
        guard !host.isEmpty, let port = Int(portText), (1...65_535).contains(port) else { return nil }
        // "0" binds every interface as "0.0.0.0" does, and is printed so: the page's address
        // was "http://0:PORT", which no phone opens.
        self.host = host == "0" ? "0.0.0.0" : host
        self.port = port
    }

    /// Only this machine can connect: no token needed.
    public var isLoopback: Bool { Self.isLoopbackName(host) }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    public static func isLoopbackName(_ host: String) -> Bool {
        let name = host.lowercased()
        if name == "localhost" || name == "::1" || name == "[::1]" { return true }
        // 127.0.0.0/8 written as an address, four numbers: "127.attacker.example" is a name
        // anyone can point at 127.0.0.1 (DNS rebinding), and passed as loopback.
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127"
            && parts.allSatisfy { part in !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCII) && UInt8(part) != nil }
    }
}
