package import GRDB
package import ObjectGraphModel

/// An entity's full-text index: an SQLite FTS5 table over its searchable attributes
/// (`@Attribute(.searchable)`), whose content is the entity's own table, kept in step by triggers
/// on that table. The triggers run inside the statement that writes a row, so the index changes in
/// the transaction that changes the text, whoever writes it: a save, a batch operation, a
/// migration stage's code, another process.
///
/// Text is split into words by FTS5's `unicode61` tokenizer, which folds case and removes
/// diacritics (`remove_diacritics 2`): "Café" is found by "cafe".
package struct SearchIndex: Sendable, Equatable {
    /// The FTS5 table's name.
    package let table: String
    /// The entity's table.
    package let contentTable: String
    /// The indexed columns, in order.
    package let columns: [String]

    /// The tokenizer, the same for the stored index and for unsaved text (see ``PendingSearch``).
    package static let tokenizer = "unicode61 remove_diacritics 2"
    /// Every full-text table's name starts with this.
    static let prefix = "Z_FTS_"
    /// The tables FTS5 makes beside a full-text table, named with these suffixes.
    static let shadowSuffixes = ["_data", "_idx", "_content", "_docsize", "_config"]

    /// The index of `description`'s searchable attributes; nil when it has none. The entities of
    /// a hierarchy (see ``EntityHierarchy``) share one index, their root's, over the searchable
    /// attributes of all of them: a search of any of them reads it, for the rows its query selects.
    package init?(_ description: EntityDescription, among entities: [EntityDescription]) {
        let root = EntityHierarchy.table(of: description.name, among: entities)
        var columns: [String] = []
        let members = entities.filter { EntityHierarchy.table(of: $0.name, among: entities) == root }
        // The root's own first, then each subentity's, by name: one order for every member.
        for member in members.sorted(by: { ($0.name != root ? 1 : 0, $0.name) < ($1.name != root ? 1 : 0, $1.name) }) {
            for column in member.searchableAttributes where !columns.contains(column) { columns.append(column) }
        }
        guard !columns.isEmpty else { return nil }
        self.table = Self.prefix + root
        self.contentTable = root
        self.columns = columns
    }

    /// The statements that make it, by the name SQLite keeps each under: the table, then the
    /// triggers that follow inserts, deletions and updates of the indexed columns.
    var definitions: [(name: String, sql: String)] {
        let quotedColumns = columns.map(SQL.quote)
        let table = SQL.quote(self.table)
        let content = SQL.quote(contentTable)
        let newValues = (["new.Z_PK"] + quotedColumns.map { "new." + $0 }).joined(separator: ", ")
        let oldValues = (["'delete'", "old.Z_PK"] + quotedColumns.map { "old." + $0 }).joined(separator: ", ")
        let insertColumns = (["rowid"] + quotedColumns).joined(separator: ", ")
        let deleteColumns = ([table, "rowid"] + quotedColumns).joined(separator: ", ")
        let insert = "INSERT INTO \(table)(\(insertColumns)) VALUES (\(newValues));"
        let delete = "INSERT INTO \(table)(\(deleteColumns)) VALUES (\(oldValues));"
        return [
            (
                self.table,
                "CREATE VIRTUAL TABLE \(table) USING fts5(\(quotedColumns.joined(separator: ", ")), "
                    + "content=\(SQL.literal(contentTable.databaseValue)), content_rowid='Z_PK', "
                    + "tokenize=\(SQL.literal(Self.tokenizer.databaseValue)))"
            ),
            (self.table + "_ai", "CREATE TRIGGER \(SQL.quote(self.table + "_ai")) AFTER INSERT ON \(content) BEGIN \(insert) END"),
            (self.table + "_ad", "CREATE TRIGGER \(SQL.quote(self.table + "_ad")) AFTER DELETE ON \(content) BEGIN \(delete) END"),
            (
                self.table + "_au",
                "CREATE TRIGGER \(SQL.quote(self.table + "_au")) AFTER UPDATE OF \(quotedColumns.joined(separator: ", ")) "
                    + "ON \(content) BEGIN \(delete) \(insert) END"
            )
        ]
    }

    /// Brings the store's full-text indexes in line with `entities`: an index that is missing, or
    /// was made for other columns or another table (a renamed entity or attribute, a table made
    /// again by a format upgrade), is made again and filled from the rows; an index no entity has
    /// any more is dropped. An index already as it should be is left alone.
    package static func synchronize(_ db: Database, entities: [EntityDescription]) throws {
        // One per table: a hierarchy's entities share their root's.
        let wanted = entities.filter { $0.parentEntity == nil }.compactMap { SearchIndex($0, among: entities) }
        let existing = try Row.fetchAll(
            db, sql: "SELECT type, name, sql FROM sqlite_master WHERE name LIKE ? ESCAPE '\\'",
            arguments: [prefix.replacingOccurrences(of: "_", with: "\\_") + "%"])
        var stored: [String: String] = [:]
        for row in existing {
            let type: String = row["type"]
            guard type == "table" || type == "trigger", let name: String = row["name"], let sql: String = row["sql"] else { continue }
            stored[name] = sql
        }
        let wantedTables = Set(wanted.map(\.table))
        for name in stored.keys where stored[name]?.hasPrefix("CREATE VIRTUAL TABLE") == true && !wantedTables.contains(name) {
            try drop(table: name, db)
        }
        for index in wanted where !index.definitions.allSatisfy({ stored[$0.name] == $0.sql }) {
            try drop(table: index.table, db)
            for definition in index.definitions { try db.execute(sql: definition.sql) }
            try db.execute(sql: "INSERT INTO \(SQL.quote(index.table))(\(SQL.quote(index.table))) VALUES ('rebuild')")
        }
    }

    /// Drops a full-text table and its triggers.
    private static func drop(table: String, _ db: Database) throws {
        for suffix in ["_ai", "_ad", "_au"] { try db.execute(sql: "DROP TRIGGER IF EXISTS \(SQL.quote(table + suffix))") }
        try db.execute(sql: "DROP TABLE IF EXISTS \(SQL.quote(table))")
    }

    /// An FTS5 query matching text that holds every word of `text`, each as a prefix of a word:
    /// "sun par" matches "Sunny day in Paris". Every word is quoted, so no input is read as FTS5
    /// syntax, and NUL separates words (FTS5 reads a query as a C string, which NUL would end);
    /// nil when `text` holds no word.
    package static func pattern(matching text: String) -> String? {
        let words = text.split { $0.isWhitespace || $0 == "\u{0}" }
        guard !words.isEmpty else { return nil }
        return words.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"*" }.joined(separator: " ")
    }
}
