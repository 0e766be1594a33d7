import Foundation
import NIOCore
import ObjectGraphSyncProtocol
import SyncServer
import Synchronization

/// The `sync` workload group, for one database.
enum SyncWorkloads {
    static let batchSize = 100

    static func make(_ target: BenchTarget, mutations: Int) -> [SyncWorkload] {
        [
            pushNewRecords(target, count: mutations),
            pushFieldUpdates(target, count: mutations),
            readFeed(target, count: mutations),
            pushNewRecordsAsMember(target, count: mutations),
            readFeedAsMember(target, count: mutations)
        ] + pushLoad(target, clients: 16, pushes: 50, batchSize: 10)
            + pushLoad(target, clients: 64, pushes: 20, batchSize: 10)
            + [liveDelay(target, pushes: 100), readLargeRecords(target, records: 400, readers: 8)]
            + [victimLatency(target, heavyClients: 8, heavyBatch: 1_000, pushes: 500)]
            // The client does not depend on the server's database: measured once, on SQLite.
            + (target.label == "SQLite" ? ClientWorkloads.make(target, moods: mutations * 10) : [])
    }

    // MARK: Push

    /// Creates `count` records in batches of 100, each run in a zone of its own.
    static func pushNewRecords(_ target: BenchTarget, count: Int) -> SyncWorkload {
        let zones = ZoneNames(prefix: "create")
        return SyncWorkload(
            name: "sync: push \(count) new records, batches of \(batchSize) (\(target.label))",
            items: count,
            server: SyncContender(run: {
                let zone = zones.next()
                for batch in Batches.creating(count: count, size: batchSize) {
                    _ = try await target.server.push(batch, zone: zone, user: target.user)
                }
                return nil
            }),
            plain: plainCreating(target, count: count, zones: zones),
            http: SyncContender(run: {
                let zone = zones.next()
                for batch in Batches.creating(count: count, size: batchSize) {
                    try await target.pushOverHTTP(batch, zone: zone)
                }
                return nil
            }))
    }

    /// The plain SQL side of a push of `count` new records: the same rows upserted, batch by batch,
    /// each run in a zone of its own.
    private static func plainCreating(_ target: BenchTarget, count: Int, zones: ZoneNames) -> SyncContender {
        SyncContender(run: {
            let zone = zones.next()
            for batch in Batches.creating(count: count, size: batchSize) {
                try await target.plain.upsert(zone: zone, batch.mutations)
            }
            return nil
        })
    }

    /// Changes one field of each of `count` records, in batches of 100, from their first version.
    static func pushFieldUpdates(_ target: BenchTarget, count: Int) -> SyncWorkload {
        let zones = ZoneNames(prefix: "update")
        // Each run updates records created (untimed) in a zone of its own.
        let prepared = Mutex<(zone: String, batches: [PushRequest])?>(nil)
        func side(
            create: @escaping @Sendable (String, PushRequest) async throws -> Void,
            update: @escaping @Sendable (String, PushRequest) async throws -> Void
        ) -> SyncContender {
            SyncContender(
                prepare: {
                    let zone = zones.next()
                    let creates = Batches.creating(count: count, size: batchSize)
                    for batch in creates { try await create(zone, batch) }
                    prepared.withLock { $0 = (zone, Batches.updating(creates)) }
                },
                run: {
                    guard let (zone, updates) = prepared.withLock({ $0 }) else { throw BenchmarkError("not prepared") }
                    for batch in updates { try await update(zone, batch) }
                    return nil
                })
        }
        let serverPush: @Sendable (String, PushRequest) async throws -> Void = { zone, batch in
            _ = try await target.server.push(batch, zone: zone, user: target.user)
        }
        let plainUpsert: @Sendable (String, PushRequest) async throws -> Void = { zone, batch in
            try await target.plain.upsert(zone: zone, batch.mutations)
        }
        return SyncWorkload(
            name: "sync: push \(count) field updates, batches of \(batchSize) (\(target.label))",
            items: count,
            server: side(create: serverPush, update: serverPush),
            plain: side(create: plainUpsert, update: plainUpsert),
            http: side(create: serverPush, update: { zone, batch in try await target.pushOverHTTP(batch, zone: zone) }))
    }

    // MARK: Feed

    /// Reads a zone of `count` changes from the start, 1000 at a time.
    static func readFeed(_ target: BenchTarget, count: Int) -> SyncWorkload {
        let zone = "feed"
        let page = 1000
        let filled = Mutex(false)
        let fill: @Sendable () async throws -> Void = {
            guard !filled.withLock({ $0 }) else { return }
            for batch in Batches.creating(count: count, size: batchSize) {
                _ = try await target.server.push(batch, zone: zone, user: target.user)
                try await target.plain.upsert(zone: zone, batch.mutations)
            }
            filled.withLock { $0 = true }
        }
        return SyncWorkload(
            name: "sync: feed read \(count) changes, pages of \(page) (\(target.label))",
            items: count,
            server: SyncContender(
                prepare: fill,
                run: {
                    try await readWholeFeed(target, zone: zone, user: target.user, page: page, count: count)
                    return nil
                }),
            plain: SyncContender(
                prepare: fill,
                run: {
                    try await readWholePlain(target, zone: zone, page: page, count: count)
                    return nil
                }),
            http: SyncContender(
                prepare: fill,
                run: {
                    var cursor = FeedCursor.start, read = 0, more = true
                    while more {
                        let changes = try await target.changesOverHTTP(zone: zone, since: cursor, limit: page)
                        (cursor, read, more) = (changes.cursor, read + changes.changes.count, changes.hasMore)
                    }
                    guard read == count else { throw BenchmarkError("read \(read) of \(count) changes") }
                    return nil
                }))
    }

    /// `readers` clients read at once, over HTTP, a zone of `records` records of 240 KB each, from
    /// its start to its end: what the server holds for them is bounded by the page's byte budget
    /// (the process's peak resident size is reported; run it alone, with `--only`, to read it).
    static func readLargeRecords(_ target: BenchTarget, records: Int, readers: Int) -> SyncWorkload {
        let zone = "large-records"
        let text = JSONValue.string(String(repeating: "x", count: 240 << 10))
        let filled = Mutex(false)
        let fill: @Sendable () async throws -> Void = {
            guard !filled.withLock({ $0 }) else { return }
            for first in stride(from: 0, to: records, by: 8) {
                let mutations = (first..<min(first + 8, records)).map {
                    Mutation.upsert(Int64($0 + 1), entity: "Note", id: UUID(), fields: ["text": text])
                }
                _ = try await target.server.push(PushRequest(clientID: clientID, mutations: mutations), zone: zone, user: target.user)
            }
            filled.withLock { $0 = true }
        }
        return SyncWorkload(
            name: "sync: \(readers) readers at once of \(records) records of 240 KB, over HTTP (\(target.label))",
            items: records * readers,
            server: SyncContender(
                prepare: fill,
                run: {
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        for _ in 0..<readers {
                            group.addTask {
                                var cursor = FeedCursor.start, read = 0, more = true
                                while more {
                                    let changes = try await target.changesOverHTTP(zone: zone, since: cursor, limit: 1000)
                                    (cursor, read, more) = (changes.cursor, read + changes.changes.count, changes.hasMore)
                                }
                                guard read == records else { throw BenchmarkError("read \(read) of \(records) records") }
                            }
                        }
                        try await group.waitForAll()
                    }
                    return nil
                }))
    }

    /// The one client of `readLargeRecords`'s pushes.
    private static let clientID = UUID()

    // MARK: Load

    /// `clients` clients push at once, each a user of its own to a zone of its own, `pushes`
    /// batches of `batchSize` one after the other: the mutations per second of the whole, and the
    /// p50 and p99 of one push's time.
    static func pushLoad(_ target: BenchTarget, clients: Int, pushes: Int, batchSize: Int) -> [SyncWorkload] {
        let zones = ZoneNames(prefix: "load")
        /// Runs the clients and returns every push's latency in milliseconds.
        @Sendable func latencies(_ push: @escaping @Sendable (Int, String, PushRequest) async throws -> Void) async throws -> [Double] {
            try await withThrowingTaskGroup(of: [Double].self) { group in
                for client in 0..<clients {
                    let zone = zones.next()
                    group.addTask {
                        var times: [Double] = []
                        for batch in Batches.creating(count: pushes * batchSize, size: batchSize) {
                            let start = ContinuousClock.now
                            try await push(client, zone, batch)
                            times.append((ContinuousClock.now - start).milliseconds)
                        }
                        return times
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
        }
        let serverPush: @Sendable (Int, String, PushRequest) async throws -> Void = { client, zone, batch in
            _ = try await target.server.push(batch, zone: zone, user: try await target.clientUser(client))
        }
        let plainUpsert: @Sendable (Int, String, PushRequest) async throws -> Void = { _, zone, batch in
            try await target.plain.upsert(zone: zone, batch.mutations)
        }
        let httpPush: @Sendable (Int, String, PushRequest) async throws -> Void = { client, zone, batch in
            try await target.pushOverHTTP(batch, zone: zone, token: try await target.clientToken(client))
        }
        let prepare: @Sendable () async throws -> Void = { _ = try await target.clientToken(clients - 1) }
        func throughput(_ push: @escaping @Sendable (Int, String, PushRequest) async throws -> Void) -> SyncContender {
            SyncContender(
                prepare: prepare,
                run: {
                    _ = try await latencies(push); return nil
                })
        }
        let load = SyncWorkload(
            name: "sync: load, \(clients) clients pushing batches of \(batchSize) (\(target.label))",
            items: clients * pushes * batchSize,
            server: throughput(serverPush), plain: throughput(plainUpsert), http: throughput(httpPush))
        return [load]
            + [50.0, 99.0].map { rank in
                func side(_ push: @escaping @Sendable (Int, String, PushRequest) async throws -> Void) -> SyncContender {
                    SyncContender(prepare: prepare, run: { SyncWorkload.percentile(rank, of: try await latencies(push)) })
                }
                return SyncWorkload(
                    name: "sync: push p\(Int(rank)) latency, \(clients) clients, batches of \(batchSize) (\(target.label))",
                    server: side(serverPush), plain: side(plainUpsert), http: side(httpPush))
            }
    }

    /// Reads a zone's whole feed through the server's operations, `page` changes at a time, and
    /// checks that it held `count`.
    private static func readWholeFeed(
        _ target: BenchTarget, zone: String, owner: String? = nil, user: SyncUser, page: Int, count: Int
    ) async throws {
        var cursor = FeedCursor.start, read = 0, more = true
        while more {
            let changes = try await target.server.changes(zone: zone, owner: owner, user: user, since: cursor, limit: page)
            (cursor, read, more) = (changes.cursor, read + changes.changes.count, changes.hasMore)
        }
        guard read == count else { throw BenchmarkError("read \(read) of \(count) changes") }
    }

    /// Reads a zone's rows from the plain store, `page` at a time, and checks that it held `count`.
    private static func readWholePlain(_ target: BenchTarget, zone: String, page: Int, count: Int) async throws {
        var after: Int64 = 0, read = 0
        while true {
            let (rows, last) = try await target.plain.read(zone: zone, after: after, limit: page)
            if rows == 0 { break }
            (after, read) = (last, read + rows)
        }
        guard read == count else { throw BenchmarkError("read \(read) of \(count) rows") }
    }

    // MARK: Shared zones

    /// ``pushNewRecords(_:count:)`` by a writer of the bench user's zone: every push checks the
    /// writer's role. Each run's zone is made and shared before it (untimed).
    static func pushNewRecordsAsMember(_ target: BenchTarget, count: Int) -> SyncWorkload {
        let zones = ZoneNames(prefix: "shared-create")
        let shared = Mutex<(zone: String, member: SyncUser)?>(nil)
        return SyncWorkload(
            name: "sync: push \(count) new records to a shared zone as a writer, batches of \(batchSize) (\(target.label))",
            items: count,
            server: SyncContender(
                prepare: {
                    let zone = zones.next()
                    let seed = PushRequest(clientID: UUID(), mutations: [.upsert(1, entity: "Mood", id: UUID(), fields: [:])])
                    _ = try await target.server.push(seed, zone: zone, user: target.user)
                    let member = try await share(target, zone: zone)
                    shared.withLock { $0 = (zone, member) }
                },
                run: {
                    guard let (zone, member) = shared.withLock({ $0 }) else { throw BenchmarkError("no shared zone") }
                    for batch in Batches.creating(count: count, size: batchSize) {
                        _ = try await target.server.push(batch, zone: zone, owner: target.user.name, user: member)
                    }
                    return nil
                }),
            plain: plainCreating(target, count: count, zones: zones))
    }

    /// ``readFeed(_:count:)`` by a reader of the zone: every page checks the reader's role.
    static func readFeedAsMember(_ target: BenchTarget, count: Int) -> SyncWorkload {
        let zone = "shared-feed"
        let page = 1000
        let prepared = Mutex<SyncUser?>(nil)
        let fill: @Sendable () async throws -> Void = {
            guard prepared.withLock({ $0 }) == nil else { return }
            for batch in Batches.creating(count: count, size: batchSize) {
                _ = try await target.server.push(batch, zone: zone, user: target.user)
                try await target.plain.upsert(zone: zone, batch.mutations)
            }
            let member = try await share(target, zone: zone)
            prepared.withLock { $0 = member }
        }
        return SyncWorkload(
            name: "sync: feed read \(count) changes of a shared zone as a member, pages of \(page) (\(target.label))",
            items: count,
            server: SyncContender(
                prepare: fill,
                run: {
                    guard let member = prepared.withLock({ $0 }) else { throw BenchmarkError("no member") }
                    try await readWholeFeed(target, zone: zone, owner: target.user.name, user: member, page: page, count: count)
                    return nil
                }),
            plain: SyncContender(
                prepare: fill,
                run: {
                    try await readWholePlain(target, zone: zone, page: page, count: count)
                    return nil
                }))
    }

    /// Shares the bench user's `zone` with the load's client 0 as a writer (invited, accepted) and
    /// returns that user.
    private static func share(_ target: BenchTarget, zone: String) async throws -> SyncUser {
        let member = try await target.clientUser(0)
        let invitation = try await target.server.invite(
            InvitationRequest(user: member.name, role: .writer), zone: zone, user: target.user)
        _ = try await target.server.acceptInvitation(InvitationAcceptance(id: invitation.id), user: member)
        return member
    }

    // MARK: Fair share

    /// A user pushes one record at a time over HTTP, `pushes` times (100 a second), while another user's
    /// `heavyClients` clients push batches of `heavyBatch` records without pause (waiting only
    /// when the server asks them to): the victim's p99 latency, against the victim alone (the
    /// plain side, so that the ratio is the slowdown one user's load causes another).
    static func victimLatency(_ target: BenchTarget, heavyClients: Int, heavyBatch: Int, pushes: Int) -> SyncWorkload {
        let zones = ZoneNames(prefix: "fair")
        let victimIndex = 0, heavyIndex = 1
        let prepare: @Sendable () async throws -> Void = { _ = try await target.clientToken(heavyIndex) }
        /// The victim's pushes, one after the other: their latencies in milliseconds.
        @Sendable func victim() async throws -> [Double] {
            let token = try await target.clientToken(victimIndex)
            let zone = zones.next()
            var times: [Double] = []
            for batch in Batches.creating(count: pushes, size: 1) {
                let start = ContinuousClock.now
                try await target.pushOverHTTP(batch, zone: zone, token: token, client: target.separateHTTP)
                times.append((ContinuousClock.now - start).milliseconds)
                try await Task.sleep(until: start + .milliseconds(10))  // a user's pace, within the request rate
            }
            return times
        }
        // The heavy user's bodies, encoded before the run: its clients would be other machines,
        // and encoding them here would take this process's cores from the server.
        let bodies = Mutex<[[ByteBuffer]]>([])
        let heavyPushesPerClient = 8
        return SyncWorkload(
            name: "sync: victim push p99 while another user pushes \(heavyClients) × \(heavyBatch) records (\(target.label))",
            server: SyncContender(
                prepare: {
                    try await prepare()
                    let encoded = try (0..<heavyClients).map { _ in
                        try Batches.creating(count: heavyBatch * heavyPushesPerClient, size: heavyBatch).map {
                            ByteBuffer(bytes: try JSONEncoder().encode($0))
                        }
                    }
                    bodies.withLock { $0 = encoded }
                },
                run: {
                    let token = try await target.clientToken(heavyIndex)
                    let stop = StopSignal()
                    let (started, didStart) = AsyncStream.makeStream(of: Void.self)
                    let encoded = bodies.withLock { $0 }
                    return try await withThrowingTaskGroup(of: [Double]?.self) { group in
                        for client in 0..<heavyClients {
                            group.addTask {
                                var first = true
                                while !stop.isSet {
                                    // The same bodies again, to a new zone: new pushes, not replays.
                                    let zone = zones.next()
                                    for body in encoded[client] where !stop.isSet {
                                        try await target.pushOverHTTPWaitingWhenAsked(body, zone: zone, token: token)
                                        if first { didStart.yield() }
                                        first = false
                                    }
                                }
                                return nil
                            }
                        }
                        // The heavy user's clients are all under way before the victim starts.
                        var iterator = started.makeAsyncIterator()
                        for _ in 0..<heavyClients { await iterator.next() }
                        let times = try await victim()
                        stop.set()
                        try await group.waitForAll()
                        return SyncWorkload.percentile(99, of: times)
                    }
                }),
            plain: SyncContender(prepare: prepare, run: { SyncWorkload.percentile(99, of: try await victim()) }))
    }

    // MARK: Live

    /// A client listens on its zone's live route while another pushes over HTTP, one push at a
    /// time: the p99 of the time from sending a push to the event's arrival. The commit is in
    /// between (the event often comes before the push's answer), so this bounds the delay from
    /// above by the push's own round trip.
    static func liveDelay(_ target: BenchTarget, pushes: Int) -> SyncWorkload {
        let zones = ZoneNames(prefix: "live")
        return SyncWorkload(
            name: "sync: live delay p99, \(pushes) pushes (\(target.label))",
            server: SyncContender(run: {
                let zone = zones.next()
                let listener = try await LiveEvents(target, zone: zone)
                defer { listener.close() }
                var delays: [Double] = []
                for batch in Batches.creating(count: pushes, size: 1) {
                    let next = listener.count + 1
                    let sent = ContinuousClock.now
                    try await target.pushOverHTTP(batch, zone: zone)
                    let arrival = try await listener.waitForEvent(number: next, timeout: .seconds(5))
                    delays.append((arrival - sent).milliseconds)
                }
                return SyncWorkload.percentile(99, of: delays)
            }))
    }
}

/// Batches of mutations with fresh record identifiers, numbered from 1 for one new client.
enum Batches {
    static func creating(count: Int, size: Int) -> [PushRequest] {
        let client = UUID()
        return stride(from: 0, to: count, by: size).map { start in
            PushRequest(
                clientID: client,
                mutations: (start..<min(start + size, count)).map { index in
                    .upsert(
                        Int64(index + 1), entity: "Mood", id: UUID(),
                        fields: [
                            "text": .string("Mood \(index)"), "rating": .integer(Int64(index % 5)),
                            "createdAt": .double(Double(index))
                        ])
                })
        }
    }

    /// For the records `creates` made: a change of one field each, from version 1, by another client.
    static func updating(_ creates: [PushRequest]) -> [PushRequest] {
        let client = UUID()
        var number: Int64 = 0
        return creates.map { batch in
            PushRequest(
                clientID: client,
                mutations: batch.mutations.map { created in
                    number += 1
                    return .upsert(number, entity: "Mood", id: created.id, baseVersion: 1, fields: ["rating": .integer(number % 7)])
                })
        }
    }
}

/// Fresh zone names, so that each run starts from an empty zone.
final class ZoneNames: Sendable {
    private let prefix: String
    private let counter = Mutex(0)

    init(prefix: String) { self.prefix = prefix }

    func next() -> String {
        "\(prefix)-\(counter.withLock { $0 += 1; return $0 })"
    }
}

/// Tells tasks running in a loop to end it.
final class StopSignal: Sendable {
    private let state = Mutex(false)

    var isSet: Bool { state.withLock { $0 } }

    func set() { state.withLock { $0 = true } }
}
