public import Foundation
import ObjectGraphSyncFeed

/// What an operator does: users, their tokens and the tokens' life cycle. Each call runs with the
/// database ready (as ``withDatabase(_:)``), from the command line while another process serves,
/// or from a program embedding the server.
///
/// Tokens are looked up in the database at every request, so a revoked or expired token is
/// refused at its next request by every instance sharing the database; a live stream opened with
/// it ends at its next tick.
extension SyncServer {
    /// Adds a user and returns their first token.
    ///
    /// - Parameters:
    ///   - name: The user's name: printable, 1 to 100 characters, unique.
    ///   - expiresAt: When the token stops letting the user in; nil for never.
    public func addUser(named name: String, tokenExpiresAt expiresAt: Date? = nil) async throws -> AccessToken {
        guard Self.isUserName(name) else { throw SyncAdminError.invalidUserName(name) }
        let now = Date()
        try Self.checkExpiry(expiresAt, now: now)
        return try await withDatabase { server in
            try await server.storage.addUser(named: name, now: now.millisecondsSince1970)
            return try await server.issueToken(forUser: name, now: now, expiresAt: expiresAt)
        }
    }

    /// Creates another token for a user.
    ///
    /// - Parameters:
    ///   - name: The user's name.
    ///   - expiresAt: When the token stops letting the user in; nil for never.
    public func createToken(forUser name: String, expiresAt: Date? = nil) async throws -> AccessToken {
        let now = Date()
        try Self.checkExpiry(expiresAt, now: now)
        return try await withDatabase { server in try await server.issueToken(forUser: name, now: now, expiresAt: expiresAt) }
    }

    /// Every user with their tokens (IDs and dates; a token's secret is never kept), by name.
    public func users() async throws -> [UserRecord] {
        try await withDatabase { server in try await server.storage.users() }
    }

    /// Revokes a token: from now on no instance lets it in. Revoking a revoked token changes
    /// nothing; a token that does not exist is ``SyncAdminError/noSuchToken(_:)``.
    public func revokeToken(id: Int64) async throws {
        try await withDatabase { server in try await server.storage.revokeToken(id: id, now: Date().millisecondsSince1970) }
    }

    /// The user named `name`, for acting as a zone's owner from the command line (`zone invite`,
    /// `zone members`, `zone remove`: what the owner's token does over HTTP); nil when nobody is
    /// called so.
    public func user(named name: String) async throws -> SyncUser? {
        guard Self.isUserName(name) else { return nil }
        return try await withDatabase { server in try await server.storage.user(named: name) }
    }

    private func issueToken(forUser name: String, now: Date, expiresAt: Date?) async throws -> AccessToken {
        let secret = AccessToken.newSecret()
        let id = try await storage.addToken(
            digest: AccessToken.digest(of: secret), forUser: name, now: now.millisecondsSince1970,
            expiresAt: expiresAt?.millisecondsSince1970)
        return AccessToken(id: id, text: secret)
    }

    /// Whether `name` can be a user's: 1 to 100 characters, printable (a name reaches log lines
    /// and terminals), composed, no format characters. A name that cannot be a user's is nobody's,
    /// and is answered so without asking the database.
    static func isUserName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 100 && name.allSatisfy({ !$0.isWhitespace || $0 == " " }) && name.nameFault == nil
    }

    private static func checkExpiry(_ expiresAt: Date?, now: Date) throws {
        if let expiresAt, expiresAt <= now { throw SyncAdminError.invalidExpiry(expiresAt) }
    }
}
