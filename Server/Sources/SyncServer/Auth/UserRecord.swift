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
    /// How many zones the user has (see ``Quotas/zonesPerUser``).
    public var zones: Int
    /// The bytes the user's zones hold, as ``Quotas/storedBytesPerUser`` counts them.
    public var storedBytes: Int64

    public init(user: SyncUser, created: Date, tokens: [Token], zones: Int = 0, storedBytes: Int64 = 0) {
        self.user = user
        self.created = created
        self.tokens = tokens
        self.zones = zones
        self.storedBytes = storedBytes
    }
}

extension Date {
    /// A date from milliseconds since 1970, the servers' unit of time in the database.
    init(millisecondsSince1970 milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}

extension UserRecord {
    /// A row of a user joined with one of their tokens (none for a user without one).
    struct Row {
        var user: SyncUser
        var created: Int64
        var zones: Int64
        var storedBytes: Int64
        var token: Token?
    }

    /// Users from rows of a user joined with each of their tokens, in the rows' order.
    static func grouped(_ rows: [Row]) -> [UserRecord] {
        var records: [UserRecord] = []
        for row in rows {
            if records.last?.user != row.user {
                records.append(
                    UserRecord(
                        user: row.user, created: Date(millisecondsSince1970: row.created), tokens: [], zones: Int(row.zones),
                        storedBytes: row.storedBytes))
            }
            if let token = row.token { records[records.count - 1].tokens.append(token) }
        }
        return records
    }
}
