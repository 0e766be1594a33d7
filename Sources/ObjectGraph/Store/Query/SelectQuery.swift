/// The SQL of a fetch: its entity's table aliased `t0`, the translated predicate and sort.
struct SelectQuery {
    let mapping: EntityMapping
    let condition: SQLFragment?
    /// Whether the condition reads only the rows' own attributes and keys: then, in a transaction that
    /// changes no attribute of the entity, it selects the same rows again.
    let readsOnlyOwnColumns: Bool
    let orderBy: String
    /// What the condition and the order read.
    let reads: PropertyReads

    /// Translates a descriptor's predicate and sort.
    ///
    /// - Throws: ``ObjectGraphError/unknownEntity(_:)``, or
    ///   ``ObjectGraphError/unsupportedPredicate(entity:construct:)`` for a predicate or sort with no
    ///   SQL translation.
    init<T: Entity>(_ descriptor: FetchDescriptor<T>, store: SQLiteStore) throws {
        guard let mapping = store.mapping(for: T._$entity) else {
            throw ObjectGraphError.unknownEntity(T._$entity.name)
        }
        self.mapping = mapping
        let translated = try descriptor.predicate.map {
            try PredicateTranslator.condition(for: $0, mapping: mapping, store: store)
        }
        var condition = translated?.0
        var reads = translated?.reads ?? PropertyReads()
        readsOnlyOwnColumns = !reads.followsRelationships
        if !descriptor.includesMarkedForDeletion, let slot = mapping.markedForDeletionSlot {
            // Read like any filtered attribute: a row unmarked elsewhere belongs in the results again.
            reads.read(mapping.declaration.layout.attributeProperties[slot], of: mapping)
            let unmarked = SQLFragment("t0.\(mapping.quotedAttributeColumns[slot]) IS NULL")
            condition = condition.map { unmarked + " AND (" + $0 + ")" } ?? unmarked
        }
        self.condition = condition
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
    var matchingKeys: SQLFragment {
        let fragment = SQLFragment("SELECT t0.Z_PK FROM \(mapping.table) AS t0")
        return condition.map { fragment + " WHERE " + $0 } ?? fragment
    }

    /// What a query selects.
    enum Selection {
        /// The rows' columns, for objects (``EntityMapping/selectList``).
        case rows
        /// The rows' keys.
        case keys
        /// The number of rows.
        case count

        func columns(of mapping: EntityMapping) -> String {
            switch self {
            case .rows: mapping.selectList
            case .keys: "t0.Z_PK"
            case .count: "COUNT(*)"
            }
        }
    }

    /// `SELECT … FROM table AS t0 WHERE … ORDER BY … LIMIT … OFFSET …`, leaving out the rows of
    /// `excludingKeys`.
    func sql(_ selection: Selection, limit: Int?, offset: Int, excludingKeys: some Collection<Int64>) -> SQLFragment {
        var fragment = SQLFragment("SELECT \(selection.columns(of: mapping)) FROM \(mapping.table) AS t0")
        var conditions: [SQLFragment] = condition.map { [$0] } ?? []
        if !excludingKeys.isEmpty {
            conditions.append("t0.Z_PK NOT IN " + SQL.list(excludingKeys.map(\.databaseValue)))
        }
        if !conditions.isEmpty {
            fragment = fragment + " WHERE " + conditions.dropFirst().reduce(conditions[0]) { $0 + " AND " + $1 }
        }
        if !orderBy.isEmpty { fragment = fragment + SQLFragment(" ORDER BY \(orderBy)") }
        if let limit { fragment = fragment + SQLFragment(" LIMIT \(max(0, limit))") }
        if offset > 0 { fragment = fragment + SQLFragment((limit == nil ? " LIMIT -1" : "") + " OFFSET \(offset)") }
        return fragment
    }
}
