public import ObjectGraphSyncProtocol

/// What reading a feed gives.
public enum FeedRead: Sendable, Equatable {
    /// The page to send.
    case page(FeedPage)
    /// The cursor cannot be read from.
    case refused(FeedRefusal)
}

/// Why a cursor cannot be read from.
public enum FeedRefusal: Sendable, Equatable {
    /// The cursor is older than tombstones the zone no longer keeps, or was never given out.
    case mustRefetch(purgedThrough: Int64)
    /// The cursor was given out for another zone.
    case otherZone

    /// The answer (410, `mustRefetch`) to a read of `zone` from `since`.
    public func refusal(since: FeedCursor, zone: String) -> SyncRefusal {
        switch self {
        case .otherZone:
            // Never given out for this zone, as a cursor of an unknown position: read it again.
            .mustRefetch(
                "The cursor \(since) was given out for another zone than \"\(zone)\": drop this zone's synced data "
                    + "and read it again from the start.")
        case .mustRefetch(let purgedThrough):
            .mustRefetch(
                "The cursor \(since) is older than the zone's tombstone horizon (position \(purgedThrough)) "
                    + "or was never given out: drop the zone's synced data and read it again from the start.")
        }
    }
}

/// The rules every storage applies to a feed read, from the zone's head and horizon.
public struct FeedPolicy: Sendable, Equatable {
    /// The zone's key in its storage (the cursors' tag is made from it).
    public var zoneID: Int64
    /// The position of the zone's last entry.
    public var lastPosition: Int64
    /// The last position whose tombstones may have been purged: an older cursor may have missed one.
    public var purgedThrough: Int64

    /// The rules of a zone with this head and horizon.
    public init(zoneID: Int64, lastPosition: Int64, purgedThrough: Int64) {
        self.zoneID = zoneID
        self.lastPosition = lastPosition
        self.purgedThrough = purgedThrough
    }

    /// A zone the user never pushed to reads as empty, from its start; any other cursor was
    /// never given out for it (a server restored from an older backup).
    public static func unknownZone(since: FeedCursor) -> FeedRead {
        if let refused = refusalInUnknownZone(of: since) { return .refused(refused) }
        return .page(FeedPage(changes: [], cursor: .start, hasMore: false))
    }

    /// Why `since` cannot be read from in a zone the user never pushed to, or nil when it can.
    public static func refusalInUnknownZone(of since: FeedCursor) -> FeedRefusal? {
        since == .start ? nil : .mustRefetch(purgedThrough: 0)
    }

    /// Refuses a cursor that may have missed a purged tombstone, or one the zone never gave out
    /// (a server restored from an older backup): the client must read the zone again.
    ///
    /// The start is never refused: the feed keeps the latest entry of every live record, so
    /// reading from the start rebuilds the zone even after a purge.
    public func refusal(of since: FeedCursor) -> FeedRefusal? {
        if since == .start { return nil }
        if since.zoneTag != ZoneTag.of(zoneID: zoneID) { return .otherZone }
        if since.position < purgedThrough || since.position > lastPosition {
            return .mustRefetch(purgedThrough: purgedThrough)
        }
        return nil
    }

    /// The page to answer. With no further entries the cursor moves to the zone's head: the
    /// entries between were superseded and purged, and nothing is skipped by stepping over them.
    /// A zone with nothing in its feed yet (its first push still being written) answers the start:
    /// position 0 is every zone's, and has no tag.
    public func read(_ entries: [StoredChange], hasMore: Bool, since: FeedCursor) -> FeedRead {
        let last = entries.last?.position ?? since.position
        let end = hasMore ? last : max(lastPosition, since.position, last)
        let cursor = end == 0 ? FeedCursor.start : FeedCursor(position: end, zoneID: zoneID)
        return .page(FeedPage(changes: entries, cursor: cursor, hasMore: hasMore))
    }
}
