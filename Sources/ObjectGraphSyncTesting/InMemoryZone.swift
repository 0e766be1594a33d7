import Algorithms
import Foundation
import ObjectGraphSyncFeed
import ObjectGraphSyncProtocol

/// One zone of the in-memory server: its feed, the latest entry of each record and the clients'
/// ledger, changed only through the feed's decisions (`PushPlanner`, `FeedPaging`, `FeedPolicy`),
/// as the SQLite and PostgreSQL storages of the server change their rows.
struct InMemoryZone {
    let id: Int64
    private(set) var lastPosition: Int64 = 0
    private(set) var purgedThrough: Int64 = 0
    /// The feed, in the order of positions (purges take entries out, never reorder).
    private var entries: [FeedEntry] = []
    /// The latest entry of each record the feed holds.
    private var latest: [UUID: FeedEntry] = [:]
    private var ledger: [UUID: LedgerEntry] = [:]
    /// The user whose push wrote each transaction, by the transaction's first position.
    private var authors: [Int64: String] = [:]

    init(id: Int64) { self.id = id }

    private var policy: FeedPolicy { FeedPolicy(zoneID: id, lastPosition: lastPosition, purgedThrough: purgedThrough) }

    /// The head as a cursor of the zone.
    var head: FeedCursor { FeedCursor(position: lastPosition, zoneID: id) }

    /// Applies a validated push, all or nothing: nothing changes before the plan is made.
    mutating func push(_ planner: PushPlanner, now: Int64, author: String) throws -> PushDecision {
        let clientID = planner.request.clientID
        if let decided = try planner.checkLedger(ledger[clientID]) { return decided }
        var current: [UUID: RecordState] = [:]
        for id in planner.recordIDs { current[id] = latest[id]?.state }
        let decision = try planner.plan(current: current, zoneID: id, lastPosition: lastPosition, now: now)
        guard case .apply(let plan) = decision else { return decision }
        for entry in plan.entries {
            entries.append(entry)
            latest[entry.state.id] = entry
            authors[entry.transaction] = author
        }
        lastPosition = plan.lastPosition
        ledger[clientID] = plan.ledger
        return decision
    }

    /// The changes after `since`, a page at a time.
    func changes(since: FeedCursor, limit: Int, byteBudget: Int) -> FeedRead {
        if let refused = policy.refusal(of: since) { return .refused(refused) }
        let start = entries.partitioningIndex { $0.position > since.position }
        var reader = FeedPaging(limit: limit, byteBudget: byteBudget).reader()
        for entry in entries[start...].prefix(limit + 1) {
            guard reader.add(entry.change) else { break }
        }
        if let rest = reader.restToRead {
            for entry in entries[start...] where entry.transaction == rest.transaction && entry.position > rest.after {
                _ = reader.add(entry.change)
            }
        }
        var page = reader.page
        for index in page.indices { page[index].author = authors[page[index].transaction] }
        return policy.read(page, hasMore: reader.hasMore, since: since)
    }

    /// Whether `since` can be read from (the live route checks its cursor so).
    func refusal(of since: FeedCursor) -> FeedRefusal? { policy.refusal(of: since) }

    /// Drops the tombstones and superseded entries committed before `time` (milliseconds since
    /// 1970); a cursor before the last tombstone dropped must read the zone again.
    mutating func purge(committedBefore time: Int64) -> Int {
        if let last = entries.last(where: { $0.state.deleted && $0.committedAt < time }) {
            purgedThrough = max(purgedThrough, last.position)
        }
        let before = entries.count
        entries.removeAll { entry in
            entry.committedAt < time && (entry.state.deleted || latest[entry.state.id]?.position != entry.position)
        }
        latest = latest.filter { !($0.value.committedAt < time && $0.value.state.deleted) }
        let transactions = Set(entries.map(\.transaction))
        authors = authors.filter { transactions.contains($0.key) }
        return before - entries.count
    }

    /// The latest state of every record the feed holds, tombstones included.
    var records: [SyncedRecord] { latest.values.sorted { $0.position < $1.position }.map(\.state.synced) }
}
