import Foundation
import GRDB
import ObjectGraph
import Testing

/// Schema edge cases (issue 10, point 6).
@Suite struct SchemaEdgeCaseTests {
    /// The indexed columns of a store file, as "table.column".
    static func indexedColumns(_ path: String) throws -> Set<String> {
        try DatabaseQueue(path: path).read { db in
            var columns: Set<String> = []
            for table in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'") {
                for index in try db.indexes(on: table) {
                    for column in index.columns { columns.insert("\(table).\(column)") }
                }
            }
            return columns
        }
    }

    @Test func generatedIndexNamesDoNotCollide() throws {
        let path = temporaryStorePath()
        do { _ = try ObjectContainer(for: A_b.self, A.self, configuration: .file(path)) }
        let indexed = try Self.indexedColumns(path)
        #expect(indexed.contains("A_b.c"))
        #expect(indexed.contains("A.b_c"))
    }

    @Test func joinTablesWhoseNamesWouldCollideAreRefusedAtModelTime() throws {
        guard let message = invalidModelMessage({ _ = try ObjectContainer(for: Y.self, configuration: .inMemory) }) else { return }
        #expect(message.contains("J_k.l") && message.contains("J.k_l"))
    }

    /// `@Entity` leaves out the placeholder of a property spelled `T?` or `T!` (nil initializes it)
    /// and keeps it for `Optional<T>` (nothing does): each spelling must still compile and read
    /// what the store holds once fetched.
    @Test func everySpellingOfAnOptionalPropertyReadsWhatTheStoreHolds() throws {
        let container = try ObjectContainer(for: OptionalSpellings.self, configuration: .inMemory)
        let writer = container.newBackgroundContext()
        writer.insert(OptionalSpellings(sugared: "a", unwrapped: 1, spelled: 2.5))
        writer.insert(OptionalSpellings(sugared: nil, unwrapped: nil, spelled: nil))
        try writer.save()
        let reader = container.newBackgroundContext()
        var read: Set<String> = []
        for object in try reader.fetch(FetchDescriptor<OptionalSpellings>()) {
            let unwrapped: Int? = object.unwrapped
            let spelled: Double? = object.spelled
            read.insert("\(object.sugared ?? "nil") \(unwrapped.map { "\($0)" } ?? "nil") \(spelled.map { "\($0)" } ?? "nil")")
        }
        #expect(read == ["nil nil nil", "a 1 2.5"])
    }

    @Test func aNonFiniteDefaultValueIsRefusedAtModelTime() throws {
        guard let message = invalidModelMessage({ _ = try Schema(InfiniteDefault.self) }) else { return }
        #expect(message.contains("InfiniteDefault.limit"))
    }
}

@Entity final class InfiniteDefault {
    var limit = Double.infinity
    init() {}
}

@Entity final class OptionalSpellings {
    var sugared: String?
    var unwrapped: Int!
    var spelled: Optional<Double>

    init(sugared: String?, unwrapped: Int?, spelled: Double?) {
        self.sugared = sugared
        self.unwrapped = unwrapped
        self.spelled = spelled
    }
}
