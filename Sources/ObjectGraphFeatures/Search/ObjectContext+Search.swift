public import Foundation
public import ObjectGraphContext
public import ObjectGraphModel

/// Full-text search over the attributes declared `@Attribute(.searchable)`.
extension ObjectContext {
    /// The objects whose searchable text holds every word of `text`, best match first.
    ///
    /// ```swift
    /// let results = try context.search(Mood.self, matching: "sunny par", where: #Predicate { $0.rating > 3 })
    /// for result in results { print(result.object.text, result.snippet) }
    /// ```
    ///
    /// Each word of `text` matches the words of the text that start with it ("par" finds
    /// "Paris"), whatever their case and diacritics ("cafe" finds "Café"), as SQLite FTS5's
    /// `unicode61` tokenizer splits and folds them; no character of `text` is read as query syntax.
    /// The context's unsaved changes are searched too, with the same tokenizer: an inserted or
    /// changed object is matched by its text as it is now, a deleted one is left out.
    ///
    /// - Parameters:
    ///   - type: The entity; it must have a searchable attribute.
    ///   - text: The words to find; none finds nothing.
    ///   - predicate: What the objects must also meet, as in a fetch.
    ///   - sortBy: The order of the results; by rank (``SearchResult/rank``) when empty.
    ///   - limit: The most results.
    /// - Returns: The matches, each with its rank and a snippet. An unsaved object's rank is
    ///   computed among the unsaved objects that match, and ranked with the saved ones by it.
    /// - Throws: ``ObjectGraphError/invalidPropertyAccess(entity:property:reason:)`` when the entity
    ///   has no searchable attribute, and the errors of ``fetch(_:)``.
    public func search<T: Entity>(
        _ type: T.Type = T.self, matching text: String, where predicate: Predicate<T>? = nil,
        sortBy: [SortDescriptor<T>] = [], limit: Int? = nil
    ) throws -> [SearchResult<T>] {
        let use = beginUse()
        defer { use.end() }
        mergeIncomingChanges()
        let request = FetchDescriptor<T>(predicate: predicate, sortBy: sortBy)
        let query = try FetchQuery(request: request, context: self)
        let pending = try pendingObjects(of: query)
        let stored = try query.search(text, sorted: !sortBy.isEmpty, limit: limit, excluding: pending.map(\._$state.id))
        let unsaved = try query.searchUnsaved(try matching(pending, request), matching: text)
        let marks = FetchQuery<T>.snippetMarks
        var results =
            stored.map { result in
                SearchResult(
                    object: unsafeDowncast(result.object, to: T.self), rank: result.rank,
                    snippet: SearchSnippet(marked: result.snippet, start: marks.start, end: marks.end))
            }
            + unsaved.compactMap { result in
                (result.object as? T).map {
                    SearchResult(
                        object: $0, rank: result.rank, snippet: SearchSnippet(marked: result.snippet, start: marks.start, end: marks.end))
                }
            }
        if !unsaved.isEmpty {
            // Saved matches come ordered by SQL; the merge keeps that order among equals.
            let ordered = results.enumerated().sorted { lhs, rhs in
                if !sortBy.isEmpty {
                    if sortBy.orders(lhs.element.object, before: rhs.element.object) { return true }
                    if sortBy.orders(rhs.element.object, before: lhs.element.object) { return false }
                } else if lhs.element.rank != rhs.element.rank {
                    return lhs.element.rank < rhs.element.rank
                }
                return lhs.offset < rhs.offset
            }
            results = ordered.map(\.element)
        }
        if let limit, results.count > limit { results = Array(results.prefix(max(0, limit))) }
        return results
    }
}
