#if canImport(Glibc)
import Glibc
#endif
public import IntervalProLaunch

/// Who may do what: the rules of docs/reference/web-api.md, "Access", on a request's plain facts.
///
/// Loopback servers trust the machine but check `Host`, so a page elsewhere cannot reach
/// them through DNS rebinding. Other servers need the token on every request. Requests that
/// change something (POST, the WebSocket) must come from the page's own origin.
public struct WebAccess: Sendable {
    /// Nil on loopback.
    public let token: String?

    public static let cookieName = "intervalpro_token"

    public init(token: String?) {
        self.token = token
    }

    /// The page acts on the session and the history with the server's rights: never root's,
    /// unless asked for in so many words (`allowed`).
    public static func refuseRoot(allowed: Bool) throws {
        guard geteuid() == 0, !allowed else { return }
        throw LaunchError(
            "the web page is not served as root: run it as the user whose sessions it keeps (the systemd user unit does), or pass --allow-root",
            kind: .refused)
    }

    public struct Request {
        public var method: String
        /// The path without the query.
        public var path: String
        /// `?token=` from the query.
        public var queryToken: String?
        public var authorization: String?
        public var cookieToken: String?
        public var host: String?
        public var origin: String?
        /// POST, or a WebSocket upgrade: acts on the session.
        public var changesState: Bool

        public init(
            method: String, path: String, queryToken: String?, authorization: String?, cookieToken: String?,
            host: String?, origin: String?, changesState: Bool
        ) {
            self.method = method
            self.path = path
            self.queryToken = queryToken
            self.authorization = authorization
            self.cookieToken = cookieToken
            self.host = host
            self.origin = origin
            self.changesState = changesState
        }
    }

    public enum Decision: Equatable {
        case allow
        /// The token came in the query: set the cookie and send the browser to `location`,
        /// the same path without the token.
        case setCookieAndRedirect(location: String)
        case deny(status: Int, message: String)
    }

    public func decide(_ request: Request) -> Decision {
        if let token {
            let bearer = request.authorization.flatMap { value -> String? in
                let parts = value.split(separator: " ", maxSplits: 1)
                guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
                return String(parts[1])
            }
            if let queryToken = request.queryToken, request.method == "GET", Self.same(queryToken, token) {
                // A path of this server: "//evil.example/" is another site's to a browser.
                let path = request.path.hasPrefix("//") ? "/" + request.path.drop { $0 == "/" } : request.path
                return .setCookieAndRedirect(location: path)
            }
            let presented = [bearer, request.cookieToken].contains { $0.map { Self.same($0, token) } ?? false }
            guard presented else { return .deny(status: 401, message: "a token is needed: open the address with ?token= that intervalpro printed") }
        } else {
            let hostName = request.host.map(Self.hostName) ?? ""
            guard ListenAddress.isLoopbackName(hostName) else {
                return .deny(status: 403, message: "this server answers only to localhost")
            }
        }
        if request.changesState, let origin = request.origin {
            guard let host = request.host, origin == "http://\(host)" else {
                return .deny(status: 403, message: "requests from another site are refused")
            }
        }
        return .allow
    }

    /// The name in a Host header, without its port.
    static func hostName(_ host: String) -> String {
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") { return String(host[...close]) }
        return String(host.split(separator: ":", maxSplits: 1).first ?? "")
    }

    /// Compares in time independent of where the first difference is.
    static func same(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for i in x.indices { difference |= x[i] ^ y[i] }
        return difference == 0
    }
}

#if canImport(Glibc)
import Glibc
#endif

extension ListenAddress {
    /// The address a phone types: for a wildcard, this machine's first IPv4 address that is
    /// not loopback (what the phone on the same network reaches).
    public func pageURL(token: String?) -> String {
        var shown = host
        if host == "0.0.0.0" || host == "::" { shown = Self.firstNetworkAddress() ?? host }
        let authority = shown.contains(":") ? "[\(shown)]:\(port)" : "\(shown):\(port)"
        return "http://\(authority)/" + (token.map { "?token=\($0)" } ?? "")
    }

    /// Served on every address while this machine has none but loopback (a Pi whose service
    /// started before its Wi-Fi was up): there is no address a phone could open yet.
    public var awaitsNetwork: Bool { (host == "0.0.0.0" || host == "::") && Self.firstNetworkAddress() == nil }

    static func firstNetworkAddress() -> String? {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return nil }
        defer { freeifaddrs(list) }
        var entry: UnsafeMutablePointer<ifaddrs>? = first
        while let current = entry {
            defer { entry = current.pointee.ifa_next }
            guard let socketAddress = current.pointee.ifa_addr, socketAddress.pointee.sa_family == sa_family_t(AF_INET)
            else { continue }
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            let found = socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                var inAddress = address.pointee.sin_addr
                return inet_ntop(AF_INET, &inAddress, &text, socklen_t(text.count)) != nil
            }
            guard found else { continue }
            let name = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !name.hasPrefix("127.") { return name }
        }
        return nil
    }
}
