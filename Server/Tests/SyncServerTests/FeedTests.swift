import Foundation
import MoodyModel
import NIOCore
import ObjectGraph
import ObjectGraphSyncProtocol
import SyncServer
import Testing

@Suite("Feed: horizon, concurrent writers, live notifications", .timeLimit(.minutes(5)))
struct FeedTests {
    let device = UUID()

    @Test(
        "Past the tombstone horizon a stale cursor gets 410, and reading again from the start gives the current state",
        arguments: Backend.available)
    func tombstoneHorizon(_ backend: Backend) async throws {
        let server = try await SyncTestServer(backend)
        let token = try await server.addUser("alice")
        let kept = UUID(), gone = UUID()
        try await server.run { client in
            try await client.pushApplied(
                "moods",
                PushRequest(
                    device,
                    .upsert(1, entity: "Mood", id: kept, fields: ["text": .string("Kept")]),
                    .upsert(2, entity: "Mood", id: gone, fields: ["text": .string("Gone")])), token: token)
            let early = try await client.allChanges("moods", token: token).cursor
            try await client.pushApplied(
                "moods",
                PushRequest(
                    device, .upsert(3, entity: "Mood", id: kept, baseVersion: 1, fields: ["text": .string("Still kept")])),
                token: token)
            try await client.pushApplied(
                "moods",
                PushRequest(
                    device, .delete(4, entity: "Mood", id: gone, baseVersion: 1)), token: token)
            let head = try await client.allChanges("moods", token: token).cursor

            // Within the horizon nothing goes.
            #expect(try await client.server.purgeExpiredTombstones() == 0)
            #expect(try await client.changes("moods", since: early, token: token).status == .ok)

            // Past it, the tombstone and the superseded version go.
            let later = Date().addingTimeInterval(server.configuration.tombstoneHorizon.inSeconds + 60)
            #expect(try await client.server.purgeExpiredTombstones(now: later) == 3)

            let stale = try await client.changes("moods", since: early, token: token)
            #expect(stale.status == .gone)
            #expect(stale.error?.error == .mustRefetch)
            #expect(stale.error?.message.contains("from the start") == true)
            // The live route refuses the same cursor the same way, before its stream starts.
            let staleLive = try await client.request(.get, "/v1/zones/moods/live?since=\(early)", token: token)
            #expect(staleLive.status == .gone)
            #expect(staleLive.error?.error == .mustRefetch)

            let fresh = try await client.allChanges("moods", token: token)
            #expect(fresh.changes.map(\.record.id) == [kept])
            #expect(fresh.changes.map(\.record.fields) == [["text": .string("Still kept")]])
            #expect(fresh.cursor == head)
            // A cursor after the purged tombstone lost nothing: it still reads.
            #expect(try await client.allChanges("moods", since: head, token: token).changes.isEmpty)
        }
    }

    @Test(
        "Many concurrent pushers and a reader: the reader's feed skips and repeats nothing, and keeps each client's order",
        arguments: Backend.available)
    func concurrentPushersAndReader(_ backend: Backend) async throws {
        let pushers = 12, batches = 15, batchSize = 4
        var server = try await SyncTestServer(backend)
        server.configuration.rates.concurrentPushesPerUser = pushers  // one user's twelve devices at once
        let token = try await server.addUser("alice")
        // Alone it passes in seconds; a feed that skips or repeats still fails it.
        try await withKnownIssue("a connection lost under the whole suite's load", isIntermittent: true) {
            try await concurrentPushes(server: server, token: token, pushers: pushers, batches: batches, batchSize: batchSize)
        } matching: {
            isConnectionLostUnderLoad($0)
        }
    }

    private func concurrentPushes(server: SyncTestServer, token: String, pushers: Int, batches: Int, batchSize: Int) async throws {
        try await server.run { client in
            // Over connections of their own, so that the pushes really overlap.
            let http = HTTPSyncClient(port: client.port)
            let seen = try await withThrowingTaskGroup(of: [FeedChange].self) { group in
                for _ in 0..<pushers {
                    group.addTask {
                        try await Self.pushBatches(count: batches, size: batchSize) {
                            try await http.pushApplied("moods", $0, token: token)
                        }
                        return []
                    }
                }
                // The reader follows the feed while the pushes land.
                group.addTask {
                    try await Self.follow(until: pushers * batches * batchSize) { cursor in
                        try await http.changes("moods", since: cursor, limit: 7, token: token)
                    }
                }
                var seen: [FeedChange] = []
                for try await changes in group { seen += changes }
                return seen
            }
            Self.expectWholeOrderedFeed(seen, clients: pushers, batches: batches, size: batchSize)
            #expect(try await client.allChanges("moods", token: token).changes == seen, "a second reading agrees")
        }
    }

    @Test("A live stream ends after the server's lifetime for streams; a started sync client reconnects with its cursor and misses nothing")
    func liveStreamLifetime() async throws {
        var server = try await SyncTestServer(.sqlite)
        server.configuration.liveStreamLifetime = .milliseconds(300)
        let token = try await server.addUser("alice")
        try await server.run { client in
            let live = try await LiveListener(port: client.port, zone: "moods", token: token)
            #expect(try await live.finishes(within: .seconds(60)), "the stream ended")

            let phone = try SyncDevice(port: client.port, token: token)
            let laptop = try SyncDevice(port: client.port, token: token)
            await laptop.sync.start()
            // Streams of 0.3 s: the laptop's has ended and been opened again by the time the phone
            // pushes, whatever the machine's speed, once a few have come and gone.
            for _ in 0..<3 {
                let stream = try await LiveListener(port: client.port, zone: "moods", token: token)
                #expect(try await stream.finishes(within: .seconds(60)))
            }
            let arrivals = laptop.syncSaves()
            let context = phone.container.newBackgroundContext()
            context.insert(Mood(text: "Heard"))
            try context.save()
            try await phone.sync.syncNow()
            _ = try await firstSave(of: arrivals) { !$0.insertedObjectIDs.isEmpty }
            await laptop.sync.stop()
        }
    }

    @Test("A live client hears of each of its zone's pushes, and not of other zones' pushes", arguments: Backend.available)
    func liveNotifications(_ backend: Backend) async throws {
        let server = try await SyncTestServer(backend)
        let token = try await server.addUser("alice")
        let bob = try await server.addUser("bob")
        try await server.run { client in
            let first = try await client.pushApplied(
                "moods",
                PushRequest(
                    device, .upsert(1, entity: "Mood", id: UUID(), fields: [:])), token: token)

            // Behind the head on connecting: told at once.
            let behind = try await LiveListener(port: client.port, zone: "moods", token: token)
            defer { behind.close() }
            #expect(try await behind.arrival(reaching: 1, within: .seconds(60)) != nil)

            let live = try await LiveListener(port: client.port, zone: "moods", since: first.cursor, token: token)
            defer { live.close() }
            // Each push is heard (how soon is the benchmark's "live delay"; the timeout only
            // catches a hang).
            for number in Int64(2)...21 {
                let result = try await client.pushApplied(
                    "moods",
                    PushRequest(
                        device, .upsert(number, entity: "Mood", id: UUID(), fields: [:])), token: token)
                #expect(try await live.arrival(reaching: result.cursor.position, within: .seconds(60)) != nil)
            }

            // Bob's zone of the same name, and Alice's other zones, do not wake her: the next event
            // she hears is her zone's next push.
            let count = live.received.count
            try await client.pushApplied(
                "moods",
                PushRequest(
                    UUID(), .upsert(1, entity: "Mood", id: UUID(), fields: [:])), token: bob)
            try await client.pushApplied(
                "diary",
                PushRequest(
                    device, .upsert(1, entity: "Entry", id: UUID(), fields: [:])), token: token)
            let next = try await client.pushApplied(
                "moods",
                PushRequest(
                    device, .upsert(22, entity: "Mood", id: UUID(), fields: [:])), token: token)
            #expect(try await live.arrival(reaching: next.cursor.position, within: .seconds(60)) != nil)
            #expect(live.received.dropFirst(count).map(\.cursor) == [next.cursor])
        }
    }

    // MARK: Helpers

    /// Pushes `count` batches of `size` new records from one new client, through `push`; each
    /// record's fields carry its client and mutation number, so a reader can check their order.
    static func pushBatches(count: Int, size: Int, push: (PushRequest) async throws -> Void) async throws {
        let device = UUID()
        var number: Int64 = 0
        for _ in 0..<count {
            let mutations = (0..<size).map { _ -> Mutation in
                number += 1
                return .upsert(
                    number, entity: "Mood", id: UUID(),
                    fields: [
                        "client": .string(device.uuidString), "number": .integer(number)
                    ])
            }
            try await push(PushRequest(clientID: device, mutations: mutations))
        }
    }

    /// Follows a feed while pushes land, a small page at a time (`read` reads the page after a
    /// cursor), until it holds `total` changes; fails after two minutes.
    static func follow(until total: Int, read: (FeedCursor) async throws -> ChangesPage) async throws -> [FeedChange] {
        var changes: [FeedChange] = []
        var cursor = FeedCursor.start
        // Only a feed that stops moving fails: on a busy machine the whole read takes minutes.
        var stalledSince = ContinuousClock.now
        while changes.count < total {
            guard ContinuousClock.now - stalledSince < .seconds(120) else {
                throw TestFailure("the feed stopped at \(changes.count) of \(total) changes")
            }
            let page = try await read(cursor)
            changes += page.changes
            cursor = page.cursor
            if page.changes.isEmpty {
                try await Task.sleep(for: .milliseconds(2))
            } else {
                stalledSince = ContinuousClock.now
            }
        }
        return changes
    }

    /// A feed read by a client that pushed batches holds positions 1…n once each, every push as
    /// one transaction of `size`, and each client's mutations in the order it numbered them.
    static func expectWholeOrderedFeed(_ changes: [FeedChange], clients: Int, batches: Int, size: Int) {
        let total = clients * batches * size
        #expect(changes.map(\.position) == Array(1...Int64(total)), "no change skipped, repeated or out of order")
        #expect(Set(changes.map(\.record.id)).count == total)
        let transactions = Dictionary(grouping: changes, by: \.transaction)
        #expect(transactions.count == clients * batches)
        #expect(transactions.values.allSatisfy { $0.count == size }, "every push whole")
        var numbers: [String: [Int64]] = [:]
        for change in changes {
            guard case .string(let client) = change.record.fields["client"],
                case .integer(let number) = change.record.fields["number"]
            else { continue }
            numbers[client, default: []].append(number)
        }
        #expect(numbers.count == clients)
        #expect(numbers.values.allSatisfy { $0 == Array(1...Int64(batches * size)) }, "each client's order kept")
    }
}

extension Duration {
    var inSeconds: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
