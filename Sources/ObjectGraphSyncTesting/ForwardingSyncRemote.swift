public import Foundation
public import ObjectGraphSync
public import ObjectGraphSyncProtocol

/// A remote that passes every call to another, for a test double that intercepts a few of them
/// (counts pushes, fails at one call, dies after an answer): it implements those, and the rest are
/// forwarded.
///
/// ```swift
/// final class CountingRemote: ForwardingSyncRemote {
///     let base: any SyncRemote
///     let pushes = Mutex(0)
///     func push(_ request: PushRequest, zone: ZoneID) async throws -> PushOutcome {
///         pushes.withLock { $0 += 1 }
///         return try await base.push(request, zone: zone)
///     }
/// }
/// ```
public protocol ForwardingSyncRemote: SyncRemote {
    /// The remote the calls go to.
    var base: any SyncRemote { get }
}

extension ForwardingSyncRemote {
    public func push(_ request: PushRequest, zone: ZoneID) async throws -> PushOutcome {
        try await base.push(request, zone: zone)
    }

    public func changes(zone: ZoneID, since cursor: FeedCursor, limit: Int) async throws -> ChangesPage {
        try await base.changes(zone: zone, since: cursor, limit: limit)
    }

    public func live(zone: ZoneID, since cursor: FeedCursor) -> AsyncThrowingStream<Data, any Error> {
        base.live(zone: zone, since: cursor)
    }

    public func zones() async throws -> ZoneList { try await base.zones() }

    public func members(of zone: ZoneID) async throws -> ZoneMembers { try await base.members(of: zone) }

    public func invite(_ invitation: InvitationRequest, to zone: ZoneID) async throws -> Invitation {
        try await base.invite(invitation, to: zone)
    }

    public func invitations() async throws -> Invitations { try await base.invitations() }

    public func accept(_ acceptance: InvitationAcceptance) async throws -> Invitation { try await base.accept(acceptance) }

    public func withdrawInvitation(_ id: Int64, of zone: ZoneID) async throws { try await base.withdrawInvitation(id, of: zone) }

    public func setRole(_ role: ZoneRole, of member: String, in zone: ZoneID) async throws {
        try await base.setRole(role, of: member, in: zone)
    }

    public func removeMember(_ member: String, from zone: ZoneID) async throws { try await base.removeMember(member, from: zone) }

    public func deleteZone(_ zone: ZoneID) async throws { try await base.deleteZone(zone) }
}
