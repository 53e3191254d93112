import Hummingbird

/// A path and method no route serves, and a WebSocket asked for without the upgrade, answer in
/// JSON, as every other error does: the router's own 404 has no body.
struct NotFoundMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            return WebServer.error(.notFound, "nothing answers \(request.method.rawValue) \(request.uri.path)")
        } catch let error as HTTPError where error.status == .upgradeRequired {
            return WebServer.error(.upgradeRequired, error.body ?? "a WebSocket")
        }
    }
}

/// Applies `WebAccess` to every request before any route sees it.
struct AccessMiddleware<Context: RequestContext>: RouterMiddleware {
    let access: WebAccess
    static var cookieLifetime: Int { 400 * 86_400 }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let isUpgrade = request.headers[.upgrade]?.lowercased() == "websocket"
        let facts = WebAccess.Request(
            method: request.method.rawValue, path: request.uri.path,
            queryToken: request.uri.queryParameters.get("token"), authorization: request.headers[.authorization],
            cookieToken: request.cookies[WebAccess.cookieName]?.value, host: request.head.authority,
            origin: request.headers[.origin], changesState: ![.get, .head].contains(request.method) || isUpgrade)
        switch access.decide(facts) {
        case .allow:
            var response = try await next(request, context)
            // No page elsewhere may frame this one: on loopback, where no token is asked, a
            // site in the same browser could show it and have its buttons pressed.
            response.headers[.init("X-Frame-Options")!] = "DENY"
            response.headers[.contentSecurityPolicy] = "frame-ancestors 'none'"
            return response
        case .setCookieAndRedirect(let location):
            var response = Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
            // Kept across the browser's restarts (400 days, the longest browsers keep one): a
            // session cookie went with them, and the home-screen icon then opened on a 401.
            response.setCookie(
                Cookie(
                    name: WebAccess.cookieName, value: access.token ?? "", maxAge: Self.cookieLifetime, path: "/", httpOnly: true,
                    sameSite: .strict))
            return response
        case .deny(let status, let message):
            return WebServer.error(HTTPResponse.Status(code: status), message)
        }
    }
}
