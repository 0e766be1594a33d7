import Foundation
import MoodyModel
import ObjectGraph
import ObjectGraphSync
import ObjectGraphSyncProtocol
import SyncServer
import Testing

/// Shared zones end to end: the sync client against the real server, two instances on one
/// database, three users with two devices each.
@Suite("Sync client: zones shared between users, against the real server", .serialized, .timeLimit(.minutes(5)))
struct SyncSharingTests {
    /// Polls `condition` until it holds; the minute only catches a hang.
    static func eventually(_ what: String, _ condition: () throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while try !condition() {
            guard ContinuousClock.now < deadline else { throw TestFailure("\(what): not within a minute") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    static func texts(_ device: SyncDevice) throws -> [String] {
        try device.container.newBackgroundContext().fetch(FetchDescriptor<Mood>()).map(\.text).sorted()
    }

    static func ratings(_ device: SyncDevice) throws -> [String: Int] {
        let moods = try device.container.newBackgroundContext().fetch(FetchDescriptor<Mood>())
        return Dictionary(moods.map { ($0.text, $0.rating) }, uniquingKeysWith: { first, _ in first })
    }

    @Test(
        "An owner, a writer and a reader with two devices each, on two instances: invitations by name and by code, the writer's edits reach all, the reader's are refused at save, a role change and a removal hold mid-stream",
        arguments: Backend.available)
    func threeUsersTwoDevicesEach(_ backend: Backend) async throws {
        var configured = try await SyncTestServer(backend)
        configured.configuration.liveTickInterval = .milliseconds(200)  // a removed member's stream ends soon
        let server = configured
        let tokens = (
            alice: try await server.addUser("alice"), bob: try await server.addUser("bob"), carol: try await server.addUser("carol")
        )
        try await server.serve { first in
            try await server.serve { second in
                let alice = (try SyncDevice(port: first, token: tokens.alice), try SyncDevice(port: second, token: tokens.alice))
                let bob = (try SyncDevice(port: second, token: tokens.bob), try SyncDevice(port: first, token: tokens.bob))
                let carol = (try SyncDevice(port: first, token: tokens.carol), try SyncDevice(port: second, token: tokens.carol))
                let everyone = [alice.0, alice.1, bob.0, bob.1, carol.0, carol.1]

                let context = alice.0.container.newBackgroundContext()
                let france = Country(name: "France", continent: Continent(name: "Europe"))
                context.insert(france)
                context.insert(Mood(text: "bonjour", rating: 3, country: france))
                context.insert(Mood(text: "ça va", rating: 3, country: france))
                context.insert(Mood(text: "alice's own"))
                try context.save()
                try await alice.0.sync.syncNow()
                let zone = try await alice.0.sync.share(france.objectID)
                let byName = try await alice.0.sync.invite("bob", as: .writer, to: zone)
                let byCode = try await alice.0.sync.invite(nil, as: .reader, to: zone)
                let code = try #require(byCode.code)
                let shared = ZoneID(zone.name, owner: "alice")
                #expect(try await bob.0.sync.accept(InvitationAcceptance(id: byName.id)) == shared)
                #expect(try await carol.0.sync.accept(InvitationAcceptance(code: code)) == shared)
                let reused = await #expect(throws: SyncError.self) { try await bob.1.sync.accept(InvitationAcceptance(code: code)) }
                #expect(reused?.serverCode == .invitationNotValid)
                for device in everyone { await device.sync.start() }
                for device in [bob.0, bob.1, carol.0, carol.1] {
                    try await Self.eventually("each member's device holds the shared moods") {
                        try Self.texts(device) == ["bonjour", "ça va"]
                    }
                }
                try await Self.eventually("alice's second device keeps all three") {
                    try Self.texts(alice.1) == ["alice's own", "bonjour", "ça va"]
                }

                // The writer's edit, from bob's second device, reaches every device.
                let bobs = bob.1.container.newBackgroundContext()
                let mood = try #require(try bobs.fetch(FetchDescriptor<Mood>(predicate: #Predicate { $0.text == "bonjour" })).first)
                mood.rating = 5
                try bobs.save()
                for device in everyone {
                    try await Self.eventually("the writer's edit reaches every device") { try Self.ratings(device)["bonjour"] == 5 }
                }

                // The reader's edit is refused at save, on either device.
                let carols = carol.1.container.newBackgroundContext()
                let carolsMood = try #require(try carols.fetch(FetchDescriptor<Mood>(predicate: #Predicate { $0.text == "ça va" })).first)
                carolsMood.rating = 1
                #expect(throws: ObjectGraphError.self) { try carols.save() }
                carols.rollback()

                // Bob made a reader: his devices refuse his next edit once they synced.
                try await alice.1.sync.setRole(.reader, of: "bob", in: zone)
                for device in [bob.0, bob.1] {
                    try await device.sync.syncNow()
                    #expect(await device.sync.role(in: shared) == .reader)
                    let bobsContext = device.container.newBackgroundContext()
                    let again = try #require(try bobsContext.fetch(FetchDescriptor<Mood>()).first)
                    again.rating = 2
                    #expect(throws: ObjectGraphError.self) { try bobsContext.save() }
                }

                // Carol removed while her devices listen: the moods leave both, with no call of hers.
                try await alice.0.sync.removeMember("carol", from: zone)
                for device in [carol.0, carol.1] {
                    try await Self.eventually("a removed member's devices lose the zone") { try Self.texts(device).isEmpty }
                }
                try await Self.eventually("alice keeps her moods") { try Self.texts(alice.0) == ["alice's own", "bonjour", "ça va"] }
                #expect(try await alice.0.sync.members(of: zone).map(\.user) == ["alice", "bob"])
                for device in everyone { await device.sync.stop() }
            }
        }
    }
}

// One case at a time: each runs a server process of its own and three clients. The clients are
// started with `posix_spawn` (see `SpawnedProcess`): Foundation's `Process.run()` crashed here.
@Suite("Sync client: sharing survives being killed", .serialized, .timeLimit(.minutes(5)))
struct SyncShareCrashTests {
    /// Runs the test client until it ends (killed after `delay`, if given); returns its output and
    /// whether it was killed.
    static func runClient(
        _ executable: URL, _ arguments: [String], killAfter delay: Duration? = nil
    ) async throws -> (output: String, killed: Bool) {
        let process = try SpawnedProcess(executable, arguments)
        if let delay {
            let deadline = ContinuousClock.now + delay
            while process.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
            process.kill()
        }
        guard let exit = await process.exit(within: .seconds(120)) else {
            process.kill()
            throw TestFailure("the client did not finish")
        }
        if exit.signaled {
            guard exit.code == SIGKILL else { throw TestFailure("the client crashed (signal \(exit.code)): \(exit.output)") }
            return (exit.output, true)
        }
        guard exit.code == 0 else { throw TestFailure("the client failed (\(exit.code)): \(exit.output)") }
        return (exit.output, false)
    }

    @Test(
        "A client killed in the middle of sharing a country with 1,000 moods, after an answer or at a random moment: once restarted, every record is in the new zone once, nothing is lost, and the old zone holds only their forwards",
        arguments: ["push:1", "push:2", "push:3", "push:4", "push:5", "random"])
    func killedWhileSharing(death: String) async throws {
        let executable = try #require(SyncCrashTests.executable, "objectgraph-sync-test-client is built with the tests")
        let database = try await Backend.sqlite.newDatabaseArgument()
        let token = try await ProcessTests.addUser("alice", database)
        let server = try await ServerProcess(database: database)
        let store = SyncDevice.newStorePath()
        let count = 1_000
        let base = ["http://127.0.0.1:\(server.port)", token, store, String(count)]
        _ = try await Self.runClient(executable, base + ["none", "prepare"])
        // The share's pushes: its records to the new zone (500 a batch), then the forwards.
        var random = SplitMix(seed: 46)
        let killed =
            death == "random"
            ? try await Self.runClient(
                executable, base + ["none", "share"], killAfter: .milliseconds(Int.random(in: 50...400, using: &random))
            ).killed
            : try await Self.runClient(executable, base + [death, "share"]).killed
        if death != "random" { #expect(killed, "the client outlived its death at \(death)") }
        let finished = try await Self.runClient(executable, base + ["none", "share"])
        let zoneName = try #require(finished.output.split(separator: "\n").last { $0.hasPrefix("shared ") }?.dropFirst("shared ".count))
        let client = HTTPSyncClient(port: server.port)
        func live(_ zone: String) async throws -> [UUID: ObjectGraphSyncProtocol.SyncedRecord] {
            var latest: [UUID: ObjectGraphSyncProtocol.SyncedRecord] = [:]
            for change in try await client.allChanges(zone, token: token) { latest[change.record.id] = change.record }
            return latest.filter { !$0.value.deleted }
        }
        let shared = try await live(String(zoneName))
        let home = try await live("moods")
        let moods = shared.values.filter { $0.entity == "Mood" && $0.forwardedTo == nil }
        #expect(moods.count == count, "\(moods.count) moods in the shared zone")
        #expect(shared.values.filter { $0.entity == "Country" }.count == 1)
        let texts = Set(moods.compactMap { record -> String? in if case .string(let text)? = record.fields["text"] { text } else { nil } })
        #expect(texts == Set((0..<count).map { "mood \($0)" }), "nothing lost")
        let unforwarded = home.values.filter { $0.forwardedTo != ZoneID(String(zoneName), owner: "alice") }
        #expect(unforwarded.isEmpty, "the old zone keeps only forwards, not \(unforwarded.count): \(unforwarded.prefix(3).map(\.id))")
        #expect(Set(home.keys) == Set(shared.keys), "every moved record has its forward, and nothing is in two zones")
    }
}

@Suite("Sync client: three users converge over private and shared zones", .timeLimit(.minutes(5)))
struct SyncSharingConvergenceTests {
    /// A store's moods and countries by global ID, or the same read from zones of the server.
    struct Snapshot: Equatable, CustomStringConvertible {
        var moods: [UUID: String] = [:]
        var countries: [UUID: String] = [:]

        var description: String { "\(moods.count) moods, \(countries.count) countries" }

        init(_ container: ObjectContainer) throws {
            let context = container.newBackgroundContext()
            for mood in try context.fetch(FetchDescriptor<Mood>()) {
                moods[mood.objectGlobalID] = "\(mood.text) \(mood.rating) \(mood.country?.objectGlobalID.uuidString ?? "-")"
            }
            for country in try context.fetch(FetchDescriptor<Country>()) { countries[country.objectGlobalID] = country.name }
        }

        /// The live records of these zones' feeds, forwards left out.
        init(records: [ObjectGraphSyncProtocol.SyncedRecord]) {
            let live = records.filter { !$0.deleted && $0.forwardedTo == nil }
            for record in live where record.entity == "Country" {
                if case .string(let name)? = record.fields["name"] { countries[record.id] = name }
            }
            for record in live where record.entity == "Mood" {
                guard case .string(let text)? = record.fields["text"], case .integer(let rating)? = record.fields["rating"] else {
                    continue
                }
                var country = "-"
                if case .string(let id)? = record.fields["country"], let uuid = UUID(uuidString: id), countries[uuid] != nil {
                    country = uuid.uuidString
                }
                moods[record.id] = "\(text) \(rating) \(country)"
            }
        }

        func differences(from other: Snapshot) -> String {
            let moodLines = Set(moods.keys).union(other.moods.keys).filter { moods[$0] != other.moods[$0] }.prefix(5).map {
                "mood \($0): \(moods[$0] ?? "none") / \(other.moods[$0] ?? "none")"
            }
            let countryLines = Set(countries.keys).union(other.countries.keys).filter { countries[$0] != other.countries[$0] }.prefix(5)
                .map { "country \($0): \(countries[$0] ?? "none") / \(other.countries[$0] ?? "none")" }
            return (moodLines + countryLines).joined(separator: "\n")
        }
    }

    @Test(
        "Three users making 1,000 random operations over their own zones and two shared ones (shared, joined and left in the middle, a reader's edits refused) end with each store equal to the zones it syncs",
        arguments: [UInt64(1), 2])
    func threeUsersConverge(seed: UInt64) async throws {
        let server = try await SyncTestServer(.sqlite)
        let names = ["alice", "bob", "carol"]
        var added: [String] = []
        for name in names { added.append(try await server.addUser(name)) }
        let tokens = added
        try await server.serve { port in
            let devices = try tokens.map { try SyncDevice(port: port, token: $0) }
            let contexts = devices.map { $0.container.newBackgroundContext() }
            var random = SplitMix(seed: seed)
            var made = 0, refused = 0
            var aliceZone: ZoneID?, bobZone: ZoneID?
            /// A new country of `user`'s with ten moods, shared.
            func shareNewCountry(of user: Int) async throws -> ZoneID {
                let country = Country(name: "\(names[user]) shared")
                contexts[user].insert(country)
                for index in 0..<10 { contexts[user].insert(Mood(text: "shared by \(names[user]) \(index)", country: country)) }
                try contexts[user].save()
                return try await devices[user].sync.share(country.objectID)
            }
            for step in 0..<1_000 {
                switch step {
                case 250:
                    // Alice shares a country of hers with bob (a writer) and carol (a writer).
                    let zone = try await shareNewCountry(of: 0)
                    aliceZone = zone
                    for (index, name) in [(1, "bob"), (2, "carol")] {
                        let invitation = try await devices[0].sync.invite(name, as: .writer, to: zone)
                        try await devices[index].sync.accept(InvitationAcceptance(id: invitation.id))
                    }
                case 400:
                    // Bob shares one of his with alice, who may only read it.
                    let zone = try await shareNewCountry(of: 1)
                    bobZone = zone
                    let invitation = try await devices[1].sync.invite(nil, as: .reader, to: zone)
                    #expect(invitation.code != nil)
                    try await devices[0].sync.accept(InvitationAcceptance(code: invitation.code))
                case 700:
                    if let aliceZone { try await devices[0].sync.removeMember("carol", from: aliceZone) }
                default:
                    let user = Int.random(in: 0..<3, using: &random)
                    let context = contexts[user]
                    let moods = Array(try context.fetch(FetchDescriptor<Mood>(sortBy: [SortDescriptor(\.text)])))
                    let countries = Array(try context.fetch(FetchDescriptor<Country>(sortBy: [SortDescriptor(\.name)])))
                    let mood = moods.isEmpty ? nil : moods[Int.random(in: 0..<moods.count, using: &random)]
                    let country = countries.isEmpty ? nil : countries[Int.random(in: 0..<countries.count, using: &random)]
                    switch Int.random(in: 0..<10, using: &random) {
                    case 0..<3:
                        made += 1
                        let home = Bool.random(using: &random) ? country : nil
                        let own = Int.random(in: 0..<4, using: &random) == 0 ? Country(name: "\(names[user]) \(made)") : home
                        context.insert(Mood(text: "m\(step)", rating: Int.random(in: 1...5, using: &random), country: own))
                    case 3..<5: mood?.rating = Int.random(in: 1...5, using: &random)
                    case 5: mood?.text = "edited \(step)"
                    case 6: if let mood { context.delete(mood) }
                    case 7: mood?.country = country
                    default:
                        do {
                            try await devices[user].sync.syncNow()
                        } catch let error as SyncError where error.serverCode == .forbidden || error.serverCode == .notFound {
                            // A role changed or a zone left since the last look: the next sync reads it.
                        }
                        continue
                    }
                    do {
                        try context.save()
                    } catch let error as ObjectGraphError where error.code == .validationFailed {
                        refused += 1  // an edit of a zone this user may only read, or a mood made twice
                        context.rollback()
                    }
                }
            }
            for _ in 0..<3 {
                for device in devices { try await device.sync.syncNow() }
            }
            #expect(refused > 0, "no edit was refused: alice never touched bob's zone")
            let aliceRemote = devices[0].remote, bobRemote = devices[1].remote, carolRemote = devices[2].remote
            func records(_ remote: any SyncRemote, _ zone: ZoneID) async throws -> [ObjectGraphSyncProtocol.SyncedRecord] {
                var latest: [UUID: ObjectGraphSyncProtocol.SyncedRecord] = [:]
                var cursor = FeedCursor.start
                while true {
                    let page = try await remote.changes(zone: zone, since: cursor, limit: 500)
                    for change in page.changes { latest[change.record.id] = change.record }
                    cursor = page.cursor
                    if !page.hasMore { break }
                }
                return Array(latest.values)
            }
            let aliceShared = try #require(aliceZone), bobShared = try #require(bobZone)
            let expected = [
                Snapshot(
                    records: try await records(aliceRemote, "moods") + (try await records(aliceRemote, aliceShared))
                        + (try await records(aliceRemote, ZoneID(bobShared.name, owner: "bob")))),
                Snapshot(
                    records: try await records(bobRemote, "moods") + (try await records(bobRemote, bobShared))
                        + (try await records(bobRemote, ZoneID(aliceShared.name, owner: "alice")))),
                Snapshot(records: try await records(carolRemote, "moods"))
            ]
            #expect(expected.allSatisfy { $0.moods.count > 20 }, "\(expected)")
            let bobsSharedMoods = Snapshot(records: try await records(bobRemote, bobShared)).moods
            #expect(Set(bobsSharedMoods.keys).isSubset(of: expected[0].moods.keys) && !bobsSharedMoods.isEmpty)
            for (index, device) in devices.enumerated() {
                let held = try Snapshot(device.container)
                #expect(
                    held == expected[index],
                    "\(names[index]) holds \(held), the zones \(expected[index]):\n\(held.differences(from: expected[index]))")
            }
            #expect(await devices[2].sync.zones.count == 1, "carol still syncs a zone she was removed from")
        }
    }
}
