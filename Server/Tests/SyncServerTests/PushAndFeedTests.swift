import Foundation
import HTTPTypes
import ObjectGraphSyncProtocol
import SyncServer
import Synchronization
import Testing

@Suite("Push and feed", .timeLimit(.minutes(5)))
struct PushAndFeedTests {
    let device = UUID()
    let otherDevice = UUID()

    @Test(
        "A large push, written in several steps so that other users' pushes go between them, is seen by readers whole or not at all",
        arguments: Backend.available)
    func largePushIsAtomicForReaders(_ backend: Backend) async throws {
        let server = try await SyncTestServer(backend)
        let token = try await server.addUser("alice")
        let batch = 1_000, batches = 8
        try await server.run { client in
            let writerDone = Signal()
            let writer = Task {
                defer { writerDone.set() }
                for _ in 0..<batches {
                    try await client.pushApplied(
                        "moods",
                        PushRequest(
                            clientID: UUID(),
                            mutations: (1...batch).map {
                                .upsert(Int64($0), entity: "Mood", id: UUID(), fields: ["n": .integer(Int64($0))])
                            }),
                        token: token)
                }
            }
            // Read the whole feed again and again while the pushes go on: every read ends at a push's end.
            let reader = HTTPSyncClient(port: client.port)
            var reads = 0
            while true {
                let wasDone = writerDone.isSet
                var cursor = FeedCursor.start, read = 0
                while true {
                    // A connection of its own: the test client's would wait for each push's answer.
                    let page = try await reader.changes("moods", since: cursor, limit: batch, token: token)
                    read += page.changes.count
                    cursor = page.cursor
                    if !page.hasMore { break }
                }
                reads += 1
                try #require(read % batch == 0, "read \(reads) saw \(read) changes: part of a push")
                if wasDone { break }
            }
            try await writer.value
            #expect(try await client.allChanges("moods", token: token).changes.count == batch * batches)
        }
    }

    @Test("Pushed records come back from the feed in commit order, with versions and a cursor", arguments: Backend.available)
    func pushThenRead(_ backend: Backend) async throws {
        let server = try await SyncTestServer(backend)
        let token = try await server.addUser("alice")
        let happy = UUID(), sad = UUID()
        try await server.run { client in
            let first = try await client.pushApplied(
                "moods",
                PushRequest(
                    device,
                    .upsert(1, entity: "Mood", id: happy, fields: ["text": .string("Happy"), "rating": .integer(4)]),
                    .upsert(2, entity: "Mood", id: sad, fields: ["text": .string("Sad"), "rating": .integer(1)])),
                token: token)
            #expect(first.applied.map(\.version) == [1, 1])
            #expect(first.cursor.position == 2)

            let second = try await client.pushApplied(
                "moods",
                PushRequest(
                    device, .upsert(3, entity: "Mood", id: happy, baseVersion: 1, fields: ["rating": .integer(5)])),
                token: token)
            #expect(second.applied.map(\.version) == [2])

            let (changes, cursor) = try await client.allChanges("moods", token: token)
            #expect(changes.map(\.position) == [1, 2, 3])
            #expect(changes.map(\.record.id) == [happy, sad, happy])
            #expect(changes[2].record.fields == ["text": .string("Happy"), "rating": .integer(5)])
            #expect(changes[2].record.version == 2)
            #expect(cursor.position == 3)

            let after = try await client.allChanges("moods", since: first.cursor, token: token)
            #expect(after.changes.map(\.position) == [3])
            let none = try await client.allChanges("moods", since: cursor, token: token)
            #expect(none.changes.isEmpty && none.cursor == cursor)
        }
    }

    @Test("Two devices editing different fields of a record from the same version do not conflict", arguments: Backend.available)
    func fieldWiseUpdates(_ backend: Backend) async throws {
        let server = try await SyncTestServer(backend)
        let token = try await server.addUser("alice")
        let mood = UUID()
        try await server.run { client in
            try await client.pushApplied(
                "moods",
                PushRequest(
                    device, .upsert(1, entity: "Mood", id: mood, fields: ["text": .string("Calm"), "rating": .integer(3)])),
                token: token)
            try await client.pushApplied(
                "moods",
                PushRequest(
                    device, .upsert(2, entity: "Mood", id: mood, baseVersion: 1, fields: ["text": .string("Calmer")])),
                token: token)
            let other = try await client.pushApplied(
                "moods",
                PushRequest(
                    otherDevice, .upsert(1, entity: "Mood", id: mood, baseVersion: 1, fields: ["rating": .integer(4)])),
                token: token)
            #expect(other.applied.map(\.version) == [3])
            let last = try #require(try await client.allChanges("moods", token: token).changes.last)
            #expect(last.record.fields == ["text": .string("Calmer"), "rating": .integer(4)])
        }
    }

    @Test(
        "Field values of every JSON kind come back exactly, after a create and after a merge of another field", arguments: Backend.available
    )
    func fieldValuesRoundTrip(_ backend: Backend) async throws {
        let server = try await SyncTestServer(backend)
        let token = try await server.addUser("alice")
        let record = UUID()
        let fields: [String: JSONValue] = [
            "quotes": .string(#"a "quoted" \ back\slash / slash"#),
            "controls": .string("tab\tnewline\nnul\u{0}bell\u{7}del\u{7F}"),
            "composed": .string("caf\u{E9}"), "decomposed": .string("cafe\u{301}"),
            "astral": .string("🧭 𝄞 \u{FFFF}"), "empty": .string(""),
            "max": .integer(.max), "min": .integer(.min), "zero": .integer(0),
            "tenth": .double(0.1), "tiny": .double(-2.5e-300), "huge": .double(1.7976931348623157e308),
            "null": .null, "yes": .bool(true), "no": .bool(false),
            "nested": .object(["list": .array([.integer(1), .string("two"), .null, .object([:]), .array([])])]),
            "ключ 🔑": .string("a key that is not ASCII")
        ]
        try await server.run { client in
            try await client.pushApplied(
                "kinds", PushRequest(device, .upsert(1, entity: "Kinds", id: record, fields: fields)), token: token)
            try await client.pushApplied(
                "kinds",
                PushRequest(
                    device, .upsert(2, entity: "Kinds", id: record, baseVersion: 1, fields: ["zero": .integer(1)])),
                token: token)
            let changes = try await client.allChanges("kinds", token: token).changes
            var merged = fields
            merged["zero"] = .integer(1)
            for (change, expected) in zip(changes, [fields, merged]) {
                #expect(change.record.fields == expected)
                // String equality is canonical equivalence: the scalars must be the same too.
                for (name, value) in expected {
                    if case .string(let text) = value, case .string(let stored)? = change.record.fields[name] {
                        #expect(Array(stored.unicodeScalars) == Array(text.unicodeScalars), "\(name)")
                    }
                }
            }
            #expect(changes.count == 2)
        }
    }

    @Test(
        "A stale change to a field is refused with the server's record, and nothing of its batch is applied", arguments: Backend.available)
    func conflictRefusesTheBatch(_ backend: Backend) async throws {
        let server = try await SyncTestServer(backend)
        let token = try await server.addUser("alice")
        let mood = UUID(), fresh = UUID()
        try await server.run { client in
            try await client.pushApplied(
                "moods",
                PushRequest(
                    device, .upsert(1, entity: "Mood", id: mood, fields: ["text": .string("Calm")])), token: token)
            try await client.pushApplied(
                "moods",
                PushRequest(
                    device, .upsert(2, entity: "Mood", id: mood, baseVersion: 1, fields: ["text": .string("Calmer")])),
                token: token)
            let response = try await client.push(
                "moods",
                PushRequest(
                    otherDevice,
                    .upsert(1, entity: "Mood", id: fresh, fields: ["text": .string("New")]),
                    .upsert(2, entity: "Mood", id: mood, baseVersion: 1, fields: ["text": .string("Stormy")])),
                token: token)
            #expect(response.status == .conflict)
            let body = try #require(response.error)
            #expect(body.error == .conflict)
            #expect(body.conflicts?.count == 1)
            #expect(body.conflicts?.first?.number == 2)
            #expect(body.conflicts?.first?.server.fields == ["text": .string("Calmer")])
            #expect(body.conflicts?.first?.server.version == 2)
            #expect(body.message.contains(mood.uuidString))

            let changes = try await client.allChanges("moods", token: token).changes
            #expect(changes.count == 2)
            #expect(!changes.contains { $0.record.id == fresh })

            // Creating a record that exists is a conflict too: the client learns of the server's copy.
            let create = try await client.push(
                "moods",
                PushRequest(
                    otherDevice, .upsert(1, entity: "Mood", id: mood, fields: ["text": .string("Duplicate")])), token: token)
            #expect(create.status == .conflict)
            #expect(create.error?.conflicts?.first?.server.version == 2)

            // Merged onto the server's version, the retry goes through.
            let retry = try await client.pushApplied(
                "moods",
                PushRequest(
                    otherDevice, .upsert(1, entity: "Mood", id: mood, baseVersion: 2, fields: ["text": .string("Stormy")])),
                token: token)
            #expect(retry.applied.map(\.version) == [3])
        }
    }

    @Test("A replayed batch answers the same result and changes nothing; reused numbers are refused", arguments: Backend.available)
    func replayIsExactlyOnce(_ backend: Backend) async throws {
        let server = try await SyncTestServer(backend)
        let token = try await server.addUser("alice")
        let mood = UUID()
        try await server.run { client in
            let batch = PushRequest(
                device,
                .upsert(7, entity: "Mood", id: mood, fields: ["text": .string("Happy")]),
                .upsert(8, entity: "Mood", id: mood, fields: ["rating": .integer(5)]))
            let first = try await client.push("moods", batch, token: token)
            #expect(first.status == .ok)
            #expect(first.headers[HTTPField.Name("ObjectGraph-Replayed")!] == nil)
            let replay = try await client.push("moods", batch, token: token)
            #expect(replay.status == .ok)
            #expect(replay.text == first.text)
            #expect(replay.headers[HTTPField.Name("ObjectGraph-Replayed")!] == "true")
            #expect(try await client.allChanges("moods", token: token).changes.count == 2)

            let reuse = try await client.push(
                "moods",
                PushRequest(
                    device, .upsert(8, entity: "Mood", id: mood, baseVersion: 2, fields: ["text": .string("Other")])),
                token: token)
            #expect(reuse.status == .conflict)
            #expect(reuse.error?.error == .mutationNumberUsed)
            #expect(reuse.error?.lastAppliedNumber == 8)
            #expect(try await client.allChanges("moods", token: token).changes.count == 2)
        }
    }

    @Test("A batch sent again while the first send is still being applied is a replay, not a conflict", arguments: Backend.available)
    func concurrentRetriesAreReplays(_ backend: Backend) async throws {
        let server = try await SyncTestServer(backend)
        let token = try await server.addUser("alice")
        // Alone it passes; a conflict or a second application still fails it.
        try await withKnownIssue("a connection lost under the whole suite's load", isIntermittent: true) {
            try await server.run { client in
                for round in 1...5 {
                    // A client that timed out sends its batch again, several times, while the first
                    // send waits for the zone or is being applied.
                    let base = Int64(round * 100)
                    let batch = PushRequest(
                        clientID: device,
                        mutations: (0..<50).map { index in
                            .upsert(base + Int64(index), entity: "Mood", id: UUID(), fields: ["text": .string("Mood \(index)")])
                        })
                    // Over connections of their own, so that the sends really overlap.
                    let http = HTTPSyncClient(port: client.port)
                    let answers = try await withThrowingTaskGroup(of: HTTPSyncClient.Answer.self) { group in
                        for _ in 0..<8 { group.addTask { try await http.push("moods", batch, token: token) } }
                        return try await group.reduce(into: []) { $0.append($1) }
                    }
                    let texts = answers.map { String(decoding: $0.body, as: UTF8.self) }
                    #expect(answers.map(\.status) == Array(repeating: .ok, count: 8), "\(texts)")
                    #expect(Set(texts).count == 1, "every send answers the same result")
                    #expect(answers.filter { !$0.isReplay }.count == 1)
                }
                #expect(try await client.allChanges("moods", token: token).changes.count == 250)
            }
        } matching: {
            isConnectionLostUnderLoad($0)
        }
    }

    @Test("Deletions reach the feed as tombstones, and stale changes to a deleted record are conflicts", arguments: Backend.available)
    func tombstones(_ backend: Backend) async throws {
        let server = try await SyncTestServer(backend)
        let token = try await server.addUser("alice")
        let mood = UUID()
        try await server.run { client in
            try await client.pushApplied(
                "moods",
                PushRequest(
                    device, .upsert(1, entity: "Mood", id: mood, fields: ["text": .string("Happy")])), token: token)
            let stale = try await client.push(
                "moods",
                PushRequest(
                    otherDevice, .upsert(1, entity: "Mood", id: mood, baseVersion: 1, fields: ["text": .string("x")]),
                    .delete(2, entity: "Mood", id: mood, baseVersion: nil)), token: token)
            #expect(stale.status == .conflict, "a delete without a base version is a conflict")

            let deleted = try await client.pushApplied(
                "moods",
                PushRequest(
                    device, .delete(2, entity: "Mood", id: mood, baseVersion: 1)), token: token)
            #expect(deleted.applied.map(\.version) == [2])
            let last = try #require(try await client.allChanges("moods", token: token).changes.last)
            #expect(last.record.deleted)
            #expect(last.record.fields.isEmpty)
            #expect(last.record.entity == "Mood")

            let update = try await client.push(
                "moods",
                PushRequest(
                    otherDevice, .upsert(3, entity: "Mood", id: mood, baseVersion: 1, fields: ["text": .string("Late")])),
                token: token)
            #expect(update.status == .conflict)
            #expect(update.error?.conflicts?.first?.server.deleted == true)

            // Deleting again is not a change: no second tombstone.
            try await client.pushApplied(
                "moods",
                PushRequest(
                    otherDevice, .delete(4, entity: "Mood", id: mood, baseVersion: 1)), token: token)
            #expect(try await client.allChanges("moods", token: token).changes.count == 2)
        }
    }

    @Test("Pages hold whole pushes: a page never ends inside a server transaction", arguments: Backend.available)
    func pagesKeepTransactionsWhole(_ backend: Backend) async throws {
        let server = try await SyncTestServer(backend)
        let token = try await server.addUser("alice")
        try await server.run { client in
            var number: Int64 = 0
            for size in [3, 4, 1, 7, 2] {
                let mutations = (0..<size).map { _ -> Mutation in
                    number += 1
                    return .upsert(number, entity: "Mood", id: UUID(), fields: ["n": .integer(number)])
                }
                try await client.pushApplied("moods", PushRequest(clientID: device, mutations: mutations), token: token)
            }
            var cursor = FeedCursor.start
            var pages: [[FeedChange]] = []
            while true {
                let page = try await client.changes("moods", since: cursor, limit: 5, token: token).decoded(ChangesPage.self)
                if !page.changes.isEmpty { pages.append(page.changes) }
                cursor = page.cursor
                if !page.hasMore { break }
            }
            // Limit 5 over pushes of 3, 4, 1, 7 and 2: [3] (4 would split), [4, 1], the 7-push whole, [2].
            #expect(pages.map { $0.count } == [3, 5, 7, 2])
            #expect(pages.joined().map(\.position) == Array(1...17))
            for (index, page) in pages.enumerated() {
                let transactions = Set(page.map(\.transaction))
                #expect(page.count <= 5 || transactions.count == 1, "only a single push may exceed the limit")
                for other in pages[(index + 1)...] {
                    #expect(transactions.isDisjoint(with: other.map(\.transaction)), "a push is split across pages")
                }
            }
        }
    }
}

/// A flag one task sets and another reads.
final class Signal: Sendable {
    private let state = Mutex(false)

    var isSet: Bool { state.withLock { $0 } }

    func set() { state.withLock { $0 = true } }
}
