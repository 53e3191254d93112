import CCurl
import Foundation
public import IntervalProServices
import Synchronization

/// Why a request got no HTTP answer: the host was not found, the connection was refused or
/// dropped, the time ran out, or libcurl is missing.
public struct TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var isTimeout: Bool
    /// libcurl could not be opened, or the answer was far larger than any service's: trying
    /// again will not help, so the request is not retried.
    public var isPermanent: Bool
    /// The task that sent it was cancelled (`serve` stopping): the request was given up.
    public var isCancelled: Bool

    public init(message: String, isTimeout: Bool, isPermanent: Bool = false, isCancelled: Bool = false) {
        self.message = message
        self.isTimeout = isTimeout
        self.isPermanent = isPermanent || isCancelled
        self.isCancelled = isCancelled
    }

    static let cancelled = TransportError(message: "given up: stopping", isTimeout: false, isCancelled: true)

    public var description: String { message }
}

/// HTTP over libcurl, opened at run time (see CCurl/shim.h): one easy handle per request, on
/// a thread of its own, so that a slow service never blocks the caller's executor.
// @unchecked: `api` is a table of function pointers, written once in init and only read after.
public final class CurlTransport: @unchecked Sendable {
    private let api: intervalpro_curl
    /// Connecting may take this long; the whole exchange `timeout` (per request).
    private let connectTimeout: Double
    public let timeout: Double

    public init(timeout: Double = 30, connectTimeout: Double = 10) throws(TransportError) {
        var api = intervalpro_curl()
        guard intervalpro_curl_open(&api) == 0 else {
            throw TransportError(
                message: "libcurl is not installed (Debian: apt install libcurl4)", isTimeout: false, isPermanent: true)
        }
        self.api = api
        self.timeout = timeout
        self.connectTimeout = min(connectTimeout, timeout)
    }

    /// Cancelling the calling task gives the request up within about a second (libcurl asks
    /// its progress callback at least that often): a `serve` stopping while a page waited on a
    /// silent service took 125 s, past systemd's stop timeout.
    public func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        if Task.isCancelled { throw .cancelled }
        let stop = StopRequest()
        let result: Result<HTTPResponse, TransportError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let thread = Thread { continuation.resume(returning: self.perform(request, stop: stop)) }
                thread.name = "intervalpro-http"
                thread.start()
            }
        } onCancel: {
            stop.request()
        }
        return try result.get()
    }

    /// One request, blocking: the handle, its lists and buffers live exactly as long as this call.
    private func perform(_ request: HTTPRequest, stop: StopRequest) -> Result<HTTPResponse, TransportError> {
        var api = self.api
        guard let handle = api.easy_init() else {
            return .failure(TransportError(message: "libcurl could not start a request", isTimeout: false))
        }
        defer { api.easy_cleanup(handle) }
        let collected = Collected(stop: stop)
        let context = Unmanaged.passRetained(collected)
        defer { context.release() }
        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { if let headerList { api.slist_free_all(headerList) } }
        var mime: OpaquePointer?
        defer { if let mime { api.mime_free(mime) } }
        // libcurl keeps the pointers it is given until the request ends: every string lives
        // in `strings` until then.
        var strings = CStrings()
        defer { strings.free() }

        setPointer(&api, handle, CURLOPT_URL, strings.keep(request.url))
        setLong(&api, handle, CURLOPT_NOSIGNAL, 1)
        // At least a millisecond: curl reads 0 as no limit at all.
        setLong(&api, handle, CURLOPT_CONNECTTIMEOUT_MS, max(1, Int(connectTimeout * 1000)))
        setLong(&api, handle, CURLOPT_TIMEOUT_MS, max(1, Int(timeout * 1000)))
        setLong(&api, handle, CURLOPT_FOLLOWLOCATION, 0)
        setPointer(&api, handle, CURLOPT_USERAGENT, strings.keep("IntervalPro/0.1 (libcurl)"))
        setPointer(&api, handle, CURLOPT_ACCEPT_ENCODING, strings.keep(""))
        headerList = api.slist_append(headerList, "Accept: application/json")
        switch request.credential {
        case .basic(let user, let password):
            setLong(&api, handle, CURLOPT_HTTPAUTH, 1)  // CURLAUTH_BASIC, a macro Swift cannot import
            setPointer(&api, handle, CURLOPT_USERNAME, strings.keep(user))
            setPointer(&api, handle, CURLOPT_PASSWORD, strings.keep(password))
        case .bearer(let token):
            headerList = api.slist_append(headerList, "Authorization: Bearer \(token)")
        case nil:
            break
        }
        switch request.body {
        case .none:
            if request.method == .post { setPointer(&api, handle, CURLOPT_POSTFIELDS, strings.keep("")) }
        case .form(let items):
            let encoded = QueryItem.encode(items)
            setLong(&api, handle, CURLOPT_POSTFIELDSIZE, encoded.utf8.count)
            setPointer(&api, handle, CURLOPT_COPYPOSTFIELDS, strings.keep(encoded))
        case .json(let document):
            headerList = api.slist_append(headerList, "Content-Type: application/json")
            setLong(&api, handle, CURLOPT_POSTFIELDSIZE, document.utf8.count)
            setPointer(&api, handle, CURLOPT_COPYPOSTFIELDS, strings.keep(document))
        case .multipart(let parts):
            mime = api.mime_init(handle)
            for part in parts {
                let piece = api.mime_addpart(mime)
                _ = api.mime_name(piece, part.name)
                _ = part.data.withUnsafeBufferPointer { bytes in
                    bytes.withMemoryRebound(to: CChar.self) { api.mime_data(piece, $0.baseAddress, $0.count) }
                }
                if let filename = part.filename { _ = api.mime_filename(piece, filename) }
                if let type = part.contentType { _ = api.mime_type(piece, type) }
            }
            setPointer(&api, handle, CURLOPT_MIMEPOST, UnsafeRawPointer(mime))
        }
        // A body makes libcurl POST; another method with one is named outright.
        if request.method == .put { setPointer(&api, handle, CURLOPT_CUSTOMREQUEST, strings.keep("PUT")) }
        setPointer(&api, handle, CURLOPT_HTTPHEADER, UnsafeRawPointer(headerList))
        _ = intervalpro_curl_set_callback(&api, handle, CURLOPT_WRITEFUNCTION, { data, size, count, context in
            let collected = Unmanaged<Collected>.fromOpaque(context!).takeUnretainedValue()
            let length = size * count
            // A short count makes libcurl stop with CURLE_WRITE_ERROR.
            guard collected.body.count + length <= Collected.largestBody else {
                collected.overflowed = true
                return 0
            }
            if let data { collected.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: length)) }
            return length
        })
        setPointer(&api, handle, CURLOPT_WRITEDATA, context.toOpaque())
        _ = intervalpro_curl_set_callback(&api, handle, CURLOPT_HEADERFUNCTION, { data, size, count, context in
            let collected = Unmanaged<Collected>.fromOpaque(context!).takeUnretainedValue()
            let length = size * count
            if let data { collected.header(UnsafeRawBufferPointer(start: data, count: length)) }
            return length
        })
        setPointer(&api, handle, CURLOPT_HEADERDATA, context.toOpaque())
        setLong(&api, handle, CURLOPT_NOPROGRESS, 0)
        // Non-zero aborts the transfer (CURLE_ABORTED_BY_CALLBACK).
        _ = intervalpro_curl_set_progress(&api, handle, { context, _, _, _, _ in
            Unmanaged<Collected>.fromOpaque(context!).takeUnretainedValue().stop.isRequested ? 1 : 0
        })
        setPointer(&api, handle, CURLOPT_XFERINFODATA, context.toOpaque())

        let code = api.easy_perform(handle)
        if collected.overflowed {
            return .failure(
                TransportError(
                    message: "the answer is larger than \(Collected.largestBody >> 20) MB, which no answer of the service is (a proxy in the way?)",
                    isTimeout: false, isPermanent: true))
        }
        if code == CURLE_ABORTED_BY_CALLBACK { return .failure(.cancelled) }
        guard code == CURLE_OK else {
            let reason = api.easy_strerror(code).map { String(cString: $0) } ?? "libcurl error \(code.rawValue)"
            return .failure(TransportError(message: reason, isTimeout: code == CURLE_OPERATION_TIMEDOUT))
        }
        var status = 0
        _ = intervalpro_curl_get_long(&api, handle, CURLINFO_RESPONSE_CODE, &status)
        return .success(HTTPResponse(status: status, headers: collected.headers, body: collected.body))
    }

    private func setLong(_ api: inout intervalpro_curl, _ handle: UnsafeMutableRawPointer, _ option: CURLoption, _ value: Int) {
        _ = intervalpro_curl_set_long(&api, handle, option, value)
    }

    private func setPointer(
        _ api: inout intervalpro_curl, _ handle: UnsafeMutableRawPointer, _ option: CURLoption, _ value: UnsafeRawPointer?
    ) {
        _ = intervalpro_curl_set_pointer(&api, handle, option, value)
    }
}

/// Set by the cancelled task, read by the request's thread.
private final class StopRequest: Sendable {
    private let requested = Atomic(false)

    func request() { requested.store(true, ordering: .relaxed) }
    var isRequested: Bool { requested.load(ordering: .relaxed) }
}

/// What the callbacks collect while a request runs (one thread: the request's).
private final class Collected {
    let stop: StopRequest
    /// Far more than a calendar or an upload's answer: a broken proxy's endless body would
    /// otherwise fill a small Pi's memory.
    static let largestBody = 16 << 20
    var body: [UInt8] = []
    var overflowed = false
    var headers: [String: String] = [:]

    init(stop: StopRequest) { self.stop = stop }

    /// One header line; a new status line (after a redirect or 100 Continue) starts over.
    func header(_ line: UnsafeRawBufferPointer) {
        let text = String(decoding: line, as: UTF8.self)
        if text.hasPrefix("HTTP/") {
            headers = [:]
            return
        }
        guard let colon = text.firstIndex(of: ":") else { return }
        let name = text[..<colon].lowercased()
        let value = text[text.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
        headers[name] = value
    }
}

/// C strings that must outlive a request.
private struct CStrings {
    private var pointers: [UnsafeMutablePointer<CChar>] = []

    mutating func keep(_ text: String) -> UnsafeRawPointer {
        let pointer = strdup(text)!
        pointers.append(pointer)
        return UnsafeRawPointer(pointer)
    }

    func free() { pointers.forEach { Foundation.free($0) } }
}
