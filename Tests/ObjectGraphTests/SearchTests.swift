import Foundation
import GRDB
import ObjectGraph
import Testing

/// A journal entry whose title and body are searchable.
@Entity final class Entry {
    @Attribute(.searchable) var title: String
    @Attribute(.searchable) var body: String?
    var stars: Int
    var day: Int
    init(_ title: String, _ body: String? = nil, stars: Int = 3, day: Int = 0) {
        self.title = title
        self.body = body
        self.stars = stars
        self.day = day
    }
}

/// The same entity before its text was searchable.
@Entity("Entry") final class EntryV1 {
    var title: String
    var body: String?
    var stars: Int
    var day: Int
    init(_ title: String, _ body: String? = nil, stars: Int = 3, day: Int = 0) {
        self.title = title
        self.body = body
        self.stars = stars
        self.day = day
    }
}

/// The entity renamed, and one of its searchable attributes too.
@Entity("Journal", originalName: "Entry") final class Journal {
    @Attribute(.searchable, originalName: "title") var heading: String
    @Attribute(.searchable) var body: String?
    var stars: Int
    var day: Int
    init(_ heading: String) {
        self.heading = heading
        self.stars = 3
        self.day = 0
    }
}

/// Two searchable entities whose full-text tables would collide with FTS5's own.
@Entity final class Log {
    @Attribute(.searchable) var text: String = ""
    init() {}
}

@Entity("Log_data") final class LogData {
    @Attribute(.searchable) var text: String = ""
    init() {}
}

/// A searchable attribute that is not text.
@Entity final class Gauge {
    @Attribute(.searchable) var reading: Int = 0
    init() {}
}

@Suite("Full-text search: @Attribute(.searchable) and ObjectContext.search")
struct SearchTests {
    /// Title, body, stars, day.
    static let entries: [(String, String?, Int, Int)] = [
        ("Sunny day in Paris", "Coffee at the Café de Flore, then the river", 5, 1),
        ("Rain in London", "A grey day; tea and a museum", 2, 2),
        ("Paris again", "Sunny, sunny, sunny: the parks of Paris", 4, 3),
        ("Tokyo 東京", "Ramen 🍜 and a quiet temple", 5, 4),
        ("Zürich", "e\u{301}te\u{301} au lac", 3, 5)
    ]

    static func container(path: String? = nil) throws -> ObjectContainer {
        try ObjectContainer(for: Entry.self, configuration: path.map { .file($0) } ?? .inMemory)
    }

    static func filled(_ context: ObjectContext) throws {
        for (title, body, stars, day) in entries { context.insert(Entry(title, body, stars: stars, day: day)) }
        try context.save()
    }

    @Test("A search finds the objects holding every word, ranked, with snippets that mark the matches")
    func findsRanksAndSnippets() throws {
        let context = try Self.container().newBackgroundContext()
        try Self.filled(context)
        let results = try context.search(Entry.self, matching: "sunny paris")
        #expect(Set(results.map(\.object.title)) == ["Sunny day in Paris", "Paris again"])
        #expect(results.first?.object.title == "Paris again", "three sunnys and two Parises rank first")
        #expect(results.map(\.rank) == results.map(\.rank).sorted())
        let snippet = try #require(results.first?.snippet)
        #expect(snippet.highlights.map { String(snippet.text[$0]) }.allSatisfy { ["Sunny", "sunny", "Paris"].contains($0) })
        #expect(snippet.description.contains("[sunny]") || snippet.description.contains("[Sunny]"))
        #expect(try context.search(Entry.self, matching: "london sunny").isEmpty)
        #expect(try context.search(Entry.self, matching: "   ").isEmpty)
    }

    @Test("Words match as prefixes, whatever their case and diacritics; no input is read as query syntax")
    func foldsCaseAndDiacritics() throws {
        let context = try Self.container().newBackgroundContext()
        try Self.filled(context)
        #expect(try context.search(Entry.self, matching: "cafe").map(\.object.title) == ["Sunny day in Paris"])
        #expect(try context.search(Entry.self, matching: "CAFÉ").map(\.object.title) == ["Sunny day in Paris"])
        #expect(try context.search(Entry.self, matching: "zur").map(\.object.title) == ["Zürich"])
        #expect(try context.search(Entry.self, matching: "ete").map(\.object.title) == ["Zürich"], "combining accents")
        #expect(try context.search(Entry.self, matching: "par").count == 2)
        #expect(try context.search(Entry.self, matching: "東京").map(\.object.title) == ["Tokyo 東京"])
        for hostile in ["\"", "sunny OR rain", "NEAR(a b)", "*", "title:paris", "a\u{0}b", "(", "-"] {
            _ = try context.search(Entry.self, matching: hostile)  // never a syntax error
        }
        #expect(try context.search(Entry.self, matching: "sunny OR rain").isEmpty, "OR is a word here")
    }

    @Test("A predicate and a sort combine with the search")
    func predicateAndSort() throws {
        let context = try Self.container().newBackgroundContext()
        try Self.filled(context)
        let byDay = try context.search(Entry.self, matching: "paris", sortBy: [SortDescriptor(\.day, order: .reverse)])
        #expect(byDay.map(\.object.day) == [3, 1])
        let fiveStars = try context.search(Entry.self, matching: "paris", where: #Predicate { $0.stars == 5 })
        #expect(fiveStars.map(\.object.title) == ["Sunny day in Paris"])
        #expect(try context.search(Entry.self, matching: "paris", limit: 1).count == 1)
    }

    @Test(
        "Unsaved changes are searched: a fresh insert is found before and after its save, a changed text by its new words, a deleted object not at all"
    )
    func unsavedChanges() throws {
        let container = try Self.container()
        let context = container.newBackgroundContext()
        try Self.filled(context)
        let fresh = Entry("Lisbon", "sunny trams and Paris-like cafés", stars: 5, day: 9)
        context.insert(fresh)
        #expect(try context.search(Entry.self, matching: "lisbon").map(\.object) == [fresh])
        #expect(try context.search(Entry.self, matching: "sunny paris").count == 3)
        let rain = try #require(try context.search(Entry.self, matching: "london").first?.object)
        rain.title = "Drizzle in Leeds"
        #expect(try context.search(Entry.self, matching: "london").isEmpty)
        #expect(try context.search(Entry.self, matching: "leeds").map(\.object) == [rain])
        let tokyo = try #require(try context.search(Entry.self, matching: "tokyo").first?.object)
        context.delete(tokyo)
        #expect(try context.search(Entry.self, matching: "ramen").isEmpty)
        let sorted = try context.search(Entry.self, matching: "sunny", sortBy: [SortDescriptor(\.day)])
        #expect(sorted.map(\.object.day) == [1, 3, 9])

        try context.save()
        let reader = container.newBackgroundContext()
        #expect(try reader.search(Entry.self, matching: "lisbon").map(\.object.title) == ["Lisbon"])
        #expect(try reader.search(Entry.self, matching: "leeds").map(\.object.title) == ["Drizzle in Leeds"])
        #expect(try reader.search(Entry.self, matching: "london").isEmpty)
        #expect(try reader.search(Entry.self, matching: "ramen").isEmpty)
    }

    @Test("Undo, a child context, another context's save and batch operations keep the search in step")
    func interplay() throws {
        let container = try Self.container()
        let context = container.newBackgroundContext()
        context.undoManager = ObjectUndoManager()
        try Self.filled(context)
        context.insert(Entry("Oslo fjord"))
        context.undoManager?.undo()
        #expect(try context.search(Entry.self, matching: "oslo").isEmpty)

        // The parent's unsaved changes reach a child made after them.
        context.insert(Entry("Aarhus harbour"))
        let london = try #require(try context.search(Entry.self, matching: "london").first?.object)
        london.title = "Fog in Dublin"
        let child = context.newChildContext()
        #expect(try child.search(Entry.self, matching: "aarhus").map(\.object.title) == ["Aarhus harbour"])
        #expect(try child.search(Entry.self, matching: "dublin").map(\.object.title) == ["Fog in Dublin"])
        #expect(try child.search(Entry.self, matching: "london").isEmpty)
        child.insert(Entry("Oslo fjord"))
        #expect(try child.search(Entry.self, matching: "oslo").count == 1)
        try child.save()
        #expect(try context.search(Entry.self, matching: "oslo").count == 1)
        try context.save()

        let other = container.newBackgroundContext()
        let oslo = try #require(try other.search(Entry.self, matching: "oslo").first?.object)
        oslo.title = "Bergen"
        try other.save()
        #expect(try context.search(Entry.self, matching: "bergen").count == 1)
        #expect(try context.search(Entry.self, matching: "oslo").isEmpty)

        try context.batchInsert(Entry.self, values: [["title": "Batch Helsinki", "stars": 1, "day": 10]])
        #expect(try context.search(Entry.self, matching: "helsinki").count == 1)
        try context.batchUpdate(Entry.self, where: #Predicate { $0.day == 10 }, set: [.set(\.title, to: "Batch Tallinn")])
        #expect(try context.search(Entry.self, matching: "tallinn").count == 1)
        #expect(try context.search(Entry.self, matching: "helsinki").isEmpty)
        try context.batchDelete(Entry.self, where: #Predicate { $0.day == 10 })
        #expect(try context.search(Entry.self, matching: "tallinn").isEmpty)
    }

    @Test(
        "Opening a store builds the index of newly searchable text from its rows, keeps it across opens, and drops it when no text is searchable"
    )
    func migrations() throws {
        let path = temporaryStorePath()
        do {
            let context = try ObjectContainer(for: EntryV1.self, configuration: .file(path)).newBackgroundContext()
            context.insert(EntryV1("Sunny day in Paris"))
            context.insert(EntryV1("Rain in London"))
            try context.save()
        }
        do {
            let context = try Self.container(path: path).newBackgroundContext()
            #expect(try context.search(Entry.self, matching: "paris").map(\.object.title) == ["Sunny day in Paris"])
            context.insert(Entry("Paris again"))
            try context.save()
        }
        let log = StatementLog()
        var configuration = StoreConfiguration.file(path)
        configuration.traceStatements = log.configurationTracing
        do {
            let context = try ObjectContainer(for: Entry.self, configuration: configuration).newBackgroundContext()
            #expect(try context.search(Entry.self, matching: "paris").count == 2)
        }
        #expect(!log.all.contains { $0.contains("'rebuild'") }, "an index as it should be is not made again")
        do {
            let context = try ObjectContainer(for: EntryV1.self, configuration: .file(path)).newBackgroundContext()
            #expect(try context.fetchCount(FetchDescriptor<EntryV1>()) == 3)
            context.insert(EntryV1("No index now"))
            try context.save()
        }
        let tables = try DatabaseQueue(path: path).read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE name LIKE 'Z_FTS%'")
        }
        #expect(tables.isEmpty, "\(tables)")
        let context = try Self.container(path: path).newBackgroundContext()
        #expect(try context.search(Entry.self, matching: "index").map(\.object.title) == ["No index now"], "built again")
    }

    @Test("A renamed entity and attribute keep their text searchable")
    func renames() throws {
        let path = temporaryStorePath()
        do {
            let context = try Self.container(path: path).newBackgroundContext()
            try Self.filled(context)
        }
        let context = try ObjectContainer(for: Journal.self, configuration: .file(path)).newBackgroundContext()
        #expect(Set(try context.search(Journal.self, matching: "paris").map(\.object.heading)) == ["Sunny day in Paris", "Paris again"])
        context.insert(Journal("Paris once more"))
        try context.save()
        #expect(try context.search(Journal.self, matching: "paris").count == 3)
        let tables = try DatabaseQueue(path: path).read { db in
            try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z_FTS%' AND sql LIKE 'CREATE VIRTUAL%'")
        }
        #expect(tables == ["Z_FTS_Journal"])
    }

    @Test("Searching an entity without searchable text, or declaring other than text searchable, is refused naming the entity")
    func refusals() throws {
        let context = try ObjectContainer(for: EntryV1.self, configuration: .inMemory).newBackgroundContext()
        let error = #expect(throws: ObjectGraphError.self) { _ = try context.search(EntryV1.self, matching: "x") }
        #expect(error?.code == .invalidPropertyAccess && error?.entity == "Entry")
        let model = invalidModelMessage { _ = try Schema(Gauge.self) }
        #expect(model?.contains("Gauge.reading") == true)
        let clash = invalidModelMessage { _ = try ObjectContainer(for: Log.self, LogData.self, configuration: .inMemory) }
        #expect(clash?.contains("Z_FTS_Log_data") == true, "\(clash ?? "")")
    }
}
