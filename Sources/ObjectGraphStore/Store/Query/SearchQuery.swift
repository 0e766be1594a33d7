package import ObjectGraphModel

/// The SQL of a full-text search: a fetch's query (its predicate, marks and sort) joined with the
/// entity's full-text index, matching a pattern (see ``SearchIndex/pattern(matching:)``). Each row
/// is ``EntityMapping/selectList``, then the match's rank (FTS5's `bm25`: lower is better), then
/// its snippet (see ``SearchSnippetMarks``).
package struct SearchQuery {
    package let select: SelectQuery
    package let index: SearchIndex

    /// - Throws: ``ObjectGraphError/invalidPropertyAccess(entity:property:reason:)`` when the
    ///   entity has no searchable attribute.
    package init(_ select: SelectQuery, entities: [EntityDescription]) throws {
        guard let index = SearchIndex(select.mapping.description, among: entities) else {
            throw ObjectGraphError.invalidPropertyAccess(
                entity: select.mapping.name, property: "",
                reason: "the entity has no searchable attribute: declare one with @Attribute(.searchable)")
        }
        self.select = select
        self.index = index
    }

    /// The query; by rank unless `sorted` (then by the fetch's sort), leaving out the rows of
    /// `excludingKeys`.
    package func sql(pattern: String, sorted: Bool, limit: Int?, excludingKeys: some Collection<Int64>) -> SQLFragment {
        let table = SQL.quote(index.table)
        let rank = "bm25(\(table))"
        let marks = SearchSnippetMarks.self
        var fragment = SQLFragment(
            """
            SELECT \(select.mapping.selectList), \(rank), \
            snippet(\(table), -1, '\(marks.start)', '\(marks.end)', '\(marks.ellipsis)', \(marks.words)) \
            FROM \(select.mapping.table) AS t0 JOIN \(table) ON \(table).rowid = t0.Z_PK WHERE \(table) MATCH ?
            """, arguments: [pattern.databaseValue])
        if let condition = select.whereCondition(excludingKeys: excludingKeys) { fragment = fragment + " AND (" + condition + ")" }
        fragment = fragment + SQLFragment(" ORDER BY " + (sorted ? select.orderBy : "\(rank), t0.Z_PK"))
        if let limit { fragment = fragment + SQLFragment(" LIMIT \(max(0, limit))") }
        return fragment
    }
}

/// How a snippet marks the words that matched, and what stands for text left out: characters of
/// Unicode's private use area, which text rarely holds, so that the context can turn them into
/// ranges (see `SearchSnippet`).
package enum SearchSnippetMarks {
    package static let startScalar: Unicode.Scalar = "\u{E000}"
    package static let endScalar: Unicode.Scalar = "\u{E001}"
    package static let start = String(startScalar)
    package static let end = String(endScalar)
    package static let ellipsis = "…"
    /// The most words a snippet holds.
    package static let words = 12
}
