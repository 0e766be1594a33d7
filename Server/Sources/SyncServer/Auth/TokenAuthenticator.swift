import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdAuth

/// Finds the user a request's bearer token belongs to.
///
/// The token is looked up first (its digest, one indexed read, the same work for every wrong
/// token), and only a token that lets nobody in counts against its address's failures: behind a
/// proxy every client shares one address, and one client's guesses must never refuse another's
/// valid token.
struct TokenAuthenticator: AuthenticatorMiddleware {
    typealias Context = SyncRequestContext
    let server: SyncServer

    func authenticate(request: Request, context: Context) async throws -> SyncUser? {
        guard let token = Self.bearerToken(request.headers[.authorization]) else { return nil }
        if let user = try await server.user(authenticatedBy: token) { return user }
        let address = server.clientAddress(of: request, context: context)
        try server.guards.admitAuthentication(from: address)
        server.guards.failedAuthentication(from: address)
        return nil
    }

    /// The token of an `Authorization: Bearer TOKEN` header; the scheme's name is matched without
    /// regard to case (RFC 9110), and spaces around the token are not part of it.
    static func bearerToken(_ authorization: String?) -> String? {
        guard let authorization else { return nil }
        let parts = authorization.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }
}

/// Refuses a request no token authenticated: every route under `/v1` needs one.
struct RequireUser: RouterMiddleware {
    typealias Context = SyncRequestContext
    let server: SyncServer

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let user = context.identity else {
            throw SyncRequestError(.unauthorized, .unauthorized, "This request needs a valid bearer token.")
        }
        try server.guards.admitRequest(of: user)
        return try await next(request, context)
    }
}

extension HTTPField.Name {
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
    static let forwarded = HTTPField.Name("Forwarded")!
}

extension SyncServer {
    /// The client a request comes from, as the limits per address count it (see ``ClientAddress``).
    func clientAddress(of request: Request, context: SyncRequestContext) -> String {
        ClientAddress.of(
            peer: context.remoteAddress?.ipAddress, forwardedFor: request.headers[values: .xForwardedFor],
            forwarded: request.headers[values: .forwarded], trusting: configuration.trustedProxies)
    }
}
