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

    @Test func aNonFiniteDefaultValueIsRefusedAtModelTime() throws {
        guard let message = invalidModelMessage({ _ = try Schema(InfiniteDefault.self) }) else { return }
        #expect(message.contains("InfiniteDefault.limit"))
    }
}

@Entity final class InfiniteDefault {
    var limit = Double.infinity
    init() {}
}
