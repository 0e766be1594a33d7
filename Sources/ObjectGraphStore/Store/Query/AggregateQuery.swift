package import ObjectGraphModel

/// The SQL of an aggregate: `SELECT COUNT(x), SUM(x), MIN(x), MAX(x) [, groups…] FROM … WHERE …
/// [GROUP BY groups…]` over a fetch's rows, the rows of objects evaluated in memory left out.
package struct AggregateQuery {
    package let select: SelectQuery
    /// The aggregated attribute's SQL, or nil for a count of rows.
    private let value: String?
    /// The grouping attributes' SQL, in order.
    private let groups: [String]
    /// What the predicate, the aggregated attribute and the grouping read: objects whose related
    /// objects changed any of it are evaluated in memory.
    package let reads: PropertyReads

    /// Translates the attribute aggregated and those grouped by.
    ///
    /// - Throws: ``ObjectGraphError/unsupportedPredicate(entity:construct:)`` for a key path that is
    ///   not an attribute of the entity or of a to-one relationship's destination, or an attribute
    ///   whose kind the function does not take.
    package init(
        _ select: SelectQuery, function: AggregateFunction, keyPath: AnyKeyPath?, groupedBy groupKeyPaths: [AnyKeyPath],
        store: SQLiteStore
    ) throws {
        self.select = select
        let mapping = select.mapping
        var reads = select.reads
        func refuse(_ construct: String) -> ObjectGraphError {
            .unsupportedPredicate(entity: mapping.name, construct: construct)
        }
        if let keyPath {
            guard let attribute = SortTranslator.attribute(at: keyPath, mapping: mapping, store: store, reads: &reads) else {
                throw refuse(
                    "an aggregate of \(keyPath): aggregate an attribute of \(mapping.name) or of an object related to it by a to-one relationship"
                )
            }
            let allowed: Set<AttributeType>? =
                switch function {
                case .count: nil  // any attribute: its non-nil values are counted
                case .sum, .average: [.integer, .double]
                case .minimum, .maximum: [.integer, .double, .date, .string]
                }
            if let allowed, !allowed.contains(attribute.type) {
                throw refuse("the \(function) of \(keyPath), a \(attribute.type) attribute: it takes \(allowed.map(\.rawValue).sorted())")
            }
            value = attribute.sql
        } else {
            value = nil
        }
        groups = try groupKeyPaths.map { groupKeyPath in
            guard let attribute = SortTranslator.attribute(at: groupKeyPath, mapping: mapping, store: store, reads: &reads) else {
                throw refuse(
                    "grouping by \(groupKeyPath): group by an attribute of \(mapping.name) or of an object related to it by a to-one relationship"
                )
            }
            guard attribute.type != .decimal else {
                throw refuse("grouping by \(groupKeyPath), a decimal attribute, which SQL would group as rounded numbers")
            }
            return attribute.sql
        }
        self.reads = reads
    }

    /// The statement: per group (one row without grouping), the count, sum, minimum and maximum of
    /// the values, then the group's values.
    package func sql(excludingKeys: some Collection<Int64>) -> SQLFragment {
        let columns =
            value.map { "COUNT(\($0)), SUM(\($0)), MIN(\($0)), MAX(\($0))" } ?? "COUNT(*), NULL, NULL, NULL"
        let groupList = groups.joined(separator: ", ")
        var fragment = SQLFragment("SELECT \(columns)\(groups.isEmpty ? "" : ", " + groupList) FROM \(select.mapping.table) AS t0")
        if let condition = select.whereCondition(excludingKeys: excludingKeys) { fragment = fragment + " WHERE " + condition }
        if !groups.isEmpty { fragment = fragment + SQLFragment(" GROUP BY \(groupList)") }
        return fragment
    }

    /// How many columns each row of ``sql(excludingKeys:)`` has.
    package var columnCount: Int { 4 + groups.count }
}
