import ObjectGraphSyncProtocol

/// The rules both storages apply to a feed read, from the zone's head and horizon.
struct FeedPolicy {
    var zoneID: Int64
    var lastPosition: Int64
    var purgedThrough: Int64

    /// A zone the user never pushed to reads as empty, from its start; any other cursor was
    /// never given out for it (a server restored from an older backup).
    static func unknownZone(since: FeedCursor) -> FeedRead {
        if let refused = refusalInUnknownZone(of: since) { return .refused(refused) }
        return .page(FeedPage(changes: [], cursor: .start, hasMore: false))
    }

    static func refusalInUnknownZone(of since: FeedCursor) -> FeedRefusal? {
        since == .start ? nil : .mustRefetch(purgedThrough: 0)
    }

    /// Refuses a cursor that may have missed a purged tombstone, or one the zone never gave out
    /// (a server restored from an older backup): the client must read the zone again.
    ///
    /// The start is never refused: the feed keeps the latest entry of every live record, so
    /// reading from the start rebuilds the zone even after a purge.
    func refusal(of since: FeedCursor) -> FeedRefusal? {
        if since == .start { return nil }
        if since.zoneTag != ZoneTag.of(zoneID: zoneID) { return .otherZone }
        if since.position < purgedThrough || since.position > lastPosition {
            return .mustRefetch(purgedThrough: purgedThrough)
        }
        return nil
    }

    /// The page to answer. With no further entries the cursor moves to the zone's head: the
    /// entries between were superseded and purged, and nothing is skipped by stepping over them.
    func read(_ entries: [StoredChange], hasMore: Bool, since: FeedCursor) -> FeedRead {
        let last = entries.last?.position ?? since.position
        let end = hasMore ? last : max(lastPosition, since.position, last)
        return .page(FeedPage(changes: entries, cursor: FeedCursor(position: end, zoneID: zoneID), hasMore: hasMore))
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
