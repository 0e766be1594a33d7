import GRDB
import ObjectGraphModel

/// Unsaved text, matched as the store's full-text index matches saved text: by SQLite itself, in a
/// private in-memory database holding an FTS5 table of the same tokenizer, filled with the
/// unsaved objects' text and queried with the same pattern. A Swift reimplementation of FTS5's
/// word splitting, case folding and diacritics removal would be a second answer to get wrong.
package enum PendingSearch {
    /// One document that matched: its position in the documents given, its rank among them
    /// (`bm25`, lower is better: computed over these documents, not the store's), and its snippet.
    package struct Match: Sendable {
        package let document: Int
        package let rank: Double
        package let snippet: String
    }

    /// The documents that match `pattern`, best first.
    ///
    /// - Parameters:
    ///   - documents: Each document's text, a value per column of the index (nil for none).
    ///   - columns: The number of columns.
    /// - Throws: ``StoreError`` when SQLite refuses the pattern or the text.
    package static func matches(_ documents: [[String?]], columns: Int, pattern: String) throws -> [Match] {
        guard !documents.isEmpty, columns > 0 else { return [] }
        do {
            return try DatabaseQueue().write { db in
                let names = (0..<columns).map { "c\($0)" }
                try db.execute(
                    sql: "CREATE VIRTUAL TABLE p USING fts5(\(names.joined(separator: ", ")), "
                        + "tokenize=\(SQL.literal(SearchIndex.tokenizer.databaseValue)))")
                let insert = try db.makeStatement(
                    sql: "INSERT INTO p(rowid, \(names.joined(separator: ", "))) VALUES (?, \(SQL.placeholders(columns)))")
                for (position, texts) in documents.enumerated() {
                    try insert.execute(arguments: StatementArguments([Int64(position).databaseValue] + texts.map(\.databaseValue)))
                }
                let marks = SearchSnippetMarks.self
                return try Row.fetchAll(
                    db,
                    sql: """
                        SELECT rowid, bm25(p), snippet(p, -1, '\(marks.start)', '\(marks.end)', '\(marks.ellipsis)', \(marks.words)) \
                        FROM p WHERE p MATCH ? ORDER BY bm25(p), rowid
                        """, arguments: [pattern]
                ).map { row in Match(document: Int(row[0] as Int64), rank: row[1], snippet: row[2] ?? "") }
            }
        } catch {
            throw StoreError(error)
        }
    }
}
