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
    }

    enum RowAccess {
        case alias(String)
        case key(SQLFragment)
    }

    /// The condition for a predicate over `mapping`, whose table is aliased `t0`.
    static func condition<T: Entity>(for predicate: Predicate<T>, mapping: EntityMapping, store: SQLiteStore) throws -> SQLFragment {
        var translator = PredicateTranslator(store: store, rootEntity: mapping.name)
        translator.bindings[predicate.variable.key] = .row(mapping, .alias("t0"))
        let operand = try translator.translate(predicate.expression)
        return try translator.scalar(operand, "the predicate's result")
    }

    mutating func translate(_ expression: Any) throws -> Operand {
        guard let translatable = expression as? any SQLTranslatable else {
            throw unsupported(String(describing: Swift.type(of: expression)))
        }
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
        case .row(_, .alias(let alias)): return SQLFragment("\(alias).Z_PK")
        case .row(_, .key(let key)): return key
        case .toMany: throw unsupported("a to-many relationship used as a value in \(role); use count, isEmpty or contains(where:)")
        case .constants: throw unsupported("a collection used as a value in \(role)")
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
            guard let index = mapping.declaration.propertyIndex(for: keyPath) else {
                throw unsupported("\(keyPath) is not a persisted property of \(mapping.name)")
            }
            switch mapping.declaration.layout.slots[index] {
            case .attribute(let slot):
                let column = SQL.quote(mapping.attributeColumns[slot])
                let type = mapping.description.attributes[slot].type
                switch access {
                case .alias(let alias): return .scalar(SQLFragment("\(alias).\(column)"), type)
                case .key(let key):
                    return .scalar(SQLFragment("(SELECT \(column) FROM \(mapping.table) WHERE Z_PK = ", key, ")"), type)
                }
            case .toOne(let slot):
                let relationship = mapping.toOneRelationships[slot]
                let destination = store.mappings[relationship.destination]
                let ownKey = rowKey(access)
                switch relationship.storage {
                case .foreignKey(let column):
                    switch access {
                    case .alias(let alias): return .row(destination, .key(SQLFragment("\(alias).\(SQL.quote(column))")))
                    case .key(let key):
                        return .row(destination, .key(SQLFragment("(SELECT \(SQL.quote(column)) FROM \(mapping.table) WHERE Z_PK = ", key, ")")))
                    }
                case let .inverseForeignKey(table, column, _):
                    return .row(destination, .key(SQLFragment(
                        "(SELECT Z_PK FROM \(SQL.quote(table)) WHERE \(SQL.quote(column)) = ", ownKey, " LIMIT 1)")))
                case .joinTable:
                    throw unsupported("\(mapping.name).\(relationship.name)")
                }
            case .toMany(let slot):
                return .toMany(mapping.toManyRelationships[slot], owner: rowKey(access))
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
        case .constants:
            throw unsupported("\(keyPath) on a constant collection")
        }
    }

    func rowKey(_ access: RowAccess) -> SQLFragment {
        switch access {
        case .alias(let alias): SQLFragment("\(alias).Z_PK")
        case .key(let key): key
        }
    }

    /// `FROM … WHERE …` selecting the members of a to-many relationship, with the member table aliased.
    func membersFrom(_ relationship: RelationshipMapping, owner: SQLFragment, alias: String) -> SQLFragment {
        let destination = store.mappings[relationship.destination]
        switch relationship.storage {
        case let .inverseForeignKey(_, column, _):
            return SQLFragment("FROM \(destination.table) AS \(alias) WHERE \(alias).\(SQL.quote(column)) = ", owner)
        case let .joinTable(table, source, target, _):
            return SQLFragment("FROM \(SQL.quote(table)) AS j\(alias) JOIN \(destination.table) AS \(alias) ON \(alias).Z_PK = j\(alias).\(target) WHERE j\(alias).\(source) = ", owner)
        case .foreignKey:
            return SQLFragment("FROM \(destination.table) AS \(alias) WHERE 0")
        }
    }

    private static func isCount(_ keyPath: AnyKeyPath, of type: any Entity.Type) -> Bool {
        func check<D: Entity>(_ type: D.Type) -> Bool { keyPath == \Set<D>.count || keyPath == \Array<D>.count }
        return check(type)
    }

    private static func isEmptyCheck(_ keyPath: AnyKeyPath, of type: any Entity.Type) -> Bool {
        func check<D: Entity>(_ type: D.Type) -> Bool { keyPath == \Set<D>.isEmpty || keyPath == \Array<D>.isEmpty }
        return check(type)
    }

    /// A constant of a predicate as a value the store compares.
    func constant(_ value: Any) throws -> Operand {
        if let value = value as? any AttributeValue {
            return .scalar(SQLFragment("?", arguments: [value.storedValue.databaseValue]), Swift.type(of: value).attributeType)
        }
        if let result = value as? ComparisonResult {
            return .scalar(SQLFragment("?", arguments: [result.rawValue.databaseValue]), .integer)
        }
        if let object = value as? any Entity {
            return .scalar(SQLFragment("?", arguments: [object.objectID.isTemporary ? .null : object.objectID.key.databaseValue]), nil)
        }
        if let collection = value as? any Collection {
            var values: [StoredValue] = []
            for element in collection {
                guard let element = element as? any AttributeValue else {
                    throw unsupported("a collection of \(Swift.type(of: element))")
                }
                values.append(element.storedValue)
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
