public import Foundation
public import ObjectGraphContext
public import ObjectGraphModel

/// Aggregates: counts, sums, averages, minimums and maximums computed by SQL, with this context's
/// unsaved changes taken into account as fetches take them.
extension ObjectContext {
    /// Computes an aggregate over the objects matching a predicate.
    ///
    /// ```swift
    /// let stars = try context.aggregate(.sum(\Mood.rating))
    /// let mean = try context.aggregate(.average(\Mood.rating), where: #Predicate { $0.rating > 1 })
    /// ```
    ///
    /// SQL computes it over the saved rows; the objects this context inserted, changed or deleted
    /// (and those whose related objects changed what the predicate reads) are evaluated in memory
    /// instead of their rows, so the result is what a fetch of the same objects would give.
    ///
    /// - Parameters:
    ///   - aggregate: What to compute (see ``Aggregate``).
    ///   - type: The entity, for an aggregate that does not name it (`.count`).
    ///   - predicate: Which objects; nil for all.
    ///   - includesMarkedForDeletion: Whether objects marked for deletion (``DelayedDeletable``)
    ///     count, as for ``FetchDescriptor/includesMarkedForDeletion``.
    /// - Returns: The aggregate's value.
    /// - Throws: ``ObjectGraphError/unsupportedPredicate(entity:construct:)`` for a predicate or key
    ///   path without an SQL translation or an attribute the function does not take,
    ///   ``ObjectGraphError/store(_:)`` (an integer sum that overflows among them).
    public func aggregate<T: Entity, Result>(
        _ aggregate: Aggregate<T, Result>, of type: T.Type = T.self, where predicate: Predicate<T>? = nil,
        includesMarkedForDeletion: Bool = false
    ) throws -> Result {
        let totals = try self.totals(aggregate, groups: [], predicate: predicate, includesMarkedForDeletion: includesMarkedForDeletion)
        return try aggregate.result(totals[[]] ?? AggregateTotals())
    }

    /// Computes an aggregate for each value of an attribute among the objects matching a predicate
    /// (SQL's `GROUP BY`).
    ///
    /// ```swift
    /// let meanByCountry = try context.aggregate(.average(\Mood.rating), groupedBy: \.country?.name)
    /// // ["France": 4.5, "Spain": 3.0, nil: 2.0]   (nil: moods without a country)
    /// ```
    ///
    /// - Parameters:
    ///   - aggregate: What to compute for each group.
    ///   - type: The entity, for an aggregate that does not name it (`.count`).
    ///   - keyPath: The attribute whose values make the groups: one of the entity's, or one reached
    ///     through a to-one relationship. Decimal attributes do not group.
    ///   - predicate: Which objects; nil for all.
    ///   - includesMarkedForDeletion: Whether objects marked for deletion count.
    /// - Returns: The aggregate of each group, by the group's value; a group exists when at least one
    ///   object matching the predicate has its value.
    /// - Throws: The errors of ``aggregate(_:of:where:includesMarkedForDeletion:)``.
    public func aggregate<T: Entity, Result, Group: AttributeValue & Hashable>(
        _ aggregate: Aggregate<T, Result>, of type: T.Type = T.self, groupedBy keyPath: any KeyPath<T, Group> & Sendable,
        where predicate: Predicate<T>? = nil, includesMarkedForDeletion: Bool = false
    ) throws -> [Group: Result] {
        let totals = try self.totals(
            aggregate, groups: [Self.group(keyPath)], predicate: predicate, includesMarkedForDeletion: includesMarkedForDeletion)
        var results: [Group: Result] = [:]
        for (key, groupTotals) in totals {
            results[try Group(checkedStoredValue: key[0])] = try aggregate.result(groupTotals)
        }
        return results
    }

    /// Computes an aggregate for each pair of values of two attributes among the objects matching a
    /// predicate (SQL's `GROUP BY first, second`).
    ///
    /// ```swift
    /// let counts = try context.aggregate(.count, of: Mood.self, groupedBy: \.country?.name, \.rating)
    /// counts[AggregateGroup("France", 5)]   // French five-star moods
    /// ```
    ///
    /// - Parameters:
    ///   - aggregate: What to compute for each group.
    ///   - type: The entity, for an aggregate that does not name it (`.count`).
    ///   - first: The first attribute whose values make the groups (see
    ///     ``aggregate(_:of:groupedBy:where:includesMarkedForDeletion:)``).
    ///   - second: The second one.
    ///   - predicate: Which objects; nil for all.
    ///   - includesMarkedForDeletion: Whether objects marked for deletion count.
    /// - Returns: The aggregate of each group, by the group's pair of values.
    /// - Throws: The errors of ``aggregate(_:of:where:includesMarkedForDeletion:)``.
    public func aggregate<T: Entity, Result, First: AttributeValue & Hashable, Second: AttributeValue & Hashable>(
        _ aggregate: Aggregate<T, Result>, of type: T.Type = T.self,
        groupedBy first: any KeyPath<T, First> & Sendable, _ second: any KeyPath<T, Second> & Sendable,
        where predicate: Predicate<T>? = nil, includesMarkedForDeletion: Bool = false
    ) throws -> [AggregateGroup<First, Second>: Result] {
        let totals = try self.totals(
            aggregate, groups: [Self.group(first), Self.group(second)], predicate: predicate,
            includesMarkedForDeletion: includesMarkedForDeletion)
        var results: [AggregateGroup<First, Second>: Result] = [:]
        for (key, groupTotals) in totals {
            let group = AggregateGroup(try First(checkedStoredValue: key[0]), try Second(checkedStoredValue: key[1]))
            results[group] = try aggregate.result(groupTotals)
        }
        return results
    }

    /// A grouping attribute: its key path, and how to read an object's value of it.
    private static func group<T: Entity, Value: AttributeValue>(
        _ keyPath: any KeyPath<T, Value> & Sendable
    ) -> (keyPath: AnyKeyPath, read: (T) throws -> StoredValue) {
        (keyPath, { try $0[keyPath: keyPath].checkedStoredValue() })
    }

    /// The totals of each group, by the group's values (one group, `[]`, without grouping), from
    /// SQL over the saved rows and from memory over the objects with unsaved changes.
    private func totals<T: Entity, Result>(
        _ aggregate: Aggregate<T, Result>, groups: [(keyPath: AnyKeyPath, read: (T) throws -> StoredValue)],
        predicate: Predicate<T>?, includesMarkedForDeletion: Bool
    ) throws -> [[StoredValue]: AggregateTotals] {
        let use = beginUse()
        defer { use.end() }
        mergeIncomingChanges()
        let request = FetchDescriptor<T>(predicate: predicate, includesMarkedForDeletion: includesMarkedForDeletion)
        let (rows, pending) = try FetchQuery(request: request, context: self)
            .aggregate(aggregate.function, of: aggregate.keyPath, groupedBy: groups.map(\.keyPath))
        let entity = T.entityName
        var totals: [[StoredValue]: AggregateTotals] = [:]
        for row in rows {
            guard case .integer(let count) = row[0] else { continue }
            let key = Array(row[4...])
            try totals[key, default: AggregateTotals()].add(count: count, sum: row[1], minimum: row[2], maximum: row[3], entity: entity)
        }
        for object in try matching(pending, request) {
            let key = try groups.map { try $0.read(object) }
            try totals[key, default: AggregateTotals()].add(aggregate.read(object), entity: entity)
        }
        return totals
    }
}
