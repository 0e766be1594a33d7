import Foundation
import MoodyModel
import ObjectGraph
import ObjectGraphSync
import ObjectGraphSyncProtocol
import Testing

@Suite("Sync client: devices converge")
struct SyncConvergenceTests {
    /// What a store holds of Moody, by global ID: comparable across devices and with the server.
    struct Snapshot: Equatable, CustomStringConvertible {
        struct MoodState: Equatable { var text: String, rating: Int64, date: Double, country: UUID? }
        struct CountryState: Equatable { var name: String }
        var moods: [UUID: MoodState] = [:]
        var countries: [UUID: CountryState] = [:]

        var description: String { "\(moods.count) moods, \(countries.count) countries" }

        init(_ container: ObjectContainer) throws {
            let context = container.newBackgroundContext()
            for mood in try context.fetch(FetchDescriptor<Mood>(includesMarkedForDeletion: true)) {
                moods[mood.objectGlobalID] = MoodState(
                    text: mood.text, rating: Int64(mood.rating), date: mood.date.timeIntervalSince1970,
                    country: mood.country?.objectGlobalID)
            }
            for country in try context.fetch(FetchDescriptor<Country>(includesMarkedForDeletion: true)) {
                countries[country.objectGlobalID] = CountryState(name: country.name)
            }
        }

        /// The server's live records; a reference to a record it does not hold reads as none, as
        /// every device shows it.
        init(feed: [FeedChange]) {
            var latest: [UUID: ObjectGraphSyncProtocol.SyncedRecord] = [:]
            for change in feed { latest[change.record.id] = change.record }
            let live = latest.values.filter { !$0.deleted }
            for record in live where record.entity == "Country" {
                if case .string(let name)? = record.fields["name"] { countries[record.id] = CountryState(name: name) }
            }
            for record in live where record.entity == "Mood" {
                guard case .string(let text)? = record.fields["text"], case .integer(let rating)? = record.fields["rating"] else {
                    continue
                }
                let date: Double =
                    switch record.fields["date"] {
                    case .double(let value)?: value
                    case .integer(let value)?: Double(value)
                    default: .nan
                    }
                var country: UUID?
                if case .string(let id)? = record.fields["country"], let uuid = UUID(uuidString: id), countries[uuid] != nil {
                    country = uuid
                }
                moods[record.id] = MoodState(text: text, rating: rating, date: date, country: country)
            }
        }
    }

    @Test(
        "Three devices making 1,000 random operations (some offline, some conflicting) end with identical stores and the server's state",
        arguments: [UInt64(1), 2, 3])
    func threeDevicesConverge(seed: UInt64) async throws {
        let database = try await Backend.sqlite.newDatabaseArgument()
        let token = try await ProcessTests.addUser("alice", database)
        let server = try await ServerProcess(database: database)
        let devices = try (0..<3).map { _ in try SyncDevice(port: server.port, token: token) }
        let contexts = devices.map { $0.container.newBackgroundContext() }
        var random = SplitMix(seed: seed)
        var names = 0
        func uniqueName() -> String {
            names += 1
            return "Country \(seed)-\(names)"
        }
        var offline = false  // the third device does not sync for stretches
        for step in 0..<1_000 {
            if step % 100 == 0 { offline.toggle() }
            let index = Int.random(in: 0..<3, using: &random)
            let context = contexts[index]
            let moods = Array(try context.fetch(FetchDescriptor<Mood>(sortBy: [SortDescriptor(\.date), SortDescriptor(\.text)])))
            let countries = Array(try context.fetch(FetchDescriptor<Country>(sortBy: [SortDescriptor(\.name)])))
            let mood = moods.isEmpty ? nil : moods[Int.random(in: 0..<moods.count, using: &random)]
            let country = countries.isEmpty ? nil : countries[Int.random(in: 0..<countries.count, using: &random)]
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<25:
                let home: Country? =
                    switch Int.random(in: 0..<5, using: &random) {
                    case 0: nil
                    case 1: Country(name: uniqueName())
                    default: country ?? Country(name: uniqueName())
                    }
                context.insert(
                    Mood(
                        text: "m\(step)", rating: Int.random(in: 1...5, using: &random),
                        date: Date(timeIntervalSince1970: Double(Int.random(in: 0...1_000, using: &random))), country: home))
            case 25..<45:
                mood?.rating = Int.random(in: 1...5, using: &random)
            case 45..<55:
                mood?.text = "edited \(step)"
            case 55..<65:
                mood?.country = Bool.random(using: &random) ? country : nil
            case 65..<72:
                if let mood { context.delete(mood) }
            case 72..<80:
                country?.name = uniqueName()
            case 80..<83:
                if let country { context.delete(country) }  // its moods go with it
            default:
                if !(offline && index == 2) { try await devices[index].sync.syncNow() }
            }
            try context.save()
        }
        for _ in 0..<3 {
            for device in devices { try await device.sync.syncNow() }
        }
        let snapshots = try devices.map { try Snapshot($0.container) }
        let serverState = Snapshot(feed: try await HTTPSyncClient(port: server.port).allChanges("moods", token: token))
        #expect(snapshots[0] == snapshots[1] && snapshots[1] == snapshots[2], "seed \(seed): \(snapshots)")
        #expect(snapshots[0] == serverState, "seed \(seed): the devices hold \(snapshots[0]), the server \(serverState)")
        #expect(snapshots[0].moods.count > 20, "seed \(seed): a workload worth the name")
        withExtendedLifetime(server) {}
    }
}
