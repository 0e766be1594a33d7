package import ObjectGraphModel

/// The SQL of a fetch: its entity's table aliased `t0`, the translated predicate and sort.
package struct SelectQuery {
    package let mapping: EntityMapping
    package let condition: SQLFragment?
    /// Whether evaluating the condition can fail (an overflow, say: see ``PredicateFailure``). Then
    /// it runs only on the rows it selects from, after the tests that rule rows out (marked rows,
    /// rows evaluated in memory), which SQLite would otherwise be free to run after it.
    package let mayFail: Bool
    /// Whether the condition reads only the rows' own attributes and keys: then, in a transaction that
    /// changes no attribute of the entity, it selects the same rows again.
    package let readsOnlyOwnColumns: Bool
    package let orderBy: String
    /// What the condition and the order read.
    package let reads: PropertyReads

    /// Translates a descriptor's predicate and sort.
    ///
    /// - Throws: ``ObjectGraphError/unknownEntity(_:)``, or
    ///   ``ObjectGraphError/unsupportedPredicate(entity:construct:)`` for a predicate or sort with no
    ///   SQL translation.
    package init<T: Entity>(_ descriptor: FetchDescriptor<T>, store: SQLiteStore) throws {
        guard let mapping = store.mapping(for: T._$entity) else {
            throw ObjectGraphError.unknownEntity(T._$entity.name)
        }
        self.mapping = mapping
        let translated = try descriptor.predicate.map {
            try PredicateTranslator.condition(for: $0, mapping: mapping, store: store)
        }
        var condition = translated?.0
        var reads = translated?.reads ?? PropertyReads()
        let mayFail = translated?.mayFail ?? false
        readsOnlyOwnColumns = !reads.followsRelationships
        if !descriptor.includesMarkedForDeletion, let slot = mapping.markedForDeletionSlot {
            // Read like any filtered attribute: a row unmarked elsewhere belongs in the results again.
            reads.read(mapping.declaration.layout.attributeProperties[slot], of: mapping)
            let unmarked = SQLFragment("t0.\(mapping.quotedAttributeColumns[slot]) IS NULL")
            condition = condition.map { Self.guarded($0, by: unmarked, mayFail: mayFail) } ?? unmarked
        }
        if let entities = mapping.hierarchy?.condition {
            // The rows of this entity and its subentities, first: the table holds a hierarchy's.
            condition = condition.map { Self.guarded($0, by: SQLFragment(entities), mayFail: mayFail) } ?? SQLFragment(entities)
        }
        self.condition = condition
        self.mayFail = mayFail
        // The primary key ends every order: results are deterministic (equal sort keys keep their
        // order, so pages of limit/offset never overlap), and the batches of a batched fetch are key
        // ranges.
        self.orderBy =
            (try SortTranslator.orderBy(descriptor.sortBy, mapping: mapping, store: store, reads: &reads)
            + ["t0.Z_PK"]).joined(separator: ", ")
        self.reads = reads
    }

    /// The keys of every matching row, in no particular order (a batch operation's rows: sorting
    /// them would cost SQLite a sort of the result where an index walk gives them directly).
    package var matchingKeys: SQLFragment {
        let fragment = SQLFragment("SELECT t0.Z_PK FROM \(mapping.table) AS t0")
        return condition.map { fragment + " WHERE " + $0 } ?? fragment
    }

    /// What a query selects.
    package enum Selection {
        /// The rows' columns, for objects (``EntityMapping/selectList``).
        case rows
        /// The rows' keys.
        case keys
        /// The number of rows.
        case count
        /// The rows' keys, then the values at these positions (``EntityMapping/valueColumns``).
        case keysAndValues([Int])
        /// The rows' keys and the entities they are of (``EntityHierarchy/entityColumn``), for an
        /// entity with subentities.
        case keysAndEntities

        package func columns(of mapping: EntityMapping) -> String {
            switch self {
            case .rows: mapping.selectList
            case .keys: "t0.Z_PK"
            case .count: "COUNT(*)"
            case .keysAndValues(let positions): (["t0.Z_PK"] + positions.map { mapping.valueColumns[$0] }).joined(separator: ", ")
            case .keysAndEntities: "t0.Z_PK, t0.\(EntityHierarchy.entityColumn)"
            }
        }
    }

    /// `condition` for the rows that pass `test`: `test AND condition`, or, when the condition can
    /// fail, a `CASE` that evaluates it only for those rows.
    private static func guarded(_ condition: SQLFragment, by test: SQLFragment, mayFail: Bool) -> SQLFragment {
        mayFail ? "(CASE WHEN " + test + " THEN (" + condition + ") ELSE 0 END)" : test + " AND (" + condition + ")"
    }

    /// The `WHERE` clause's condition, leaving out the rows of `excludingKeys`; nil for every row.
    package func whereCondition(excludingKeys: some Collection<Int64>) -> SQLFragment? {
        guard !excludingKeys.isEmpty else { return condition }
        let kept = "t0.Z_PK NOT IN " + SQL.list(excludingKeys.map(\.databaseValue))
        return condition.map { Self.guarded($0, by: kept, mayFail: mayFail) } ?? kept
    }

    /// `SELECT … FROM table AS t0 WHERE … ORDER BY … LIMIT … OFFSET …`, leaving out the rows of
    /// `excludingKeys`.
    package func sql(_ selection: Selection, limit: Int?, offset: Int, excludingKeys: some Collection<Int64>) -> SQLFragment {
        var fragment = SQLFragment("SELECT \(selection.columns(of: mapping)) FROM \(mapping.table) AS t0")
        if let condition = whereCondition(excludingKeys: excludingKeys) { fragment = fragment + " WHERE " + condition }
        if !orderBy.isEmpty { fragment = fragment + SQLFragment(" ORDER BY \(orderBy)") }
        if let limit { fragment = fragment + SQLFragment(" LIMIT \(max(0, limit))") }
        if offset > 0 { fragment = fragment + SQLFragment((limit == nil ? " LIMIT -1" : "") + " OFFSET \(offset)") }
        return fragment
    }
}
