import Hummingbird
import HummingbirdAuth

/// Finds the user a request's bearer token belongs to.
struct TokenAuthenticator: AuthenticatorMiddleware {
    typealias Context = SyncRequestContext
    let server: SyncServer

    func authenticate(request: Request, context: Context) async throws -> SyncUser? {
        guard let bearer = request.headers.bearer else { return nil }
        return try await server.user(authenticatedBy: bearer.token)
    }
}

/// Refuses a request no token authenticated: every route under `/v1` needs one.
struct RequireUser: RouterMiddleware {
    typealias Context = SyncRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard context.identity != nil else {
            throw SyncRequestError(.unauthorized, .unauthorized, "This request needs a valid bearer token.")
        }
        return try await next(request, context)
    }
}
