import Foundation
import ObjectGraph
import ObjectGraphSyncProtocol

/// The sync client's own state for one zone: who it is to the server, how far it read the local
/// history and the server's feed, and the next number for a mutation. One row, changed only in the
/// transactions whose effects it records.
@Entity("ObjectGraphSyncClientState") final class ClientState {
    /// The zone, as its ``ZoneID`` text.
    @Attribute(.unique) var zone: String
    /// This store's identifier on the server, made once.
    var clientID: UUID
    /// The number the next mutation gets: numbers increase and are never reused.
    var nextMutationNumber: Int64 = 1
    /// The last local transaction whose changes were recorded in the records' states.
    var historySequence: Int64 = 0
    /// The server's feed, read up to here: the cursor's text, as the server gave it.
    var feedCursor = FeedCursor.start.description
    /// Whether the zone is being read again from its start, after the server said the cursor was
    /// older than the deletions it keeps.
    var isRefetching = false
    /// When a sync last read the feed to its end with nothing left to push.
    var lastSuccessfulSync: Date?
    /// The user's role in the zone (a `ZoneRole`), as the server last said: `owner` for the
    /// coordinator's own zone and those it shared.
    var role = "owner"

    init(zone: String, clientID: UUID) {
        self.zone = zone
        self.clientID = clientID
    }
}

extension ClientState {
    /// The stored cursor; nil when the text is not one (a cursor of an older server's form), which
    /// the zone is read again from its start for.
    var cursor: FeedCursor? { FeedCursor(feedCursor) }
}
