public import ObjectGraphContext
public import ObjectGraphModel

/// How SQLite runs a fetch: for checking that an index serves a predicate or a sort.
extension ObjectContext {
    /// How SQLite plans the query of a request: the lines of its `EXPLAIN QUERY PLAN`, in order,
    /// as SQLite words them (`SEARCH t0 USING INDEX Z7_Country_name (name=?)`, `SCAN t0`,
    /// `USE TEMP B-TREE FOR ORDER BY`…), what Core Data's SQL debug output shows.
    ///
    /// Text is stored precomposed and compared with SQLite's binary collation (see <doc:Fetching>),
    /// so an index on a text attribute serves equality, ranges and sorts as on any other column;
    /// a character-level test (`contains`, `starts(with:)`, a case-insensitive comparison) runs
    /// Swift's own code on each row it tests, which no index narrows.
    ///
    /// ```swift
    /// let plan = try context.queryPlan(for: FetchDescriptor<Country>(predicate: #Predicate { $0.name == "France" }))
    /// // ["SEARCH t0 USING INDEX Z7_Country_name (name=?)", "USE TEMP B-TREE FOR ORDER BY"]
    /// // (every fetch ends its order with the row's key: here, of the one row found)
    /// ```
    ///
    /// The plan is the store's query only: the context's unsaved changes, which a fetch evaluates
    /// in memory, are not part of it.
    ///
    /// - Parameter request: What a fetch would read: entity, predicate, sort and window.
    /// - Returns: The plan's lines, each SQLite's `detail` text.
    /// - Throws: The errors of ``fetch(_:)``.
    public func queryPlan<T: Entity>(for request: FetchDescriptor<T>) throws -> [String] {
        let use = beginUse()
        defer { use.end() }
        return try FetchQuery(request: request, context: self).queryPlan(limit: request.fetchLimit, offset: request.fetchOffset)
    }
}
