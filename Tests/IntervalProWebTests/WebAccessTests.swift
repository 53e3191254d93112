@testable import IntervalProWeb
import IntervalProLaunch
import Testing

let token = "0123456789abcdef0123456789abcdef"

func facts(
    _ method: String = "GET", path: String = "/api/state", query: String? = nil, bearer: String? = nil,
    cookie: String? = nil, host: String? = "127.0.0.1:8417", origin: String? = nil
) -> WebAccess.Request {
    WebAccess.Request(
        method: method, path: path, queryToken: query, authorization: bearer.map { "Bearer \($0)" }, cookieToken: cookie,
        host: host, origin: origin, changesState: method != "GET" || path == "/api/live")
}

@Suite struct WebAccessTests {
    @Test func listenAddressesParseAndKnowLoopback() throws {
        #expect(ListenAddress("8417") == ListenAddress(host: "127.0.0.1", port: 8417))
        #expect(ListenAddress("0.0.0.0:80") == ListenAddress(host: "0.0.0.0", port: 80))
        #expect(ListenAddress("0:80") == ListenAddress(host: "0.0.0.0", port: 80))
        #expect(ListenAddress("[::1]:9000") == ListenAddress(host: "::1", port: 9000))
        #expect(ListenAddress("localhost:1")?.isLoopback == true)
        #expect(ListenAddress("127.0.0.2:8417")?.isLoopback == true)
        #expect(ListenAddress("0.0.0.0:8417")?.isLoopback == false)
        #expect(ListenAddress("192.168.1.20:8417")?.isLoopback == false)
        // An address alone takes the default port; a word without a dot is no host.
        #expect(ListenAddress("0.0.0.0") == ListenAddress(host: "0.0.0.0", port: ListenAddress.defaultPort))
        #expect(ListenAddress("localhost") == ListenAddress(host: "localhost", port: ListenAddress.defaultPort))
        #expect(ListenAddress("pi.local") == ListenAddress(host: "pi.local", port: ListenAddress.defaultPort))
        // An IPv6 address alone, bare or in brackets ("cannot listen on [:]:1", and "invalid").
        #expect(ListenAddress("::1") == ListenAddress(host: "::1", port: ListenAddress.defaultPort))
        #expect(ListenAddress("[::1]") == ListenAddress(host: "::1", port: ListenAddress.defaultPort))
        #expect(ListenAddress("::")?.isLoopback == false && ListenAddress("::1")?.isLoopback == true)
        for bad in ["", "host:", ":80", "0.0.0.0:0", "0.0.0.0:70000", "[::1", "[::1]x", "x:y", "nonsense", "a b.c", "0.0.0.0/24", "0", ":: 1"] {
            #expect(ListenAddress(bad) == nil, "\(bad)")
        }
        #expect(ListenAddress(host: "::", port: 1).description == "[::]:1")
    }

    @Test func loopbackNeedsNoTokenButALoopbackHost() {
        let access = WebAccess(token: nil)
        #expect(access.decide(facts()) == .allow)
        #expect(access.decide(facts(host: "localhost:8417")) == .allow)
        #expect(access.decide(facts(host: "[::1]:8417")) == .allow)
        guard case .deny(403, _) = access.decide(facts(host: "evil.example:8417")) else {
            Issue.record("a rebound name is refused")
            return
        }
        // A name that only begins like a loopback address is a name (it passed, and a page of
        // that name rebound to 127.0.0.1 deleted sessions).
        for host in ["127.attacker.example:8417", "127.0.0.1.nip.io:8417", "127.1:8417", "127.0.0.256:8417"] {
            guard case .deny(403, _) = access.decide(facts(host: host)) else {
                Issue.record("\(host) is refused")
                continue
            }
        }
        #expect(access.decide(facts(host: "127.0.0.53:8417")) == .allow)
        guard case .deny(403, _) = access.decide(facts(host: nil)) else {
            Issue.record("no Host is refused")
            return
        }
    }

    @Test func offLoopbackEveryRequestNeedsTheToken() {
        let access = WebAccess(token: token)
        for path in ["/", "/history", "/api/state", "/api/live", "/sessions/1/report"] {
            guard case .deny(401, _) = access.decide(facts(path: path, host: "192.168.1.20:8417")) else {
                Issue.record("\(path) without a token")
                continue
            }
        }
        guard case .deny(401, _) = access.decide(facts(bearer: "0123456789abcdef0123456789abcdee")) else {
            Issue.record("a wrong token")
            return
        }
        guard case .deny(401, _) = access.decide(facts("POST", path: "/api/command", host: "192.168.1.20:8417")) else {
            Issue.record("a POST without a token")
            return
        }
        #expect(access.decide(facts(bearer: token)) == .allow)
        #expect(access.decide(facts(cookie: token)) == .allow)
        #expect(access.decide(facts(path: "/", query: token)) == .setCookieAndRedirect(location: "/"))
        // A path of this server, never another site's ("//evil.example/" to a browser).
        #expect(access.decide(facts(path: "//evil.example/", query: token)) == .setCookieAndRedirect(location: "/evil.example/"))
        guard case .deny(401, _) = access.decide(facts("POST", path: "/api/command", query: token)) else {
            Issue.record("the query token is for GET only")
            return
        }
    }

    @Test func changesComeOnlyFromThePagesOwnOrigin() {
        let access = WebAccess(token: token)
        let host = "192.168.1.20:8417"
        #expect(access.decide(facts("POST", path: "/api/command", cookie: token, host: host, origin: "http://\(host)")) == .allow)
        #expect(access.decide(facts("POST", path: "/api/command", bearer: token, host: host)) == .allow, "no Origin: not a browser")
        guard case .deny(403, _) = access.decide(
            facts("POST", path: "/api/command", cookie: token, host: host, origin: "http://evil.example"))
        else {
            Issue.record("another site's POST")
            return
        }
        guard case .deny(403, _) = access.decide(facts(path: "/api/live", cookie: token, host: host, origin: "http://evil.example"))
        else {
            Issue.record("another site's WebSocket")
            return
        }
        #expect(access.decide(facts(path: "/api/state", cookie: token, host: host, origin: "http://evil.example")) == .allow,
            "reading is not a change; the token still guards it")
    }
}

@Suite struct HTTPDateTests {
    @Test func formatsIMFFixdate() {
        // RFC 9110's own example.
        #expect(HTTPDate.format(secondsSince1970: 784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(secondsSince1970: 0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.format(secondsSince1970: 1_795_581_817) == "Wed, 25 Nov 2026 04:43:37 GMT")
    }
}
