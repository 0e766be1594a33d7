public import Foundation
public import ObjectGraphSyncProtocol

/// What the sync client needs of a sync server: the routes of its HTTP API (`Server/openapi.yaml`).
///
/// ``HTTPSyncRemote`` is the implementation that talks to a server; the protocol is the seam for
/// another transport. Every method throws ``SyncError``: ``SyncError/unreachable(_:)`` when the
/// server cannot be reached (the client retries later), ``SyncError/unauthorized(_:)`` for a
/// refused token, ``SyncError/server(_:_:)`` for any other refusal.
public protocol SyncRemote: Sendable {
    /// Sends a batch of mutations; the server applies all of them or none.
    func push(_ request: PushRequest, zone: String) async throws -> PushOutcome

    /// The changes of a zone after `cursor`, at most `limit`, whole transactions only. A cursor
    /// older than the server keeps deletions for throws ``SyncError/server(_:_:)`` with
    /// `SyncErrorBody.Code.mustRefetch`.
    func changes(zone: String, since cursor: FeedCursor, limit: Int) async throws -> ChangesPage

    /// The bytes of the zone's live route, as they arrive (the client reads them as
    /// `LiveMessages`): server-sent events announcing each move of the
    /// feed. The sequence ends, or throws, when the connection does. Read them as the consumer
    /// asks (``HTTPSyncRemote`` does): buffered ahead, a consumer that falls behind would hold
    /// them all in memory.
    func live(zone: String, since cursor: FeedCursor) -> AsyncThrowingStream<Data, any Error>
}

/// What the server did with a push.
public enum PushOutcome: Sendable, Equatable {
    /// Applied: each record's new version.
    case applied(PushResult)
    /// Refused, nothing applied: mutations made from versions the server has since changed, each
    /// with the server's record as it is now.
    case conflicts([SyncErrorBody.Conflict])
}
