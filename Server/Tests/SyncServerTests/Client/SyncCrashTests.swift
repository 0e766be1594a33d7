import Foundation
import MoodyModel
import ObjectGraph
import ObjectGraphSync
import ObjectGraphSyncFeed
import ObjectGraphSyncProtocol
import Testing

@Suite("Sync client: exactly once, whatever kills it", .timeLimit(.minutes(5)))
struct SyncCrashTests {
    /// The test client executable `swift test` built next to the test bundle.
    static let executable = BuiltExecutable.url(named: "objectgraph-sync-test-client")

    @Test(
        "A client killed at least 50 times at random points, some between the server's answer and the local save: every change is on the server exactly once, and none made locally is lost"
    )
    func killedClient() async throws {
        let executable = try #require(Self.executable, "objectgraph-sync-test-client is built with the tests")
        let database = try await Backend.sqlite.newDatabaseArgument()
        let token = try await ProcessTests.addUser("alice", database)
        let server = try await ServerProcess(database: database)
        let store = SyncDevice.newStorePath()
        let count = 400
        var random = SplitMix(seed: 26)
        var kills = 0, deathsAfterAnswers = 0, run = 0
        while true {
            let killing = kills < 50
            run += 1
            // One run in three dies right after a given answer of the server, before saving it;
            // the others are killed from outside at a moment drawn from the seeded generator.
            let death =
                !killing || run % 3 != 0
                ? "none"
                : (run % 2 == 0 ? "push" : "page") + ":\(Int.random(in: 1...3, using: &random))"
            let process = try SpawnedProcess(
                executable, ["http://127.0.0.1:\(server.port)", token, store, String(count), death])
            if killing && death == "none" {
                let deadline = ContinuousClock.now + .milliseconds(Int.random(in: 10...250, using: &random))
                while process.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
                process.kill()
            }
            guard let exit = await process.exit(within: .seconds(120)) else {
                process.kill()
                throw TestFailure("the client did not finish: \(process.log.text)")
            }
            if exit.signaled {
                kills += 1
                if death != "none" { deathsAfterAnswers += 1 }
                if !killing || exit.code != SIGKILL { throw TestFailure("the client crashed: \(exit.output)") }
                continue
            }
            try #require(exit.code == 0, "the client failed: \(exit.output)")
            if !killing { break }  // otherwise the run ended by itself before the kill came
        }
        #expect(kills >= 50)
        #expect(deathsAfterAnswers >= 10, "\(deathsAfterAnswers) deaths between an answer and its save")

        // The server holds each mood once, with its last rating.
        let feed = try await HTTPSyncClient(port: server.port).allChanges("moods", token: token)
        var latest: [UUID: ObjectGraphSyncProtocol.SyncedRecord] = [:]
        var repeated: [String] = []
        for change in feed {
            // A change applied twice would leave two versions of the record with the same fields.
            if let previous = latest[change.record.id], previous.fields == change.record.fields {
                repeated.append("\(change.record.fields["text"].map { "\($0)" } ?? "?") v\(change.record.version)")
            }
            latest[change.record.id] = change.record
        }
        #expect(repeated.isEmpty, "changes applied twice: \(repeated)")
        let moods = latest.values.filter { $0.entity == "Mood" && !$0.deleted }
        var texts: [String: Int] = [:]
        for mood in moods { if case .string(let text)? = mood.fields["text"] { texts[text, default: 0] += 1 } }
        #expect(moods.count == count, "\(moods.count) moods on the server")
        #expect(texts.values.allSatisfy { $0 == 1 }, "duplicates: \(texts.filter { $0.value > 1 })")
        #expect(Set(texts.keys) == Set((0..<count).map { "mood \($0)" }))
        for mood in moods {
            guard case .string(let text)? = mood.fields["text"], let index = Int(text.dropFirst(5)) else { continue }
            let rated = (index + 1) % 3 == 0 && index + 1 < count
            #expect(mood.fields["rating"] == .integer(rated ? 5 : 1), "\(text)")
        }

        // The store holds each mood once too, and nothing waits.
        let container = try ObjectContainer(
            schema: Schema([Mood.self, Country.self, Continent.self] + SyncCoordinator.entities),
            configuration: .file(store))
        let context = container.newBackgroundContext()
        let local = try context.fetch(FetchDescriptor<Mood>())
        #expect(local.count == count && Set(local.map(\.text)).count == count)
        #expect(try context.fetchCount(FetchDescriptor<SyncRecordState>(predicate: #Predicate { $0.isPending })) == 0)
        withExtendedLifetime(server) {}
    }
}

/// A deterministic generator (SplitMix64): the seed that failed reproduces the failure.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
