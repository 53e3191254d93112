/// An HTTP request as a plain value: what a service call asks, built without I/O. The
/// transport (libcurl) does the rest, including basic auth and multipart encoding.
public struct HTTPRequest: Sendable, Equatable {
    public enum Method: String, Sendable {
        case get = "GET", post = "POST", put = "PUT"
    }

    public enum Credential: Sendable, Equatable {
        case basic(user: String, password: String)
        case bearer(String)
    }

    public enum Body: Sendable, Equatable {
        case none
        /// application/x-www-form-urlencoded.
        case form([QueryItem])
        /// multipart/form-data.
        case multipart([FormPart])
        /// application/json: the document's text.
        case json(String)
    }

    public var method: Method
    public var url: String
    public var credential: Credential?
    public var body: Body
    /// Said in `-v` logs and messages instead of the URL: "POST /api/v3/uploads". Never a secret.
    public var summary: String

    public init(_ method: Method, _ url: String, credential: Credential? = nil, body: Body = .none, summary: String) {
        self.method = method
        self.url = url
        self.credential = credential
        self.body = body
        self.summary = summary
    }
}

public struct QueryItem: Sendable, Equatable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    /// `name=value&...`, percent-encoded as RFC 3986 unreserved characters allow.
    public static func encode(_ items: [QueryItem]) -> String {
        items.map { "\(percentEncoded($0.name))=\(percentEncoded($0.value))" }.joined(separator: "&")
    }

    /// The items of `a=1&b=2`, decoded; malformed escapes stay as they are.
    public static func decode(_ query: Substring) -> [QueryItem] {
        query.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return QueryItem(percentDecoded(parts[0]), parts.count > 1 ? percentDecoded(parts[1]) : "")
        }
    }

    public static func percentEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return out
    }

    static func percentDecoded(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var index = text.utf8.startIndex
        let utf8 = text.utf8
        while index < utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%"), let high = utf8.index(index, offsetBy: 1, limitedBy: utf8.endIndex),
                let low = utf8.index(index, offsetBy: 2, limitedBy: utf8.endIndex), low < utf8.endIndex,
                let value = UInt8(String(decoding: [utf8[high], utf8[low]], as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                index = utf8.index(after: low)
            } else {
                bytes.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index = utf8.index(after: index)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// One part of a multipart/form-data body: a field, or a file when it has a file name.
public struct FormPart: Sendable, Equatable {
    public var name: String
    public var data: [UInt8]
    public var filename: String?
    public var contentType: String?

    public static func field(_ name: String, _ value: String) -> FormPart {
        FormPart(name: name, data: Array(value.utf8), filename: nil, contentType: nil)
    }

    public static func file(_ name: String, _ data: [UInt8], filename: String, contentType: String) -> FormPart {
        FormPart(name: name, data: data, filename: filename, contentType: contentType)
    }
}

/// An answer: status, headers (names lower-cased) and body.
public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    public var headers: [String: String]
    public var body: [UInt8]

    public init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public var isSuccess: Bool { (200..<300).contains(status) }

    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}
