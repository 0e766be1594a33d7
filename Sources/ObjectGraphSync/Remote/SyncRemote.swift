public import Foundation
public import ObjectGraphSyncProtocol

/// What the sync client needs of a sync server: the routes of its HTTP API (`Server/openapi.yaml`).
///
/// ``HTTPSyncRemote`` is the implementation that talks to a server; the protocol is the seam for
/// another transport. Every method throws ``SyncError``: ``SyncError/unreachable(_:)`` when the
/// server cannot be reached (the client retries later), ``SyncError/unauthorized(_:)`` for a
/// refused token, ``SyncError/server(_:_:)`` for any other refusal.
public protocol SyncRemote: Sendable {
    /// Sends a batch of mutations; the server applies all of them or none. A reader of a shared
    /// zone is refused with `SyncErrorBody.Code.forbidden`.
    func push(_ request: PushRequest, zone: ZoneID) async throws -> PushOutcome

    /// The changes of a zone after `cursor`, at most `limit`, whole transactions only. A cursor
    /// older than the server keeps deletions for throws ``SyncError/server(_:_:)`` with
    /// `SyncErrorBody.Code.mustRefetch`.
    func changes(zone: ZoneID, since cursor: FeedCursor, limit: Int) async throws -> ChangesPage

    /// The bytes of the zone's live route, as they arrive (the client reads them as
    /// `LiveMessages`): server-sent events announcing each move of the
    /// feed. The sequence ends, or throws, when the connection does. Read them as the consumer
    /// asks (``HTTPSyncRemote`` does): buffered ahead, a consumer that falls behind would hold
    /// them all in memory.
    func live(zone: ZoneID, since cursor: FeedCursor) -> AsyncThrowingStream<Data, any Error>

    // MARK: Sharing

    /// The zones the caller owns or belongs to, with the caller's role in each, and the caller's
    /// user name.
    func zones() async throws -> ZoneList

    /// A zone's owner and members, with their roles; any member may ask.
    func members(of zone: ZoneID) async throws -> ZoneMembers

    /// Invites a user, or whoever holds the code the answer carries, into a zone; the owner only.
    func invite(_ invitation: InvitationRequest, to zone: ZoneID) async throws -> Invitation

    /// The invitations waiting for the caller.
    func invitations() async throws -> Invitations

    /// Accepts an invitation, by its number or its code; answers the zone joined. One used,
    /// expired or withdrawn is refused with `SyncErrorBody.Code.invitationNotValid`.
    func accept(_ acceptance: InvitationAcceptance) async throws -> Invitation

    /// Withdraws an invitation not yet accepted; the owner only.
    func withdrawInvitation(_ id: Int64, of zone: ZoneID) async throws

    /// Changes a member's role; the owner only. It holds from the member's next request.
    func setRole(_ role: ZoneRole, of member: String, in zone: ZoneID) async throws

    /// Takes a member out of a zone: the owner removing them, or the member leaving.
    func removeMember(_ member: String, from zone: ZoneID) async throws

    /// Deletes a zone with its feed, members and invitations; the owner only.
    func deleteZone(_ zone: ZoneID) async throws
}

/// What the server did with a push.
public enum PushOutcome: Sendable, Equatable {
    /// Applied: each record's new version.
    case applied(PushResult)
    /// Refused, nothing applied: mutations made from versions the server has since changed, each
    /// with the server's record as it is now.
    case conflicts([SyncErrorBody.Conflict])
}
