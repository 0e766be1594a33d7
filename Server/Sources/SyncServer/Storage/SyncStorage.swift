public import Foundation
import ObjectGraphSyncFeed
import ObjectGraphSyncProtocol
import Synchronization

/// A user of the server, as their token identifies them.
public struct SyncUser: Sendable, Hashable {
    /// The user's key in the database.
    public var id: Int64
    /// The name given to `user add`.
    public var name: String
}

/// A zone's place in the database, its feed's head and horizon.
struct ZoneHead: Sendable, Equatable {
    var zoneID: Int64
    var lastPosition: Int64
    var purgedThrough: Int64

    /// The head as a cursor of the zone.
    var cursor: FeedCursor { FeedCursor(position: lastPosition, zoneID: zoneID) }

    /// The rules for reading the zone's feed.
    var policy: FeedPolicy { FeedPolicy(zoneID: zoneID, lastPosition: lastPosition, purgedThrough: purgedThrough) }
}

/// Where the server keeps users, tokens, zones and their feeds: SQLite or PostgreSQL.
///
/// Each operation is one database transaction. A zone's feed positions are given out under a
/// lock on the zone's row, so pushes to one zone commit in the order of their positions and a
/// reader never sees a later change without every earlier one (the gap PostgreSQL sequences leave
/// with several writers cannot happen). Both storages share the decisions of ObjectGraphSyncFeed
/// (`PushPlanner`, `FeedPaging`, `FeedPolicy`), as the in-memory server of ObjectGraphSyncTesting
/// does; what differs is only how they read and write rows.
protocol SyncStorage: Sendable {
    /// Creates the schema or brings it up to date; safe when several servers start together.
    func migrate() async throws
    /// Reaches the database with the least work, for readiness.
    func ping() async throws
    /// How many connections its pool opens at most.
    var maximumConnections: Int { get }
    /// Whether `error` says the database cannot be reached (down, refusing connections, locked by
    /// another process for too long), as opposed to a failure of the operation itself.
    func isUnavailability(_ error: any Error) -> Bool

    /// Adds a user; fails with `SyncAdminError.userExists` when the name is taken.
    func addUser(named name: String, now: Int64) async throws
    /// Stores a token's digest for a user and returns the token's ID; fails with
    /// `SyncAdminError.noSuchUser`. `expiresAt` in milliseconds since 1970, nil for never.
    func addToken(digest: Data, forUser name: String, now: Int64, expiresAt: Int64?) async throws -> Int64
    /// The user a valid token's digest belongs to (not revoked, not expired at `now`).
    func user(tokenDigest: Data, now: Int64) async throws -> SyncUser?
    /// Every user with their tokens, by name.
    func users() async throws -> [UserRecord]
    /// Revokes a token; fails with `SyncAdminError.noSuchToken` when there is no such token and
    /// does nothing to one revoked before.
    func revokeToken(id: Int64, now: Int64) async throws

    /// Applies a validated push by `author` to `owner`'s zone (created on first push by its
    /// owner), all or nothing; a push past the owner's quotas is refused
    /// (``SyncRefusal/quotaExceeded(_:)``) and changes nothing. An author who is not the owner
    /// must be a writer of the zone, checked in the push's transaction (else ``ZoneAccessDenied``).
    func push(
        _ planner: PushPlanner, zone: String, owner: SyncUser, author: SyncUser, quotas: Quotas, now: Int64
    ) async throws -> PushDecision
    /// The changes after a cursor, a page at a time, as `paging` cuts them (read entry by entry,
    /// so that no more than a page's budget is held). A `user` who is not the owner must be a
    /// member of the zone, checked in the read's transaction (else ``ZoneAccessDenied``).
    func changes(zone: String, owner: SyncUser, readBy user: SyncUser, since: FeedCursor, paging: FeedPaging) async throws
        -> FeedRead
    /// A zone's head; nil when the user has never pushed to it.
    func head(zone: String, owner: SyncUser) async throws -> ZoneHead?

    /// Drops tombstones and superseded entries committed before a time (milliseconds since
    /// 1970); returns how many entries went.
    func purge(committedBefore: Int64) async throws -> Int

    // MARK: Members and invitations (the decisions are ``SyncServer``'s, in `SyncServer+Sharing.swift`)

    /// The user named `name`, if any.
    func user(named name: String) async throws -> SyncUser?
    /// The key of `owner`'s zone `zone`; nil when the owner never pushed to it.
    func zoneID(_ zone: String, owner: SyncUser) async throws -> Int64?
    /// `user`'s role in `owner`'s zone `zone` as a member (not its owner); nil when they are none,
    /// or there is no such zone.
    func memberRole(of user: SyncUser, zone: String, owner: SyncUser) async throws -> ZoneRole?
    /// The zones `user` owns and those they are a member of, in no order.
    func zones(of user: SyncUser) async throws -> [ZoneMembership]
    /// A zone's members (its owner not among them), by name.
    func members(zoneID: Int64) async throws -> [ZoneMember]
    /// Gives a member another role; false when `name` is no member of the zone.
    func setMemberRole(_ role: ZoneRole, of name: String, zoneID: Int64) async throws -> Bool
    /// Takes a member out of a zone; false when `name` is no member of it.
    func removeMember(named name: String, zoneID: Int64) async throws -> Bool
    /// Stores an invitation and returns its number; fails with `SyncAdminError.noSuchUser` for an
    /// invitee nobody is called.
    func addInvitation(_ invitation: NewInvitation) async throws -> Int64
    /// The invitations made for `user` by name that can still be accepted at `now`.
    func invitations(for user: SyncUser, now: Int64) async throws -> [Invitation]
    /// Accepts an invitation in one transaction: checks it (``InvitationCheck``), then makes the
    /// user a member with its role and marks it used.
    func acceptInvitation(_ key: InvitationKey, by user: SyncUser, now: Int64) async throws -> InvitationCheck
    /// Deletes `owner`'s zone with its feed, its clients' ledger, members and invitations, and
    /// gives its bytes back to the owner's quota, in one transaction; false when there is no such
    /// zone. A push of the zone in steps is let finish first.
    func deleteZone(_ zone: String, owner: SyncUser) async throws -> Bool
    /// Withdraws an invitation of a zone not yet accepted; false when there is none such.
    func withdrawInvitation(id: Int64, zoneID: Int64, now: Int64) async throws -> Bool
}

/// A storage's refusal of a user who is not the zone's owner: not a member (or no such zone), or
/// a member whose role does not let them push. The server words it (`SyncServer+Sharing.swift`).
enum ZoneAccessDenied: Error, Equatable {
    case notMember
    case role(ZoneRole)
}

/// Users' names by key, each looked up once per process: a user is never renamed nor removed.
/// The authors of a feed's changes are named from it, so a page costs no lookup once its authors
/// are known.
final class UserNames: Sendable {
    private let names = Mutex<[Int64: String]>([:])

    /// The name of the author whose key is `id` when known without a lookup: a change made
    /// before authors were kept (it has none) is its zone's `owner`'s, the only user who could
    /// push then.
    func known(_ id: Int64?, owner: SyncUser) -> String? {
        guard let id, id != owner.id else { return owner.name }
        return names.withLock { $0[id] }
    }

    /// The name of the author whose key is `id`, looked up the first time.
    func author(_ id: Int64, owner: SyncUser, lookUp: (Int64) async throws -> String) async rethrows -> String {
        if let name = known(id, owner: owner) { return name }
        let name = try await lookUp(id)
        names.withLock { $0[id] = name }
        return name
    }

    /// ``author(_:owner:lookUp:)`` for a synchronous lookup (inside a SQLite transaction).
    func author(_ id: Int64?, owner: SyncUser, lookUp: (Int64) throws -> String) rethrows -> String {
        if let name = known(id, owner: owner) { return name }
        guard let id else { return owner.name }
        let name = try lookUp(id)
        names.withLock { $0[id] = name }
        return name
    }
}

/// An invitation to store.
struct NewInvitation: Sendable {
    var zoneID: Int64
    /// The invitee's name, or nil for an invitation by code.
    var invitee: String?
    /// The code's digest, for an invitation by code.
    var codeDigest: Data?
    var role: ZoneRole
    var now: Int64
    var expiresAt: Int64
}

/// How an invitation to accept is named.
enum InvitationKey: Sendable, Equatable {
    /// By its number: one made for the accepting user by name.
    case id(Int64)
    /// By its code's digest.
    case codeDigest(Data)
}

/// What accepting an invitation found.
enum InvitationCheck: Sendable, Equatable {
    /// Accepted: the user is a member of `owner`'s `zone` with `role`.
    case accepted(Invitation)
    /// No such invitation (or one for another user).
    case unknown
    /// Accepted before, by this user or another.
    case used
    /// Past its expiry.
    case expired
    /// Withdrawn by the zone's owner.
    case withdrawn
    /// The accepting user owns the zone.
    case ownZone
}

/// A refusal of the administration commands (`user add`, `token create`, `token revoke`).
public enum SyncAdminError: Error, Sendable, Equatable, CustomStringConvertible {
    case userExists(String)
    case noSuchUser(String)
    case invalidUserName(String)
    case noSuchToken(Int64)
    case invalidExpiry(Date)

    public var description: String {
        switch self {
        case .userExists(let name): "A user named \(name.debugDescription) exists already."
        case .noSuchUser(let name): "There is no user named \(name.debugDescription)."
        case .invalidUserName(let name):
            "\(name.debugDescription) is not a user name: use 1 to 100 printable characters, composed (NFC), no format characters."
        case .noSuchToken(let id): "There is no token \(id) (`user list` lists them)."
        case .invalidExpiry(let date): "A token cannot expire at \(date): that is not in the future."
        }
    }
}

/// The database holds something the server's own writes cannot produce.
enum StorageFailure: Error, CustomStringConvertible {
    case missingZone(String)
    case malformedNotification(String)
    case malformedRow(String)

    var description: String {
        switch self {
        case .malformedRow(let what): "A row of the database is not as the server writes it: \(what)."
        case .missingZone(let zone): "The zone \"\(zone)\" vanished inside its own transaction."
        case .malformedNotification(let payload): "A feed notification was not understood: \(payload)"
        }
    }
}

extension Date {
    /// Milliseconds since 1970, the servers' unit of time in the database.
    var millisecondsSince1970: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }
}
