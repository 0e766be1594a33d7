import Foundation
import MoodyModel
import ObjectGraph
import Synchronization
import Testing

/// The statements a store's connections run, as its configuration's trace reports them.
final class StatementLog: Sendable {
    private let statements = Mutex<[String]>([])

    var configurationTracing: @Sendable (String) -> Void { { [self] sql in statements.withLock { $0.append(sql) } } }

    /// The statements so far that read rows of `table` into objects (not the keys of its marked
    /// rows, which a relationship to a `DelayedDeletable` entity reads once, prefetched or not).
    func reads(of table: String) -> Int {
        statements.withLock { $0.filter { $0.hasPrefix("SELECT t0.Z_PK, t0.Z_VERSION") && $0.contains("FROM \"\(table)\"") }.count }
    }

    /// The statements so far that read the members of to-many relationships stored in `table`.
    func memberReads(of table: String) -> Int {
        statements.withLock { $0.filter { $0.hasPrefix("SELECT \"") && $0.contains("FROM \"\(table)\" WHERE") }.count }
    }

    /// The statements so far that select from `table`, whatever they read.
    func statements(from table: String) -> [String] {
        statements.withLock { $0.filter { $0.hasPrefix("SELECT t0.") && $0.contains("FROM \"\(table)\"") } }
    }

    func clear() { statements.withLock { $0.removeAll() } }

    /// Every statement so far.
    var all: [String] { statements.withLock { $0 } }

}

@Suite("Prefetching: FetchDescriptor.relationshipKeyPathsForPrefetching")
struct PrefetchingTests {
    /// A store of 60 moods over 12 countries on 3 continents, and a fresh container on it that logs
    /// its statements.
    static func store() throws -> (ObjectContainer, StatementLog) {
        let path = temporaryStorePath()
        do {
            let context = try ObjectContainer(for: Mood.self, configuration: .file(path)).newBackgroundContext()
            let continents = (0..<3).map { Continent(name: "Continent \($0)") }
            let countries = (0..<12).map { Country(name: "Country \($0)", continent: continents[$0 % 3]) }
            for country in countries { context.insert(country) }
            for index in 0..<60 {
                let mood = Mood(text: "Mood \(index)", rating: index % 5 + 1, date: Date(timeIntervalSince1970: Double(index)))
                context.insert(mood)
                mood.country = countries[index % 12]
            }
            try context.save()
        }
        let log = StatementLog()
        var configuration = StoreConfiguration.file(path)
        configuration.traceStatements = log.configurationTracing
        configuration.historyPollingInterval = nil
        return (try ObjectContainer(for: Mood.self, configuration: configuration), log)
    }

    @Test("Prefetching a to-one relationship reads the related rows in one query, after which reading them reads nothing")
    func toOne() throws {
        let (container, log) = try Self.store()
        let context = container.newBackgroundContext()
        var request = FetchDescriptor<Mood>(sortBy: [SortDescriptor(\.date)])
        request.relationshipKeyPathsForPrefetching = [\.country]
        log.clear()
        let moods = try context.fetch(request)
        #expect(log.reads(of: "Mood") == 1)
        #expect(log.reads(of: "Country") == 1)
        #expect(moods.map { $0.country?.name ?? "" }.prefix(3) == ["Country 0", "Country 1", "Country 2"])
        #expect(log.reads(of: "Country") == 1, "every country was loaded with the fetch")

        // Without prefetching, each country reads its row when touched.
        let other = container.newBackgroundContext()
        log.clear()
        let plain = try other.fetch(FetchDescriptor<Mood>(sortBy: [SortDescriptor(\.date)]))
        #expect(plain.map { $0.country?.name ?? "" } == moods.map { $0.country?.name ?? "" })
        #expect(log.reads(of: "Country") == 60, "a country nobody holds is read again for each of its moods")
    }

    @Test("A chain of to-one relationships prefetches one level per query")
    func chainOfToOne() throws {
        let (container, log) = try Self.store()
        let context = container.newBackgroundContext()
        var request = FetchDescriptor<Mood>()
        request.relationshipKeyPathsForPrefetching = [\.country?.continent]
        log.clear()
        let moods = try context.fetch(request)
        #expect(log.reads(of: "Country") == 1 && log.reads(of: "Continent") == 1)
        #expect(Set(moods.compactMap { $0.country?.continent?.name }) == ["Continent 0", "Continent 1", "Continent 2"])
        #expect(log.reads(of: "Country") == 1 && log.reads(of: "Continent") == 1)
    }

    @Test("A to-many relationship prefetches every object's members in one query, and their rows in another")
    func toMany() throws {
        let (container, log) = try Self.store()
        let context = container.newBackgroundContext()
        var request = FetchDescriptor<Country>(sortBy: [SortDescriptor(\.name)])
        request.relationshipKeyPathsForPrefetching = [\.moods]
        log.clear()
        let countries = try context.fetch(request)
        #expect(log.memberReads(of: "Mood") == 1 && log.reads(of: "Mood") == 1, "the members' keys, then their rows")
        let texts = countries.map { $0.moods.map(\.text).sorted() }
        #expect(texts.first == ["Mood 0", "Mood 12", "Mood 24", "Mood 36", "Mood 48"])
        #expect(texts.allSatisfy { $0.count == 5 })
        #expect(log.memberReads(of: "Mood") == 1 && log.reads(of: "Mood") == 1)
    }

    @Test("Each batch of a batched fetch prefetches as it is loaded")
    func batches() throws {
        let (container, log) = try Self.store()
        let context = container.newBackgroundContext()
        var request = FetchDescriptor<Mood>(sortBy: [SortDescriptor(\.date)])
        request.fetchBatchSize = 20
        request.relationshipKeyPathsForPrefetching = [\.country]
        let moods = try context.fetch(request)
        #expect(log.reads(of: "Country") == 0)
        let names = (0..<moods.count).map { moods[$0].country?.name ?? "" }
        #expect(names.count == 60 && names[13] == "Country 1")
        #expect(log.reads(of: "Country") == 3, "one query per batch of 20 moods: 12 countries, loaded once")
    }

    @Test("Prefetching leaves results as they are: unsaved objects included, changed values kept")
    func unsavedChanges() throws {
        let (container, _) = try Self.store()
        let context = container.newBackgroundContext()
        let first = try #require(try context.fetch(FetchDescriptor<Country>(predicate: #Predicate { $0.name == "Country 0" })).first)
        first.name = "Renamed"
        let new = Mood(text: "New", date: Date(timeIntervalSince1970: -1))
        context.insert(new)
        new.country = Country(name: "New country")
        var request = FetchDescriptor<Mood>(sortBy: [SortDescriptor(\.date)])
        request.relationshipKeyPathsForPrefetching = [\.country?.continent, \.country]
        let moods = try context.fetch(request)
        let plain = try context.fetch(FetchDescriptor<Mood>(sortBy: [SortDescriptor(\.date)]))
        #expect(moods.map(\.objectID) == plain.map(\.objectID))
        #expect(moods.first?.country?.name == "New country")
        #expect(moods.dropFirst().first?.country?.name == "Renamed")

        // A child context prefetches what its parent holds, unsaved changes included.
        let child = context.newChildContext()
        let inChild = try child.fetch(request)
        #expect(inChild.map(\.objectID) == plain.map(\.objectID))
        #expect(inChild.dropFirst().first?.country?.name == "Renamed")
        #expect(inChild.first?.country?.name == "New country")
    }

    @Test("A key path that is not a relationship, or a chain of to-one relationships, is refused, naming the entity")
    func notARelationship() throws {
        let (container, _) = try Self.store()
        var request = FetchDescriptor<Mood>()
        request.relationshipKeyPathsForPrefetching = [\.text]
        let error = #expect(throws: ObjectGraphError.self) { _ = try container.newBackgroundContext().fetch(request) }
        #expect(error?.code == .invalidPropertyAccess)
        #expect(error?.entity == "Mood")
    }
}

/// The expanded trace reports each statement with its arguments written in, both traces at once.
@Suite struct ExpandedTraceTests {
    @Test func aSaveIsTracedWithTheValuesItWrote() throws {
        let expanded = Mutex<[(sql: String, expanded: String)]>([])
        let plain = StatementLog()
        var configuration = StoreConfiguration.file(temporaryStorePath())
        configuration.traceStatements = plain.configurationTracing
        configuration.traceExpandedStatements = { sql, text in expanded.withLock { $0.append((sql, text)) } }
        let container = try ObjectContainer(for: Mood.self, configuration: configuration)
        let context = container.newBackgroundContext()
        expanded.withLock { $0.removeAll() }
        context.insert(Mood(text: "It's 🌧️ \u{0}here", rating: 4))
        try context.save()
        let insert = try #require(expanded.withLock { $0.first { $0.sql.hasPrefix("INSERT INTO \"Mood\"") } })
        #expect(insert.sql.contains("?"))
        #expect(insert.expanded.contains("'It''s 🌧️"), "text written in as an SQL literal")
        #expect(insert.expanded.contains(", 4,"))
        #expect(plain.all.contains(insert.sql), "the plain trace still reports the same statement")
    }
}
