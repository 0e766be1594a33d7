import Foundation
import MoodyModel
import ObjectGraph
import ObjectGraphSync
import ObjectGraphSyncProtocol
import Observation
import Synchronization
import Testing

@Suite("Sync client: the sync's status, visible as it changes", .timeLimit(.minutes(5)))
struct SyncStatusTests {
    @Test(
        "As an AsyncSequence, the status goes through pushing and pulling to idle, counting the changes waiting and dating the last successful sync"
    )
    func statusSequence() async throws {
        let server = try await SyncTestServer(.sqlite)
        let token = try await server.addUser("alice")
        try await server.run { client in
            let phone = try SyncDevice(port: client.port, token: token)
            let context = phone.container.newBackgroundContext()
            context.insert(Mood(text: "one"))
            context.insert(Mood(text: "two"))
            try context.save()
            #expect(phone.sync.status.current.activity == .stopped && phone.sync.status.current.lastSuccessfulSync == nil)

            let updates = phone.sync.status.updates
            let before = Date()
            try await phone.sync.syncNow()
            var seen: [SyncStatus] = []
            for await update in updates {
                seen.append(update)
                if update.activity == .idle { break }
            }
            let activities = seen.map(\.activity).reduce(into: [SyncStatus.Activity]()) { if $0.last != $1 { $0.append($1) } }
            #expect(activities == [.stopped, .pushing, .pulling, .idle], "\(activities)")
            #expect(seen.contains { $0.activity == .pushing && $0.pendingChanges == 2 }, "the two moods counted while they are sent")
            let last = try #require(seen.last)
            #expect(last.pendingChanges == 0 && last.lastError == nil && last.nextRetry == nil)
            #expect(try #require(last.lastSuccessfulSync) >= before)
        }
    }

    @Test("As an Observable, a view reading the status hears that it changed")
    func statusObservable() async throws {
        let server = try await SyncTestServer(.sqlite)
        let token = try await server.addUser("alice")
        try await server.run { client in
            let phone = try SyncDevice(port: client.port, token: token)
            let (changes, changed) = AsyncStream<Void>.makeStream()
            withObservationTracking {
                _ = phone.sync.status.current.activity  // what a SwiftUI view's body reads
            } onChange: {
                changed.yield()
            }
            try await phone.sync.syncNow()
            var heard = false
            for await _ in changes {
                heard = true
                break
            }
            #expect(heard)
            #expect(phone.sync.status.current.activity == .idle)
        }
    }

    @Test(
        "A record that does not fit is never silent: the status counts it as set aside and names the record, its field and value"
    )
    func setAsideIsVisible() async throws {
        let server = try await SyncTestServer(.sqlite)
        let token = try await server.addUser("alice")
        try await server.run { client in
            let unfit = UUID()
            try await client.pushApplied(
                "moods",
                PushRequest(
                    UUID(),
                    .upsert(
                        1, entity: "Mood", id: unfit, fields: ["text": .string("unfit"), "rating": .string("three"), "date": .double(0)])),
                token: token)
            let phone = try SyncDevice(port: client.port, token: token)
            await phone.sync.start()
            let seen = try await status(of: phone.sync.status) { $0.activity == .idle && $0.setAsideRecords == 1 }
            let reason = try #require(seen.lastSetAsideReason)
            #expect(
                reason.contains("Mood") && reason.contains(unfit.uuidString) && reason.contains("rating") && reason.contains("three"),
                "\(reason)")
            #expect(seen.lastError == nil, "the zone goes on")
            await phone.sync.stop()
            #expect(phone.sync.status.current.setAsideRecords == 1, "stopping does not hide what was set aside")
        }
    }

    @Test("A reference that is not exactly a record's ID is set aside, naming the field, never read as another record's ID")
    func malformedReferenceIsRefused() async throws {
        let server = try await SyncTestServer(.sqlite)
        let token = try await server.addUser("alice")
        try await server.run { client in
            // Foundation's parser on Linux reads "+195f…" as "0195f…": this mood would join the country.
            let country = try #require(UUID(uuidString: "0195f3a2-1b2c-7d3e-8f40-123456789abc"))
            let mood = UUID()
            try await client.pushApplied(
                "moods",
                PushRequest(
                    UUID(), .upsert(1, entity: "Country", id: country, fields: ["name": .string("Iceland")]),
                    .upsert(
                        2, entity: "Mood", id: mood,
                        fields: [
                            "text": .string("misnamed"), "rating": .integer(3), "date": .double(0),
                            "country": .string("+195f3a2-1b2c-7d3e-8f40-123456789abc")
                        ])), token: token)
            let phone = try SyncDevice(port: client.port, token: token)
            try await phone.sync.syncNow()
            let refused = try await phone.sync.setAsideRecords()
            #expect(refused.map(\.id) == [mood] && refused.map(\.field) == ["country"])
            let context = phone.container.newBackgroundContext()
            #expect(try context.fetchCount(FetchDescriptor<Mood>()) == 0, "the mood is set aside, not linked elsewhere")
            #expect(try context.fetch(FetchDescriptor<Country>()).map(\.name) == ["Iceland"], "the rest of the page is applied")
        }
    }
}
