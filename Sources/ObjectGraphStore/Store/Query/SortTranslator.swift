package import Foundation
package import ObjectGraphModel

/// Turns sort descriptors into an SQL `ORDER BY` list for a query whose table is aliased `t0`.
///
/// A descriptor sorts by an attribute of the fetched entity (`\Mood.date`) or by an attribute of an
/// object it reaches through a to-one relationship (`\Mood.country?.name`); the latter reads the
/// related row with a correlated subquery on its primary key.
package enum SortTranslator {
    /// The `ORDER BY` terms of `descriptors`; what they read is added to `reads`.
    package static func orderBy<T>(
        _ descriptors: [SortDescriptor<T>], mapping: EntityMapping, store: SQLiteStore,
        reads: inout PropertyReads
    ) throws -> [String] {
        try descriptors.map { descriptor in
            guard let keyPath = descriptor.attributeKeyPath,
                let expression = attribute(at: keyPath, mapping: mapping, store: store, reads: &reads)
            else {
                throw ObjectGraphError.unsupportedPredicate(
                    entity: mapping.name,
                    construct: "sorting by \(descriptor.keyPath.map { "\($0)" } ?? "a comparator"): "
                        + "sort by an attribute of \(mapping.name) or of an object related to it by a to-one relationship")
            }
            var collation = expression.type == .decimal ? " COLLATE \(SQLCollation.decimal)" : ""
            if let comparator = descriptor.stringComparator {
                // The order in memory (unsaved objects, monitors) is the comparator's; SQL's must be too.
                guard let name = SQLCollation.collation(for: comparator) else {
                    throw ObjectGraphError.unsupportedPredicate(
                        entity: mapping.name, construct: "sorting with the string comparator \(comparator), which SQLite cannot apply")
                }
                collation = " COLLATE \(name)"
            }
            return expression.sql + collation + (descriptor.order == .forward ? " ASC" : " DESC")
        }
    }

    /// The SQL of the attribute a key path reaches (one of the entity's, or one of an object related
    /// by a to-one relationship, read by a correlated subquery), with its type.
    package static func attribute(
        at keyPath: AnyKeyPath, mapping: EntityMapping, store: SQLiteStore,
        reads: inout PropertyReads
    ) -> (sql: String, type: AttributeType)? {
        if let index = mapping.declaration.propertyIndex(for: keyPath),
            case .attribute(let slot) = mapping.declaration.layout.slots[index]
        {
            reads.read(index, of: mapping)
            return (column(slot, of: mapping, table: "t0"), mapping.description.attributes[slot].type)
        }
        guard let related = mapping.declaration.relatedAttribute(at: keyPath),
            let relationship = mapping.toOneRelationships.first(where: { $0.propertyIndex == related.relationshipIndex }),
            case .attribute(let slot) = related.destination.layout.slots[related.attributeIndex]
        else { return nil }
        let destination = store.mappings[relationship.destination]
        reads.follow(relationship, from: mapping, to: destination)
        reads.read(related.attributeIndex, of: destination)
        let value = column(slot, of: destination, table: "d")
        // A related object marked for deletion is hidden, as Swift hides it: its value is nil.
        let unmarked = destination.quotedMarkColumn.map { " AND d.\($0) IS NULL" } ?? ""
        let type = destination.description.attributes[slot].type
        switch relationship.storage {
        case .foreignKey(let foreignKey):
            return ("(SELECT \(value) FROM \(destination.table) AS d WHERE d.Z_PK = t0.\(SQL.quote(foreignKey))\(unmarked))", type)
        case .inverseForeignKey(_, let inverseColumn, _):
            return (
                "(SELECT \(value) FROM \(destination.table) AS d WHERE d.\(SQL.quote(inverseColumn)) = t0.Z_PK\(unmarked) LIMIT 1)", type
            )
        case .joinTable:
            return nil
        }
    }

    /// An attribute's column. A decimal's text is ordered by ``SQLCollation/decimal``, which a sort
    /// names: its `Double` would round it, and SQLite's text order is no number's.
    private static func column(_ slot: Int, of mapping: EntityMapping, table: String) -> String {
        mapping.valueSQL(ofSlot: slot, column: "\(table).\(mapping.quotedAttributeColumns[slot])")
    }
}
