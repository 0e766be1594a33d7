import Foundation
import GRDB

/// Translates a Foundation `#Predicate` expression tree into an SQL condition.
///
/// Each supported expression type conforms to ``SQLTranslatable``. A node that does not (or a key path
/// that is not a persisted property) stops the translation with
/// ``ObjectGraphError/unsupportedPredicate(entity:construct:)``, naming what could not be translated.
struct PredicateTranslator {
    let store: SQLiteStore
    let rootEntity: String
    private var bindings: [PredicateExpressions.VariableID: Operand] = [:]
    private var aliasCount = 1
    /// Whether the node being translated only filters rows: the predicate itself, or an operand of
    /// `&&` / `||` in that position. There SQL's NULL excludes a row as `false` does, so a node may
    /// drop what only turns NULL into `false` (and leave SQLite free to use an index). A node reads
    /// it before translating its operands, which are not in that position unless it says so.
    private(set) var nodeOnlyFilters = false
    /// The properties the condition reads, and the relationships it follows.
    private(set) var reads = PropertyReads()

    init(store: SQLiteStore, rootEntity: String) {
        self.store = store
        self.rootEntity = rootEntity
    }

    /// What a translated sub-expression stands for.
    enum Operand {
        /// A value: SQL and its arguments, with the attribute type when known.
        case scalar(SQLFragment, AttributeType?)
        /// A row of an entity, reachable through a table alias or through an SQL expression of its key.
        case row(EntityMapping, RowAccess)
        /// The members of a to-many relationship of a row.
        case toMany(RelationshipMapping, owner: SQLFragment)
        /// A constant collection, for `contains`.
        case constants([StoredValue])
        /// The ID of a row (`$0.objectID`): its primary key, meaningful only with its entity.
        case objectID(EntityMapping, RowAccess)
        /// Constant object IDs: one for `==`, a collection for `contains`.
        case objectIDs([ObjectID])
    }

    enum RowAccess {
        case alias(String)
        case key(SQLFragment)
        /// The key of a related row that reads as no row while the row is marked for deletion, as
        /// Swift hides it (see ``DelayedDeletable``); `markColumn` is the row's quoted mark column.
        case unmarkedKey(SQLFragment, markColumn: String)
    }

    /// The condition for a predicate over `mapping`, whose table is aliased `t0`, and what it reads.
    static func condition<T: Entity>(
        for predicate: Predicate<T>, mapping: EntityMapping,
        store: SQLiteStore
    ) throws -> (SQLFragment, reads: PropertyReads) {
        var translator = PredicateTranslator(store: store, rootEntity: mapping.name)
        translator.bindings[predicate.variable.key] = .row(mapping, .alias("t0"))
        let operand = try translator.translate(predicate.expression, onlyFilters: true)
        return (try translator.scalar(operand, "the predicate's result"), translator.reads)
    }

    /// - Parameter onlyFilters: Whether the expression's value only decides whether a row is
    ///   selected (see ``nodeOnlyFilters``).
    mutating func translate(_ expression: Any, onlyFilters: Bool = false) throws -> Operand {
        guard let translatable = expression as? any SQLTranslatable else {
            throw unsupported(String(describing: Swift.type(of: expression)))
        }
        nodeOnlyFilters = onlyFilters
        return try translatable.translate(&self)
    }

    mutating func bind(_ variable: PredicateExpressions.VariableID, to operand: Operand) {
        bindings[variable] = operand
    }

    func operand(for variable: PredicateExpressions.VariableID) throws -> Operand {
        guard let operand = bindings[variable] else { throw unsupported("an unbound variable") }
        return operand
    }

    mutating func newAlias() -> String {
        defer { aliasCount += 1 }
        return "t\(aliasCount)"
    }

    func unsupported(_ construct: String) -> ObjectGraphError {
        .unsupportedPredicate(entity: rootEntity, construct: construct)
    }

    /// The SQL of a value operand; a row stands for its primary key.
    func scalar(_ operand: Operand, _ role: String) throws -> SQLFragment {
        switch operand {
        case .scalar(let fragment, _): return fragment
        case let .row(mapping, access): return rowKey(access, of: mapping)
        case .toMany: throw unsupported("a to-many relationship used as a value in \(role); use count, isEmpty or contains(where:)")
        case .constants: throw unsupported("a collection used as a value in \(role)")
        case let .objectID(mapping, access): return rowKey(access, of: mapping)  // compared with nil
        case .objectIDs:
            throw unsupported("an object ID used in \(role); compare IDs with == or !=, or use contains")
        }
    }

    /// The key an ID has in `mapping`'s table, as an SQL argument; nil for an ID of another entity or
    /// store, or a temporary one, which no row of the table has.
    func key(of id: ObjectID, in mapping: EntityMapping) -> DatabaseValue? {
        guard id.entity === mapping.declaration, id.store == store.identity, !id.isTemporary else { return nil }
        return id.key.databaseValue
    }

    /// `==` (or, `negated`, `!=`) between object IDs, as Swift compares them: equal when entity,
    /// store and key are; nil when neither side is an object ID.
    func objectIDEquality(_ left: Operand, _ right: Operand, negated: Bool) throws -> Operand? {
        let op = negated ? "IS NOT" : "IS"
        switch (left, right) {
        case let (.objectID(mapping, access), .objectIDs(ids)), let (.objectIDs(ids), .objectID(mapping, access)):
            guard let id = ids.first, ids.count == 1 else { throw unsupported("a collection of object IDs compared with ==") }
            guard let constant = self.key(of: id, in: mapping) else { return .scalar(SQLFragment(negated ? "1" : "0"), .bool) }
            let isID = keyTest(access, of: mapping, SQLFragment(" IS ?", arguments: [constant]))
            return .scalar(negated ? SQLFragment("(NOT ", isID, ")") : isID, .bool)
        case let (.objectID(leftMapping, leftAccess), .objectID(rightMapping, rightAccess)):
            let leftKey = rowKey(leftAccess, of: leftMapping), rightKey = rowKey(rightAccess, of: rightMapping)
            if leftMapping === rightMapping {
                return .scalar(SQLFragment("(", leftKey, " \(op) ", rightKey, ")"), .bool)
            }
            // IDs of two entities are equal only when both are nil.
            let bothNil = SQLFragment("(", leftKey, " IS NULL AND ", rightKey, " IS NULL)")
            return .scalar(negated ? SQLFragment("(NOT ", bothNil, ")") : bothNil, .bool)
        default:
            return nil
        }
    }

    func attributeType(of operand: Operand) -> AttributeType? {
        if case .scalar(_, let type) = operand { return type }
        return nil
    }

    // MARK: Key paths

    mutating func member(_ keyPath: AnyKeyPath, of root: Operand) throws -> Operand {
        switch root {
        case let .row(mapping, access):
            if Self.isObjectID(keyPath, of: mapping.declaration.type) {
                return .objectID(mapping, access)
            }
            guard let index = mapping.declaration.propertyIndex(for: keyPath) else {
                throw unsupported("\(keyPath) is not a persisted property of \(mapping.name)")
            }
            switch mapping.declaration.layout.slots[index] {
            case .attribute(let slot):
                reads.read(index, of: mapping)
                let type = mapping.description.attributes[slot].type
                return .scalar(column(mapping.quotedAttributeColumns[slot], of: mapping, at: access), type)
            case .toOne(let slot):
                let relationship = mapping.toOneRelationships[slot]
                let destination = store.mappings[relationship.destination]
                reads.follow(relationship, from: mapping, to: destination)
                let destinationKey: SQLFragment
                switch relationship.storage {
                case .foreignKey(let foreignKey):
                    destinationKey = column(SQL.quote(foreignKey), of: mapping, at: access)
                case let .inverseForeignKey(table, column, _):
                    destinationKey = SQLFragment(
                        "(SELECT Z_PK FROM \(SQL.quote(table)) WHERE \(SQL.quote(column)) = ", rowKey(access, of: mapping), " LIMIT 1)")
                case .joinTable:
                    throw unsupported("\(mapping.name).\(relationship.name)")
                }
                return .row(
                    destination,
                    destination.quotedMarkColumn.map { .unmarkedKey(destinationKey, markColumn: $0) }
                        ?? .key(destinationKey))
            case .toMany(let slot):
                let relationship = mapping.toManyRelationships[slot]
                reads.follow(relationship, from: mapping, to: store.mappings[relationship.destination])
                return .toMany(relationship, owner: rowKey(access, of: mapping))
            }
        case let .toMany(relationship, owner):
            let destination = store.mappings[relationship.destination].declaration.type
            if Self.isCount(keyPath, of: destination) {
                return .scalar(SQLFragment("(SELECT COUNT(*) ", membersFrom(relationship, owner: owner, alias: "m"), ")"), .integer)
            }
            if Self.isEmptyCheck(keyPath, of: destination) {
                return .scalar(SQLFragment("(NOT EXISTS (SELECT 1 ", membersFrom(relationship, owner: owner, alias: "m"), "))"), .bool)
            }
            throw unsupported("\(keyPath) on the to-many relationship \(relationship.name)")
        case let .scalar(fragment, _):
            if keyPath == \String.count || keyPath == \Substring.count {
                return .scalar(SQLFragment("length(", fragment, ")"), .integer)
            }
            if keyPath == \String.isEmpty {
                return .scalar(SQLFragment("(length(", fragment, ") = 0)"), .bool)
            }
            throw unsupported("\(keyPath) on a value of type \(Swift.type(of: keyPath).rootType)")
        case .constants, .objectIDs:
            throw unsupported("\(keyPath) on a constant")
        case .objectID:
            throw unsupported("\(keyPath) on an object ID")
        }
    }

    /// The key of the row `access` reaches in `mapping`'s table; NULL for a hidden marked row.
    func rowKey(_ access: RowAccess, of mapping: EntityMapping) -> SQLFragment {
        switch access {
        case .alias(let alias): SQLFragment("\(alias).Z_PK")
        case .key(let key): key
        case let .unmarkedKey(key, markColumn):
            "(CASE WHEN " + isUnmarked(key, of: mapping, markColumn: markColumn) + " THEN " + key + " END)"
        }
    }

    /// `key` followed by `test` (` IS ?`, ` IN (…)`), false for a hidden marked row: the test stays on
    /// the key itself, so that SQLite can use the key's index.
    func keyTest(_ access: RowAccess, of mapping: EntityMapping, _ test: SQLFragment) -> SQLFragment {
        guard case let .unmarkedKey(key, markColumn) = access else { return "(" + rowKey(access, of: mapping) + test + ")" }
        return "(" + key + test + " AND " + isUnmarked(key, of: mapping, markColumn: markColumn) + ")"
    }

    /// Whether the row of `key` is not marked for deletion (true when there is no row).
    private func isUnmarked(_ key: SQLFragment, of mapping: EntityMapping, markColumn: String) -> SQLFragment {
        SQLFragment("((SELECT \(markColumn) FROM \(mapping.table) WHERE Z_PK = ", key, ") IS NULL)")
    }

    /// A column of the row reached by a key (not an alias), read by a subquery.
    private func column(_ column: String, of mapping: EntityMapping, at access: RowAccess) -> SQLFragment {
        switch access {
        case .alias(let alias): SQLFragment("\(alias).\(column)")
        case .key(let key): SQLFragment("(SELECT \(column) FROM \(mapping.table) WHERE Z_PK = ", key, ")")
        case let .unmarkedKey(key, markColumn):
            SQLFragment("(SELECT \(column) FROM \(mapping.table) WHERE Z_PK = ", key, " AND \(markColumn) IS NULL)")
        }
    }

    /// `FROM … WHERE …` selecting the members of a to-many relationship, with the member table aliased.
    func membersFrom(_ relationship: RelationshipMapping, owner: SQLFragment, alias: String) -> SQLFragment {
        let destination = store.mappings[relationship.destination]
        // Members marked for deletion are hidden, as Swift hides them.
        let unmarked = destination.quotedMarkColumn.map { " AND \(alias).\($0) IS NULL" } ?? ""
        switch relationship.storage {
        case let .inverseForeignKey(_, column, _):
            return SQLFragment("FROM \(destination.table) AS \(alias) WHERE \(alias).\(SQL.quote(column)) = ", owner, unmarked)
        case let .joinTable(table, source, target, _):
            return SQLFragment(
                "FROM \(SQL.quote(table)) AS j\(alias) JOIN \(destination.table) AS \(alias) ON \(alias).Z_PK = j\(alias).\(target) WHERE j\(alias).\(source) = ",
                owner, unmarked)
        case .foreignKey:
            return SQLFragment("FROM \(destination.table) AS \(alias) WHERE 0")
        }
    }

    private static func isObjectID(_ keyPath: AnyKeyPath, of type: any Entity.Type) -> Bool {
        func check<D: Entity>(_ type: D.Type) -> Bool { keyPath == \D.objectID }
        return check(type)
    }

    private static func isCount(_ keyPath: AnyKeyPath, of type: any Entity.Type) -> Bool {
        func check<D: Entity>(_ type: D.Type) -> Bool { keyPath == \Set<D>.count || keyPath == \[D].count }
        return check(type)
    }

    private static func isEmptyCheck(_ keyPath: AnyKeyPath, of type: any Entity.Type) -> Bool {
        func check<D: Entity>(_ type: D.Type) -> Bool { keyPath == \Set<D>.isEmpty || keyPath == \[D].isEmpty }
        return check(type)
    }

    /// A constant's stored form; one that cannot be encoded refuses the predicate (compared as NULL,
    /// it would match nothing without a word).
    private func storedValue(of value: any AttributeValue) throws -> StoredValue {
        do {
            return try value.checkedStoredValue()
        } catch {
            throw unsupported("a constant of type \(Swift.type(of: value)) that cannot be encoded: \(error)")
        }
    }

    /// A constant of a predicate as a value the store compares.
    func constant(_ value: Any) throws -> Operand {
        if let value = value as? any AttributeValue {
            return .scalar(SQLFragment("?", arguments: [try storedValue(of: value).databaseValue]), Swift.type(of: value).attributeType)
        }
        if let result = value as? ComparisonResult {
            return .scalar(SQLFragment("?", arguments: [result.rawValue.databaseValue]), .integer)
        }
        if let object = value as? any Entity {
            return .scalar(SQLFragment("?", arguments: [object.objectID.isTemporary ? .null : object.objectID.key.databaseValue]), nil)
        }
        if let id = value as? ObjectID {
            return .objectIDs([id])
        }
        if let ids = value as? any Collection<ObjectID> {
            return .objectIDs(Array(ids))
        }
        if let collection = value as? any Collection {
            var values: [StoredValue] = []
            for element in collection {
                guard let element = element as? any AttributeValue else {
                    throw unsupported("a collection of \(Swift.type(of: element))")
                }
                values.append(try storedValue(of: element))
            }
            return .constants(values)
        }
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional, mirror.children.isEmpty {
            return .scalar(SQLFragment("NULL"), nil)
        }
        throw unsupported("a constant of type \(Swift.type(of: value))")
    }
}
