import Foundation
import MoodyModel
import ObjectGraph
import ObjectGraphSync
import ObjectGraphSyncProtocol
import Testing

@Suite("Sync client: devices converge", .timeLimit(.minutes(5)))
struct SyncConvergenceTests {
    /// What a store holds of Moody, by global ID: comparable across devices and with the server.
    struct Snapshot: Equatable, CustomStringConvertible {
        struct MoodState: Equatable { var text: String, rating: Int64, date: Double, country: UUID? }
        struct CountryState: Equatable { var name: String }
        var moods: [UUID: MoodState] = [:]
        var countries: [UUID: CountryState] = [:]
        /// Each trip's stops, in order, by their names.
        var trips: [UUID: [String]] = [:]

        var description: String { "\(moods.count) moods, \(countries.count) countries, \(trips.count) trips" }

        /// What differs from `other`, for a failure's message.
        func differences(from other: Snapshot) -> String {
            var lines: [String] = []
            for id in Set(moods.keys).union(other.moods.keys) where moods[id] != other.moods[id] {
                lines.append("mood \(id): \(String(describing: moods[id])) / \(String(describing: other.moods[id]))")
            }
            for id in Set(countries.keys).union(other.countries.keys) where countries[id] != other.countries[id] {
                lines.append("country \(id): \(String(describing: countries[id])) / \(String(describing: other.countries[id]))")
            }
            for id in Set(trips.keys).union(other.trips.keys) where trips[id] != other.trips[id] {
                lines.append("trip \(id): \(String(describing: trips[id])) / \(String(describing: other.trips[id]))")
            }
            return lines.joined(separator: "\n")
        }

        init(_ container: ObjectContainer) throws {
            let context = container.newBackgroundContext()
            for trip in try context.fetch(FetchDescriptor<Trip>()) { trips[trip.objectGlobalID] = trip.stops.map(\.name) }
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
        init(feed: [FeedChange], leavingOut setAside: Set<UUID> = []) {
            var latest: [UUID: ObjectGraphSyncProtocol.SyncedRecord] = [:]
            for change in feed { latest[change.record.id] = change.record }
            let live = latest.values.filter { !$0.deleted && !setAside.contains($0.id) }
            // A trip's stops sorted as every device sorts them: by position, then by ID.
            var stops: [UUID: [(key: String?, id: UUID, name: String)]] = [:]
            for record in live where record.entity == "Trip" { stops[record.id] = [] }
            for record in live where record.entity == "Stop" {
                guard case .string(let trip)? = record.fields["trip"], let tripID = UUID(uuidString: trip), stops[tripID] != nil,
                    case .string(let name)? = record.fields["name"]
                else { continue }
                var key: String?
                if case .string(let position)? = record.fields["trip.position"] { key = position }
                stops[tripID]?.append((key, record.id, name))
            }
            for (trip, members) in stops {
                trips[trip] = members.sorted { a, b in
                    switch (a.key, b.key) {
                    case let (x?, y?) where x != y: x < y
                    case (.some, nil): true
                    case (nil, .some): false
                    default: a.id.uuidString < b.id.uuidString
                    }
                }.map(\.name)
            }
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
        "Three devices making 1,000 random operations (some offline, some conflicting; unique names made twice, ordered lists edited on several devices, records from an older client that break a rule, history purges) end with identical stores and the server's state",
        arguments: [UInt64(1), 2, 3])
    func threeDevicesConverge(seed: UInt64) async throws {
        let database = try await Backend.sqlite.newDatabaseArgument()
        let token = try await ProcessTests.addUser("alice", database)
        let server = try await ServerProcess(database: database)
        let types = SyncDevice.types + [Trip.self, Stop.self]
        let devices = try (0..<3).map { _ in try SyncDevice(port: server.port, token: token, types: types) }
        let olderClient = HTTPSyncClient(port: server.port)
        var olderMutation: Int64 = 0
        var brokenRecords: Set<UUID> = []
        let contexts = devices.map { $0.container.newBackgroundContext() }
        var random = SplitMix(seed: seed)
        let olderClientID = UUID()
        var names = 0
        func uniqueName() -> String {
            names += 1
            return "Country \(seed)-\(names)"
        }
        /// A name from a small pool that another device may have made too, not yet held here.
        func sharedName(in countries: [Country]) -> String {
            let held = Set(countries.map(\.name))
            let pick = "Shared \(Int.random(in: 0..<6, using: &random))"
            return held.contains(pick) ? uniqueName() : pick
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
            let trips = Array(try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])))
            let trip = trips.isEmpty ? nil : trips[Int.random(in: 0..<trips.count, using: &random)]
            switch Int.random(in: 0..<120, using: &random) {
            case 0..<25:
                let home: Country? =
                    switch Int.random(in: 0..<5, using: &random) {
                    case 0: nil
                    case 1: Country(name: Bool.random(using: &random) ? uniqueName() : sharedName(in: countries))
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
            case 100..<104:
                let made = Trip(name: "t\(step)")
                context.insert(made)
                made.stops = (0..<Int.random(in: 0...3, using: &random)).map { Stop(name: "s\(step)-\($0)") }
            case 104..<109:
                if let trip { trip.stops.insert(Stop(name: "s\(step)"), at: Int.random(in: 0...trip.stops.count, using: &random)) }
            case 109..<113:
                if let trip, !trip.stops.isEmpty {
                    let moved = trip.stops.remove(at: Int.random(in: 0..<trip.stops.count, using: &random))
                    trip.stops.insert(moved, at: Int.random(in: 0...trip.stops.count, using: &random))
                }
            case 113..<115:
                if let trip, let stop = trip.stops.randomElement(using: &random) { context.delete(stop) }
            case 115:
                trip?.stops.reverse()
            case 116..<118:
                // An older client's mood, rated past the rule: set aside by every device.
                let id = UUID()
                olderMutation += 1
                let answer = try await olderClient.push(
                    "moods",
                    PushRequest(
                        clientID: olderClientID,
                        mutations: [
                            .upsert(
                                olderMutation, entity: "Mood", id: id,
                                fields: ["text": .string("older \(step)"), "rating": .integer(9), "date": .double(0)])
                        ]), token: token)
                #expect(answer.status == .ok)
                brokenRecords.insert(id)
            case 118:
                // A purge that respects the sync's position.
                try devices[index].container.purgeHistory(before: .distantFuture)
            case 119:
                // A purge by a build that ignores consumers: the sync recovers what it had not read.
                for consumer in try devices[index].container.historyConsumers() {
                    try devices[index].container.removeHistoryConsumer(named: consumer.name)
                }
                if let last = try devices[index].container.lastHistoryToken() { try devices[index].container.purgeHistory(through: last) }
            default:
                if !(offline && index == 2) { try await devices[index].sync.syncNow() }
            }
            try context.save()
        }
        for _ in 0..<3 {
            for device in devices { try await device.sync.syncNow() }
        }
        let snapshots = try devices.map { try Snapshot($0.container) }
        let serverState = Snapshot(
            feed: try await HTTPSyncClient(port: server.port).allChanges("moods", token: token), leavingOut: brokenRecords)
        for device in devices {
            #expect(Set(try await device.sync.setAsideRecords().map(\.id)) == brokenRecords, "seed \(seed): set aside, each of them")
        }
        #expect(snapshots[0] == snapshots[1] && snapshots[1] == snapshots[2], "seed \(seed): \(snapshots)")
        #expect(
            snapshots[0] == serverState,
            "seed \(seed): the devices hold \(snapshots[0]), the server \(serverState):\n\(snapshots[0].differences(from: serverState))")
        #expect(snapshots[0].moods.count > 20 && snapshots[0].trips.count > 5, "seed \(seed): a workload worth the name")
        withExtendedLifetime(server) {}
    }
}
