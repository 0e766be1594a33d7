public import Foundation

/// A user as the administration lists them: their tokens by ID, never a token's secret.
public struct UserRecord: Sendable, Hashable {
    /// A token as the server keeps it: when it was made, when it expires, whether it was revoked.
    public struct Token: Sendable, Hashable {
        /// The token's ID, which `token revoke` takes.
        public var id: Int64
        /// When the token was made.
        public var created: Date
        /// Nil for a token that does not expire.
        public var expires: Date?
        /// Nil for a token not revoked.
        public var revoked: Date?

        public init(id: Int64, created: Date, expires: Date?, revoked: Date?) {
            self.id = id
            self.created = created
            self.expires = expires
            self.revoked = revoked
        }

        /// Whether the token lets its user in at `date`.
        public func isValid(at date: Date = Date()) -> Bool {
            revoked == nil && (expires.map { $0 > date } ?? true)
        }
    }

    /// The user, as a request's token identifies them.
    public var user: SyncUser
    /// When the user was added.
    public var created: Date
    /// The user's tokens, oldest first.
    public var tokens: [Token]

    public init(user: SyncUser, created: Date, tokens: [Token]) {
        self.user = user
        self.created = created
        self.tokens = tokens
    }
}

extension Date {
    /// A date from milliseconds since 1970, the servers' unit of time in the database.
    init(millisecondsSince1970 milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}

extension UserRecord {
    /// Users from rows of a user joined with each of their tokens (none for a user without one),
    /// in the rows' order.
    static func grouped(_ rows: [(user: SyncUser, created: Int64, token: Token?)]) -> [UserRecord] {
        var records: [UserRecord] = []
        for row in rows {
            if records.last?.user != row.user {
                records.append(UserRecord(user: row.user, created: Date(millisecondsSince1970: row.created), tokens: []))
            }
            if let token = row.token { records[records.count - 1].tokens.append(token) }
        }
        return records
    }
}
