package import Foundation
import GRDB
import GRDBSQLite
package import ObjectGraphModel

/// The rows of one entity a batch deletion starts from: those a condition selects.
package struct DeletionSeed {
    package init(condition: SQLFragment?, isRepeatable: Bool) {
        self.condition = condition
        self.isRepeatable = isRepeatable
    }

    /// A condition on the entity's table aliased `t0`; nil for every row.
    package let condition: SQLFragment?
    /// Whether the condition reads only the rows' own attributes and keys. Nothing in a deletion
    /// changes those, so it selects the same rows again at the end, where the history and the
    /// `DELETE` then use it: walking its index costs SQLite less than finding every row by key.
    package let isRepeatable: Bool

    /// The rows of a ``DelayedDeletable`` entity marked before `cutoff`; `slot` is its mark's.
    package static func marked(before cutoff: Date, slot: Int, in mapping: EntityMapping) -> DeletionSeed {
        DeletionSeed(
            condition: SQLFragment("t0.\(mapping.quotedAttributeColumns[slot]) < ?", arguments: [cutoff.storedValue.databaseValue]),
            isRepeatable: true)
    }
}

/// What a batch deletion wrote: the rows deleted, and the rows left whose relationships changed
/// because related rows went, with the names of those relationships. Both by mapping index.
package struct BatchDeletion {
    package var deleted: [Int: Set<Int64>] = [:]
    package var updated: [Int: [Int64: Set<String>]] = [:]
}

extension RowWriter {
    /// Deletes rows and every row their delete rules reach, set-wise, in the current transaction:
    /// cascades are followed to the end first, then a deny rule with a related row left refuses the
    /// whole deletion (nothing is written: the caller's transaction rolls back), a nullify clears the
    /// foreign keys that pointed to deleted rows, and the rows go with their join-table links. Every
    /// change is recorded in the history.
    ///
    /// Rows keep their links in columns of one side only, so a deleted row's links leave the other
    /// side's relationship without any write there; those rows are reported as updated all the same,
    /// so that contexts holding them read the relationship again.
    ///
    /// - Parameter seeds: The rows to delete, by mapping index. Their foreign keys are read with them,
    ///   so that the rules of the relationships kept in their own row need no second read.
    /// - Throws: ``ObjectGraphError/validationFailed(_:)`` with ``ValidationFailure/Reason/deleteDenied(count:)``
    ///   for each row whose deny rule still holds rows.
    package func deleteWithRules(
        _ seeds: [Int: DeletionSeed], mappings: [EntityMapping],
        store: StoreIdentity
    ) throws -> BatchDeletion {
        var result = BatchDeletion()
        var work: [(index: Int, keys: [Int64], areSeeds: Bool)] = []
        var seedLinks = SeedLinks()
        for (index, seed) in seeds {
            let rows = try seedLinks.read(seed, mapping: mappings[index], writer: self)
            guard !rows.isEmpty else { continue }
            guard mappings[index].hierarchy?.hasSubentities == true else {
                result.deleted[index] = Set(rows)
                work.append((index, rows, true))
                continue
            }
            // Rows of subentities are deleted, recorded and reported as their own entity's, with
            // their own entity's rules (their links are read again: the seed's were read as its).
            for (concrete, keys) in try keysByMapping(rows, mapping: mappings[index], mappings: mappings) {
                result.deleted[concrete, default: []].formUnion(keys)
                work.append((concrete, keys, false))
            }
        }
        // The links of a relationship from `keys`, which hold every seed row of their entity or none:
        // the seed rows' as read with them, the others' from the store.
        func links(
            of relationship: RelationshipMapping, from keys: [Int64], index: Int, includingSeeds: Bool,
            selection: KeySelection? = nil
        ) throws -> [(owner: Int64, related: Int64)] {
            guard includingSeeds, let known = seedLinks.links(of: relationship, index: index) else {
                return try self.links(of: relationship, from: selection ?? KeySelection(keys), mapping: mappings[index])
            }
            let others = seedLinks.others(in: keys, index: index)
            return others.isEmpty
                ? known
                : known + (try self.links(of: relationship, from: KeySelection(others), mapping: mappings[index]))
        }
        // Cascades, breadth first: each round reads the rows the previous one reached.
        while let (index, keys, areSeeds) = work.popLast() {
            for relationship in Self.relationships(of: mappings[index]) where relationship.description.deleteRule == .cascade {
                let related = try links(of: relationship, from: keys, index: index, includingSeeds: areSeeds).map(\.related)
                guard mappings[relationship.destination].hierarchy?.hasSubentities == true else {
                    let new = related.filter { result.deleted[relationship.destination, default: []].insert($0).inserted }
                    if !new.isEmpty { work.append((relationship.destination, new, false)) }
                    continue
                }
                // Rows of a hierarchy: each deleted as its own entity's.
                for (concrete, keys) in try keysByMapping(related, mapping: mappings[relationship.destination], mappings: mappings) {
                    let new = keys.filter { result.deleted[concrete, default: []].insert($0).inserted }
                    if !new.isEmpty { work.append((concrete, new, false)) }
                }
            }
        }
        var denied: [ValidationFailure] = []
        var nullified: [(mapping: EntityMapping, column: String, orderColumn: String?, keys: [Int64], name: String)] = []
        // Arranged once per entity: read for the rules, then for the history and the deletion.
        let deletedKeys = result.deleted.mapValues(Array.init)
        let selections = deletedKeys.mapValues(KeySelection.init)
        for (index, keys) in selections.sorted(by: { $0.key < $1.key }) {
            let mapping = mappings[index]
            // A cascade's related rows are all being deleted: only the other rules act on rows left.
            for relationship in Self.relationships(of: mapping) where relationship.description.deleteRule != .cascade {
                let destination = mappings[relationship.destination]
                // A hierarchy's deleted rows are under each one's own entity.
                let doomed =
                    destination.hierarchy?.hasSubentities == true
                    ? result.deleted.filter { mappings[$0.key].declaration.isKind(of: destination.declaration) }.values
                        .reduce(into: Set<Int64>()) { $0.formUnion($1) }
                    : result.deleted[relationship.destination] ?? []
                let links = try links(
                    of: relationship, from: deletedKeys[index] ?? [], index: index,
                    includingSeeds: true, selection: keys
                )
                .filter { !doomed.contains($0.related) }
                guard !links.isEmpty else { continue }
                let inverseName = destination.declaration.properties[relationship.inversePropertyIndex].name
                switch relationship.description.deleteRule {
                case .deny:
                    for (owner, count) in Dictionary(grouping: links, by: \.owner).mapValues(\.count).sorted(by: { $0.key < $1.key }) {
                        denied.append(
                            ValidationFailure(
                                entity: mapping.name, objectID: ObjectID(entity: mapping.declaration, key: owner, store: store),
                                property: relationship.name, reason: .deleteDenied(count: count)))
                    }
                    continue
                case .nullify:
                    if case let .inverseForeignKey(_, column, orderColumn) = relationship.storage {
                        nullified.append((destination, column, orderColumn, links.map(\.related), inverseName))
                    }
                case .noAction, .cascade:
                    break
                }
                for link in links { result.updated[relationship.destination, default: [:]][link.related, default: []].insert(inverseName) }
            }
        }
        if !denied.isEmpty { throw ObjectGraphError.validationFailed(denied) }
        for change in nullified {
            let orderAssignment = change.orderColumn.map { ", \(SQL.quote($0)) = NULL" } ?? ""
            for condition in KeySelection(change.keys).conditions(on: "Z_PK") {
                try execute(
                    """
                    UPDATE \(change.mapping.table) SET \(SQL.quote(change.column)) = NULL\(orderAssignment), \
                    Z_VERSION = Z_VERSION + 1 WHERE \(condition.sql)
                    """, condition.arguments)
            }
        }
        // Updated rows of a hierarchy are recorded and reported as their own entity's.
        for (index, rows) in result.updated where mappings[index].hierarchy?.hasSubentities == true {
            result.updated[index] = nil
            for (concrete, keys) in try keysByMapping(Array(rows.keys), mapping: mappings[index], mappings: mappings) {
                for key in keys { result.updated[concrete, default: [:]][key, default: []].formUnion(rows[key] ?? []) }
            }
        }
        for (index, rows) in result.updated {
            for (names, keys) in Dictionary(grouping: rows, by: { $0.value.sorted().joined(separator: ",") }) {
                recordUpdates(keys: keys.map(\.key), changedKeys: names, mapping: mappings[index])
            }
        }
        for (index, keys) in selections {
            // The seeds by their condition when it selects them again, the other rows by key.
            var rows: [SQLFragment]?
            if let seed = seeds[index], seed.isRepeatable {
                let others = seedLinks.others(in: deletedKeys[index] ?? [], index: index)
                rows = [seed.condition ?? SQLFragment("1")] + KeySelection(others).conditions(on: "t0.Z_PK")
            }
            try delete(keys: keys, mapping: mappings[index], rows: rows)
        }
        return result
    }

    private static func relationships(of mapping: EntityMapping) -> [RelationshipMapping] {
        mapping.toOneRelationships + mapping.toManyRelationships
    }

    /// The rows related to `keys` through a relationship, as (owner, related) pairs.
    private func links(
        of relationship: RelationshipMapping, from keys: KeySelection,
        mapping: EntityMapping
    ) throws -> [(owner: Int64, related: Int64)] {
        let table: String, ownerColumn: String, relatedColumn: String
        switch relationship.storage {
        case .foreignKey(let column):
            (table, ownerColumn, relatedColumn) = (mapping.table, "Z_PK", SQL.quote(column))
        case let .inverseForeignKey(other, column, _):
            (table, ownerColumn, relatedColumn) = (SQL.quote(other), SQL.quote(column), "Z_PK")
        case let .joinTable(joinTable, source, target, _):
            (table, ownerColumn, relatedColumn) = (SQL.quote(joinTable), source, target)
        }
        var links: [(owner: Int64, related: Int64)] = []
        for condition in keys.conditions(on: ownerColumn) {
            let statement = try db.cachedStatement(
                sql: """
                    SELECT \(ownerColumn), \(relatedColumn) FROM \(table) \
                    WHERE \(condition.sql) AND \(relatedColumn) IS NOT NULL
                    """)
            try statement.bind(condition.arguments)
            let sqliteStatement = statement.sqliteStatement
            try Row.fetchCursor(statement).forEach { _ in
                links.append(
                    (
                        Int64(sqliteStatement: sqliteStatement, index: 0),
                        Int64(sqliteStatement: sqliteStatement, index: 1)
                    ))
            }
        }
        return links
    }

    /// The keys a query selects (its first column), in this transaction.
    package func keys(_ query: SQLFragment) throws -> [Int64] {
        try RowReader.keys(query, db)
    }

    /// The rows of `keys`, rows of a hierarchy's table, by the index of the mapping of the entity
    /// each is of.
    func keysByMapping(_ keys: [Int64], mapping: EntityMapping, mappings: [EntityMapping]) throws -> [Int: [Int64]] {
        var result: [Int: [Int64]] = [:]
        for (entity, keys) in try keysByEntity(keys, mapping: mapping) {
            guard let index = mappings.firstIndex(where: { $0.name == entity }) else { continue }
            result[index, default: []] += keys
        }
        return result
    }

    /// The rows of `keys`, rows of a hierarchy's table, by the entity each is of (see
    /// ``EntityHierarchy``).
    package func keysByEntity(_ keys: [Int64], mapping: EntityMapping) throws -> [String: [Int64]] {
        var result: [String: [Int64]] = [:]
        for condition in KeySelection(keys).conditions(on: "Z_PK") {
            let rows = try Row.fetchAll(
                db, sql: "SELECT Z_PK, \(EntityHierarchy.entityColumn) FROM \(mapping.table) WHERE \(condition.sql)",
                arguments: StatementArguments(condition.arguments))
            for row in rows {
                let entity: String = row[1]
                result[entity, default: []].append(row[0])
            }
        }
        return result
    }
}

/// A batch deletion's seed rows with the links their own foreign-key columns hold, read in the same
/// statement as their keys: a second read of those rows, by key, would cost more than finding them.
private struct SeedLinks {
    private var rows: [Int: [Int64]] = [:]
    private var seedSets: [Int: Set<Int64>] = [:]
    /// By mapping index, then by relationship property index.
    private var links: [Int: [Int: [(owner: Int64, related: Int64)]]] = [:]

    /// Reads the keys of the rows a seed selects, with their foreign keys; returns the keys.
    package mutating func read(_ seed: DeletionSeed, mapping: EntityMapping, writer: RowWriter) throws -> [Int64] {
        let foreignKeys = mapping.toOneRelationships.compactMap { relationship in
            relationship.foreignKeyColumn.map { (relationship.propertyIndex, $0) }
        }
        let columns = (["t0.Z_PK"] + foreignKeys.map { "t0." + SQL.quote($0.1) }).joined(separator: ", ")
        var fragment = SQLFragment("SELECT \(columns) FROM \(mapping.table) AS t0")
        if let condition = seed.condition { fragment = fragment + " WHERE " + condition }
        let statement = try writer.db.cachedStatement(sql: fragment.sql)
        try statement.bind(fragment.arguments)
        let sqliteStatement = statement.sqliteStatement
        var keys: [Int64] = []
        var found = foreignKeys.map { _ in [(owner: Int64, related: Int64)]() }
        try Row.fetchCursor(statement).forEach { _ in
            let key = Int64(sqliteStatement: sqliteStatement, index: 0)
            keys.append(key)
            for column in found.indices where sqlite3_column_type(sqliteStatement, Int32(column + 1)) != SQLITE_NULL {
                found[column].append((key, Int64(sqliteStatement: sqliteStatement, index: Int32(column + 1))))
            }
        }
        rows[mapping.index] = keys
        for (column, (propertyIndex, _)) in foreignKeys.enumerated() {
            links[mapping.index, default: [:]][propertyIndex] = found[column]
        }
        return keys
    }

    /// The links of the seed rows of an entity through a relationship, if they were read with them.
    package func links(of relationship: RelationshipMapping, index: Int) -> [(owner: Int64, related: Int64)]? {
        links[index]?[relationship.propertyIndex]
    }

    /// Of `keys`, which hold every seed row of the entity, those that are not seeds.
    package mutating func others(in keys: [Int64], index: Int) -> [Int64] {
        let seeds = rows[index] ?? []
        if keys.count == seeds.count { return [] }
        if seedSets[index] == nil { seedSets[index] = Set(seeds) }
        let set = seedSets[index] ?? []
        return keys.filter { !set.contains($0) }
    }
}
