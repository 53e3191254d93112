import Hummingbird

/// A path and method no route serves answers in JSON, as every other error does: the router's
/// own 404 has no body.
struct NotFoundMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            return WebServer.error(.notFound, "nothing answers \(request.method.rawValue) \(request.uri.path)")
        }
    }
}

/// Applies `WebAccess` to every request before any route sees it.
struct AccessMiddleware<Context: RequestContext>: RouterMiddleware {
    let access: WebAccess

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let isUpgrade = request.headers[.upgrade]?.lowercased() == "websocket"
        let facts = WebAccess.Request(
            method: request.method.rawValue, path: request.uri.path,
            queryToken: request.uri.queryParameters.get("token"), authorization: request.headers[.authorization],
            cookieToken: request.cookies[WebAccess.cookieName]?.value, host: request.head.authority,
            origin: request.headers[.origin], changesState: request.method != .get || isUpgrade)
        switch access.decide(facts) {
        case .allow:
            return try await next(request, context)
        case .setCookieAndRedirect(let location):
            var response = Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
            response.setCookie(
                Cookie(name: WebAccess.cookieName, value: access.token ?? "", path: "/", httpOnly: true, sameSite: .strict))
            return response
        case .deny(let status, let message):
            return WebServer.error(HTTPResponse.Status(code: status), message)
        }
    }
}
