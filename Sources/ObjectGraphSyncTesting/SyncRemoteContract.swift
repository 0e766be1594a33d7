import Foundation
import ObjectGraphSync
import ObjectGraphSyncFeed
import ObjectGraphSyncProtocol

/// What every sync server does, seen through a `SyncRemote`: the behaviour the
/// sync client relies on. The server of `Server/` (over HTTP, on SQLite and PostgreSQL) and
/// ``InMemorySyncServer`` both pass it; a test runs each check against the server it tests:
///
/// ```swift
/// @Test(arguments: SyncRemoteContract.checks)
/// func holds(_ check: SyncRemoteContract.Check) async throws {
///     try await check.run(on: InMemorySyncServer())
/// }
/// ```
public enum SyncRemoteContract {
    /// One behaviour, checked on a server; it throws a ``ContractViolation`` saying what differed.
    public struct Check: Sendable, CustomStringConvertible {
        /// What the check holds the server to, as a sentence.
        public let description: String
        private let body: @Sendable (any SyncServerUnderTest) async throws -> Void

        init(_ description: String, _ body: @escaping @Sendable (any SyncServerUnderTest) async throws -> Void) {
            self.description = description
            self.body = body
        }

        /// Runs the check on `server`.
        public func run(on server: any SyncServerUnderTest) async throws {
            try await body(server)
        }
    }

    /// Every check: the feed's, then sharing's.
    public static let checks: [Check] = feedChecks + sharingChecks

    /// What a push, a page of the feed and the live route do in a zone of the caller's own.
    static let feedChecks: [Check] = [
        Check("A push applies every mutation, answers each record's version, and the feed holds them as one transaction") { server in
            let remote = try await server.newUser()
            let client = UUID()
            let result = try await applied(
                remote.push(push(client, [upsert(1, a, ["text": .string("one")]), upsert(2, b, ["text": .string("two")])]), zone: zone))
            try expect(result.applied.map(\.version) == [1, 1] && result.applied.map(\.number) == [1, 2], "answered \(result)")
            let (changes, cursor) = try await allChanges(remote)
            try expect(changes.map(\.record.id) == [a, b], "the feed holds \(changes)")
            try expect(Set(changes.map(\.transaction)).count == 1, "one push is one transaction: \(changes)")
            try expect(changes.first?.record.fields == ["text": .string("one")], "the record reads back as sent: \(changes)")
            try expect(cursor == result.cursor, "the push answered \(result.cursor), the feed ends at \(cursor)")
        },
        Check("A batch sent again is answered as the first time and changes nothing") { server in
            let remote = try await server.newUser()
            let request = push(UUID(), [upsert(1, a, ["text": .string("one")]), upsert(2, b, [:])])
            let first = try await applied(remote.push(request, zone: zone))
            let again = try await applied(remote.push(request, zone: zone))
            try expect(first == again, "first \(first), again \(again)")
            try expect(try await allChanges(remote).changes.count == 2, "a replay wrote to the feed")
        },
        Check("A batch that reuses numbers already applied, and is not the last batch, is refused and changes nothing") { server in
            let remote = try await server.newUser()
            let client = UUID()
            _ = try await applied(remote.push(push(client, [upsert(1, a, [:]), upsert(2, b, [:])]), zone: zone))
            _ = try await applied(remote.push(push(client, [upsert(3, c, [:])]), zone: zone))
            try await expectRefusal(.mutationNumberUsed) { _ = try await remote.push(push(client, [upsert(2, d, [:])]), zone: zone) }
            try expect(try await allChanges(remote).changes.count == 3, "a refused batch wrote to the feed")
        },
        Check("A mutation made from a stale version is refused with the server's record, and nothing of its batch is applied") { server in
            let remote = try await server.newUser()
            let (first, second) = (UUID(), UUID())
            _ = try await applied(remote.push(push(first, [upsert(1, a, ["text": .string("one")])]), zone: zone))
            _ = try await applied(remote.push(push(first, [upsert(2, a, ["text": .string("first's")], base: 1)]), zone: zone))
            let outcome = try await remote.push(
                push(second, [upsert(1, a, ["text": .string("second's")], base: 1), upsert(2, c, [:])]), zone: zone)
            guard case .conflicts(let conflicts) = outcome else { throw ContractViolation("a stale edit was applied: \(outcome)") }
            try expect(conflicts.map(\.number) == [1], "conflicts \(conflicts)")
            try expect(
                conflicts.first?.server.version == 2 && conflicts.first?.server.fields["text"] == .string("first's"),
                "the conflict holds the server's record as it is now: \(conflicts)")
            try expect(try await allChanges(remote).changes.map(\.record.id) == [a, a], "a refused batch wrote to the feed")
        },
        Check("A zone whose only push was refused reads as empty, with a cursor that reads it on") { server in
            let remote = try await server.newUser()
            try await expectRefusal(.notFound) {
                _ = try await remote.push(push(UUID(), [upsert(1, a, ["text": .string("stale")], base: 1)]), zone: zone)
            }
            let (changes, cursor) = try await allChanges(remote)
            try expect(changes.isEmpty, "the feed holds \(changes)")
            _ = try await applied(remote.push(push(UUID(), [upsert(1, b, [:])]), zone: zone))
            try expect(try await allChanges(remote, since: cursor).changes.map(\.record.id) == [b], "the cursor missed the push")
        },
        Check("Edits of different fields from the same version are both kept") { server in
            let remote = try await server.newUser()
            _ = try await applied(remote.push(push(UUID(), [upsert(1, a, ["text": .string("one"), "rating": .integer(1)])]), zone: zone))
            _ = try await applied(remote.push(push(UUID(), [upsert(1, a, ["text": .string("edited")], base: 1)]), zone: zone))
            _ = try await applied(remote.push(push(UUID(), [upsert(1, a, ["rating": .integer(5)], base: 1)]), zone: zone))
            let latest = try await allChanges(remote).changes.last?.record
            try expect(
                latest?.fields == ["text": .string("edited"), "rating": .integer(5)] && latest?.version == 3,
                "the record is \(String(describing: latest))")
        },
        Check("A record deleted and made again by a client that saw the deletion starts anew") { server in
            let remote = try await server.newUser()
            let client = UUID()
            _ = try await applied(remote.push(push(client, [upsert(1, a, ["text": .string("one"), "rating": .integer(1)])]), zone: zone))
            _ = try await applied(remote.push(push(client, [delete(2, a, base: 1)]), zone: zone))
            let again = try await applied(remote.push(push(client, [upsert(3, a, ["text": .string("again")], base: 2)]), zone: zone))
            let latest = try await allChanges(remote).changes.last?.record
            try expect(again.applied.first?.version == 3, "answered \(again)")
            try expect(
                latest?.fields == ["text": .string("again")] && latest?.deleted == false, "the record is \(String(describing: latest))")
        },
        Check("A change to a record the zone never held is refused, and nothing of its batch is applied") { server in
            let remote = try await server.newUser()
            try await expectRefusal(.notFound) {
                _ = try await remote.push(push(UUID(), [upsert(1, b, [:]), upsert(2, a, ["text": .string("x")], base: 1)]), zone: zone)
            }
            try await expectRefusal(.notFound) { _ = try await remote.push(push(UUID(), [delete(1, a, base: 1)]), zone: zone) }
            try expect(try await allChanges(remote).changes.isEmpty, "a refused batch wrote to the feed")
        },
        Check("A page holds whole pushes only, longer than its limit when one push is") { server in
            let remote = try await server.newUser()
            let client = UUID()
            _ = try await applied(remote.push(push(client, [upsert(1, a, [:]), upsert(2, b, [:]), upsert(3, c, [:])]), zone: zone))
            _ = try await applied(
                remote.push(push(client, [upsert(4, a, [:], base: 1), upsert(5, b, [:], base: 1), upsert(6, c, [:], base: 1)]), zone: zone))
            let first = try await remote.changes(zone: zone, since: .start, limit: 4)
            try expect(first.changes.count == 3 && first.hasMore, "a page of 4 cut inside the second push: \(first)")
            let second = try await remote.changes(zone: zone, since: first.cursor, limit: 4)
            try expect(second.changes.count == 3 && !second.hasMore, "the second page: \(second)")
            let small = try await remote.changes(zone: zone, since: .start, limit: 2)
            try expect(small.changes.count == 3 && small.hasMore, "a push longer than the limit was cut: \(small)")
        },
        Check(
            "A page holds no more of records' bytes than the server's budget, cut at whole pushes; a push larger than the budget is served alone"
        ) { server in
            let remote = try await server.newUser()
            let client = UUID()
            let budget = server.limits.maxPageBytes
            let recordBytes = min(server.limits.maxRecordBytes - 64, budget / 8)
            let text = JSONValue.string(String(repeating: "x", count: recordBytes))
            // Four pushes of a little less than a third of the budget each: three fit a page.
            let perPush = max(1, budget / (3 * recordBytes) - 1)
            var ids: [UUID] = [], number: Int64 = 0
            for _ in 0..<4 {
                let mutations = (0..<perPush).map { _ in
                    number += 1
                    ids.append(UUID())
                    return upsert(number, ids[ids.count - 1], ["text": text])
                }
                _ = try await applied(remote.push(push(client, mutations), zone: zone))
            }
            // One small push whose records, whole, are more than the budget.
            let touches = ids.map { id in
                number += 1
                return upsert(number, id, ["seen": .bool(true)], base: 1)
            }
            _ = try await applied(remote.push(push(client, touches), zone: zone))
            var sizes: [Int] = [], cursor = FeedCursor.start
            while true {
                let page = try await remote.changes(zone: zone, since: cursor, limit: 1000)
                if !page.changes.isEmpty { sizes.append(page.changes.count) }
                cursor = page.cursor
                if !page.hasMore { break }
            }
            let expected = [3 * perPush, perPush, 4 * perPush]
            try expect(
                sizes == expected, "pages of \(sizes) records; expected \(expected): whole pushes within the budget, the large one alone")
        },
        Check("Every change names the user whose push made it: one user's pushes, one name, another user's another") { server in
            let first = try await server.newUser(), second = try await server.newUser()
            for remote in [first, second] {
                _ = try await applied(remote.push(push(UUID(), [upsert(1, UUID(), [:]), upsert(2, UUID(), [:])]), zone: zone))
            }
            let firstAuthors = Set(try await allChanges(first).changes.map(\.author))
            let secondAuthors = Set(try await allChanges(second).changes.map(\.author))
            try expect(firstAuthors.count == 1 && firstAuthors.first != nil, "the first user's changes name \(firstAuthors)")
            try expect(secondAuthors.count == 1 && secondAuthors != firstAuthors, "the second user's name \(secondAuthors)")
        },
        Check("A zone never pushed to reads as empty from its start") { server in
            let page = try await server.newUser().changes(zone: zone, since: .start, limit: 100)
            try expect(page.changes.isEmpty && !page.hasMore, "the page is \(page)")
        },
        Check("A cursor older than a purged tombstone must read the zone again; the start rebuilds the zone") { server in
            let remote = try await server.newUser()
            let client = UUID()
            let created = try await applied(remote.push(push(client, [upsert(1, a, [:]), upsert(2, b, [:])]), zone: zone))
            let deleted = try await applied(remote.push(push(client, [delete(3, a, base: 1)]), zone: zone))
            try await server.purgeAll()
            try await expectRefusal(.mustRefetch) { _ = try await remote.changes(zone: zone, since: created.cursor, limit: 100) }
            let head = try await remote.changes(zone: zone, since: deleted.cursor, limit: 100)
            try expect(head.changes.isEmpty, "a cursor past the purge reads \(head)")
            let rebuilt = try await allChanges(remote).changes
            try expect(rebuilt.map(\.record.id) == [b], "from the start after the purge: \(rebuilt)")
        },
        Check("A cursor of another zone must read the zone again") { server in
            let remote = try await server.newUser()
            let other = try await applied(remote.push(push(UUID(), [upsert(1, a, [:])]), zone: "other"))
            _ = try await applied(remote.push(push(UUID(), [upsert(1, b, [:])]), zone: zone))
            try await expectRefusal(.mustRefetch) { _ = try await remote.changes(zone: zone, since: other.cursor, limit: 100) }
        },
        Check("A malformed push is refused, naming what is wrong, and nothing is applied") { server in
            let remote = try await server.newUser()
            try await expectRefusal(.badRequest) {
                _ = try await remote.push(push(UUID(), [upsert(2, a, [:]), upsert(1, b, [:])]), zone: zone)
            }
            try await expectRefusal(.badRequest) { _ = try await remote.push(push(UUID(), []), zone: zone) }
            try await expectRefusal(.badRequest) { _ = try await remote.push(push(UUID(), [upsert(1, a, [:])]), zone: "a zone") }
            try await expectRefusal(.badRequest) { _ = try await remote.push(push(UUID(), [upsert(1, a, ["": .integer(1)])]), zone: zone) }
            let large = JSONValue.string(String(repeating: "x", count: server.limits.maxRecordBytes))
            try await expectRefusal(.tooLarge) { _ = try await remote.push(push(UUID(), [upsert(1, a, ["text": large])]), zone: zone) }
            try expect(try await allChanges(remote).changes.isEmpty, "a refused push wrote to the feed")
        },
        Check(
            "A name that is not in Unicode's composed form (NFC), or holds a format character or a line or paragraph separator, is refused"
        ) { server in
            let remote = try await server.newUser()
            for name in ["Cafe\u{301}", "Mo\u{AD}od", "Mood\u{202E}", "Mood\u{2028}", "Mood\u{200B}"] {
                try await expectRefusal(.badRequest) {
                    _ = try await remote.push(
                        push(UUID(), [Mutation(number: 1, operation: .upsert, entity: name, id: a, fields: [:])]), zone: zone)
                }
                try await expectRefusal(.badRequest) {
                    _ = try await remote.push(push(UUID(), [upsert(1, a, [name: .integer(1)])]), zone: zone)
                }
            }
            _ = try await applied(remote.push(push(UUID(), [upsert(1, a, ["Caf\u{E9}": .integer(1)])]), zone: zone))
            try expect(try await allChanges(remote).changes.count == 1, "a refused push wrote to the feed")
        },
        Check("The live route says it listens, announces a feed already past the cursor, then each push") { server in
            let remote = try await server.newUser()
            let first = try await applied(remote.push(push(UUID(), [upsert(1, a, [:])]), zone: zone))
            let messages = LiveMessages(remote.live(zone: zone, since: .start))
            try await withHangCaught("the live route") {
                var messages = messages.makeAsyncIterator()
                try expect(try await messages.next() == .listening, "the first message is not `listening`")
                let head = try await messages.next()
                try expect(
                    head == .changes(LiveEvent(cursor: first.cursor)),
                    "the feed past the cursor was announced as \(String(describing: head))")
                let second = try await applied(remote.push(push(UUID(), [upsert(1, b, [:])]), zone: zone))
                while let message = try await messages.next() {
                    if case .changes(let event) = message, event.cursor.position >= second.cursor.position {
                        try expect(event.cursor == second.cursor, "the push was announced as \(event.cursor), not \(second.cursor)")
                        return
                    }
                }
                throw ContractViolation("the live route ended without announcing the push")
            }
        }
    ]

    // MARK: Helpers

    static let zone: ZoneID = "contract"
    // Fixed IDs, so that a record's order in a message is the same each run.
    static let a = UUID(uuid: (0xA, 0, 0, 0, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0, 1))
    static let b = UUID(uuid: (0xB, 0, 0, 0, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0, 1))
    static let c = UUID(uuid: (0xC, 0, 0, 0, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0, 1))
    static let d = UUID(uuid: (0xD, 0, 0, 0, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0, 1))

    static func push(_ client: UUID, _ mutations: [Mutation]) -> PushRequest {
        PushRequest(clientID: client, mutations: mutations)
    }

    static func upsert(_ number: Int64, _ id: UUID, _ fields: [String: JSONValue], base: Int64? = nil) -> Mutation {
        Mutation(number: number, operation: .upsert, entity: "Note", id: id, baseVersion: base, fields: fields)
    }

    static func delete(_ number: Int64, _ id: UUID, base: Int64) -> Mutation {
        Mutation(number: number, operation: .delete, entity: "Note", id: id, baseVersion: base)
    }

    static func applied(_ outcome: PushOutcome) throws -> PushResult {
        guard case .applied(let result) = outcome else { throw ContractViolation("the push was not applied: \(outcome)") }
        return result
    }

    /// The whole feed of the zone after `since`, page by page.
    static func allChanges(_ remote: any SyncRemote, in zone: ZoneID = zone, since: FeedCursor = .start) async throws -> (
        changes: [FeedChange], cursor: FeedCursor
    ) {
        var cursor = since
        var changes: [FeedChange] = []
        while true {
            let page = try await remote.changes(zone: zone, since: cursor, limit: 100)
            changes += page.changes
            cursor = page.cursor
            if !page.hasMore { return (changes, cursor) }
        }
    }

    /// Runs `body`, failing when it has not returned after a minute: a server that never answers
    /// is a violation, not a check that waits for ever.
    static func withHangCaught(_ what: String, _ body: @escaping @Sendable () async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await body()
                return true
            }
            group.addTask {
                try await Task.sleep(for: .seconds(60))
                return false
            }
            defer { group.cancelAll() }
            guard try await group.next() == true else { throw ContractViolation("\(what) did not answer within a minute") }
        }
    }

    static func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw ContractViolation(message()) }
    }

    /// Runs `body`, which the server must refuse with `code`.
    static func expectRefusal(_ code: SyncErrorBody.Code, _ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let error as SyncError where error.code == .server {
            try expect(error.serverCode == code, "refused as \(error), not \(code.rawValue)")
            try expect(error.reason?.isEmpty == false, "a refusal with no message")
            return
        }
        throw ContractViolation("not refused; expected \(code.rawValue)")
    }
}

/// A server that does not behave as ``SyncRemoteContract`` says, and how.
public struct ContractViolation: Error, Sendable, CustomStringConvertible {
    /// What differed.
    public var description: String

    init(_ description: String) { self.description = description }
}
