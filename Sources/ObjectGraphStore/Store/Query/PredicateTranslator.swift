package import Foundation
package import GRDB
package import ObjectGraphModel

/// Translates a Foundation `#Predicate` expression tree into an SQL condition that gives the
/// answer Swift's own evaluation gives, for every value an object can hold.
///
/// Each supported expression type conforms to ``SQLTranslatable`` (the `PredicateExpressions+SQL`
/// files). A node that does not (or a key path that is not a persisted property) stops the
/// translation with ``ObjectGraphError/unsupportedPredicate(entity:construct:)``, naming what could
/// not be translated.
///
/// Where SQLite's own semantics differ from Swift's, the translation does not use them: text is
/// stored precomposed (see ``Swift/String/storedValue``), so that its byte order and equality are
/// Swift's; character-level operations, checked arithmetic, decimals and NaN go through the
/// ``SQLFunction``s, which run the Swift code the in-memory evaluation runs
/// (``CheckedPredicateExpression``). Which Swift operation a node means comes from its generic
/// types (an `Int16` sum overflows where an `Int` sum does not).
package struct PredicateTranslator {
    package let store: SQLiteStore
    package let rootEntity: String
    private var bindings: [PredicateExpressions.VariableID: Operand] = [:]
    private var aliasCount = 1
    /// Whether the node being translated only filters rows: the predicate itself, or an operand of
    /// `&&` / `||` in that position. There SQL's NULL excludes a row as `false` does, so a node may
    /// drop what only turns NULL into `false` (and leave SQLite free to use an index). A node reads
    /// it before translating its operands, which are not in that position unless it says so.
    package private(set) var nodeOnlyFilters = false
    /// The properties the condition reads, and the relationships it follows.
    package private(set) var reads = PropertyReads()

    package init(store: SQLiteStore, rootEntity: String) {
        self.store = store
        self.rootEntity = rootEntity
    }

    /// What an operand's SQL does besides giving a value, which the nodes above it must know.
    package struct Traits {
        /// Evaluating it may raise a failure (an ``SQLFunction``'s): the nodes above evaluate it
        /// exactly when Swift would, never ahead of a test Swift runs first (`CASE`, not `AND`).
        package var mayFail = false
        /// It may be the NaN marker (``SQLFunction/nanMarker``), which only the functions compare.
        package var mayBeNaN = false
        /// The optional-chaining variables (`$0.group?.name`) for whose nil it is NULL: an operation
        /// of it that passes NULL through needs no test of its own for them.
        package var nullFor: Set<PredicateExpressions.VariableID> = []

        /// The traits of an operation that gives NULL when any of these operands is NULL.
        package static func strict(_ operands: Traits...) -> Traits {
            strict(operands)
        }

        package static func strict(_ operands: [Traits]) -> Traits {
            Traits(
                mayFail: operands.contains { $0.mayFail }, mayBeNaN: false,
                nullFor: operands.reduce(into: Set()) { $0.formUnion($1.nullFor) })
        }

        /// The traits of an operation that may give a value for NULL operands (`IS`, `CASE`).
        package static func lenient(_ operands: Traits...) -> Traits {
            Traits(mayFail: operands.contains { $0.mayFail })
        }
    }

    /// A value: SQL and its arguments.
    package struct Scalar {
        package var sql: SQLFragment
        package var traits = Traits()
    }

    /// A row of an entity, reached through a table alias or through an SQL expression of its key.
    package struct Row {
        package let mapping: EntityMapping
        package let access: RowAccess
        package var traits = Traits()
    }

    /// The members of a to-many relationship of a row, as `alias` rows of the destination's table,
    /// with the conditions of the `filter`s applied to them.
    package struct Members {
        package let relationship: RelationshipMapping
        package let owner: SQLFragment
        package let alias: String
        package var conditions: [SQLFragment] = []
        package var traits = Traits()
    }

    /// What a translated sub-expression stands for.
    package enum Operand {
        case scalar(Scalar)
        case row(Row)
        case members(Members)
        /// A constant collection, for `contains`: its values (NaN left out: it equals nothing), and
        /// whether it holds nil.
        case constants([StoredValue], holdsNil: Bool)
        /// The ID of a row (`$0.objectID`): its primary key, meaningful only with its entity.
        case objectID(EntityMapping, RowAccess)
        /// Constant object IDs: one for `==`, a collection for `contains`.
        case objectIDs([ObjectID])
        /// A range, for `contains`: its bounds (nil for a one-sided range), and the check that they
        /// are in order, for a range built from operands (a constant range is in order).
        case range(lower: Scalar?, upper: Scalar?, includesUpper: Bool, check: Scalar?)
    }

    package enum RowAccess {
        case alias(String)
        case key(SQLFragment)
        /// The key of a related row that reads as no row while the row is marked for deletion, as
        /// Swift hides it (see ``DelayedDeletable``); `markColumn` is the row's quoted mark column.
        case unmarkedKey(SQLFragment, markColumn: String)
    }

    /// The condition for a predicate over `mapping`, whose table is aliased `t0`, what it reads, and
    /// whether evaluating it can fail (see ``Traits/mayFail``).
    package static func condition<T: Entity>(
        for predicate: Predicate<T>, mapping: EntityMapping,
        store: SQLiteStore
    ) throws -> (SQLFragment, reads: PropertyReads, mayFail: Bool) {
        var translator = PredicateTranslator(store: store, rootEntity: mapping.name)
        translator.bindings[predicate.variable.key] = .row(Row(mapping: mapping, access: .alias("t0")))
        let condition = try translator.scalar(translator.translate(predicate.expression, onlyFilters: true), "the predicate's result")
        return (condition.sql, translator.reads, condition.traits.mayFail)
    }

    /// - Parameter onlyFilters: Whether the expression's value only decides whether a row is
    ///   selected (see ``nodeOnlyFilters``).
    package mutating func translate(_ expression: Any, onlyFilters: Bool = false) throws -> Operand {
        guard let translatable = expression as? any SQLTranslatable else {
            throw unsupported(Self.describe(type(of: expression)))
        }
        nodeOnlyFilters = onlyFilters
        return try translatable.translate(&self)
    }

    /// A node's type as the error names it: `Filter`, not its generic arguments.
    private static func describe(_ type: Any.Type) -> String {
        let name = "\(type)"
        if name.hasPrefix("ForceCast") {
            return "a forced cast (as!), which would trap on an object of another class: test with `is`, or cast with `as?`"
        }
        return name
    }

    /// The scalar of an operand translated from `expression`.
    package mutating func scalar(of expression: Any, _ role: String) throws -> Scalar {
        try scalar(translate(expression), role)
    }

    /// One of the text functions (``SQLFunction/contains``, ``SQLFunction/startsWith``, the
    /// case-insensitive ones) applied to two operands translated from `first` and `second`:
    /// Swift's own `String` code, run by SQLite; NULL when either is nil.
    package mutating func textFunction(_ function: SQLFunction, _ first: Any, _ second: Any, _ role: String) throws -> Operand {
        let a = try scalar(of: first, role), b = try scalar(of: second, role)
        return .scalar(Scalar(sql: function(a.sql, b.sql), traits: .strict(a.traits, b.traits)))
    }

    /// Notes that the condition reads property `index` of `mapping`'s entity.
    package mutating func read(_ index: Int, of mapping: EntityMapping) {
        reads.read(index, of: mapping)
    }

    package mutating func bind(_ variable: PredicateExpressions.VariableID, to operand: Operand) {
        bindings[variable] = operand
    }

    package func operand(for variable: PredicateExpressions.VariableID) throws -> Operand {
        guard let operand = bindings[variable] else { throw unsupported("an unbound variable") }
        return operand
    }

    package mutating func newAlias() -> String {
        defer { aliasCount += 1 }
        return "t\(aliasCount)"
    }

    package func unsupported(_ construct: String) -> ObjectGraphError {
        .unsupportedPredicate(entity: rootEntity, construct: construct)
    }

    /// The SQL of a value operand; a row stands for its primary key.
    package func scalar(_ operand: Operand, _ role: String) throws -> Scalar {
        switch operand {
        case .scalar(let scalar): return scalar
        case .row(let row): return Scalar(sql: rowKey(row.access, of: row.mapping), traits: row.traits)
        case .members:
            throw unsupported("a to-many relationship used as a value in \(role); use count, isEmpty, contains(where:) or filter")
        case .constants: throw unsupported("a collection used as a value in \(role)")
        case let .objectID(mapping, access): return Scalar(sql: rowKey(access, of: mapping))  // compared with nil
        case .objectIDs:
            throw unsupported("an object ID used in \(role); compare IDs with == or !=, or use contains")
        case .range: throw unsupported("a range used as a value in \(role); use contains")
        }
    }

    /// The key an ID has in `mapping`'s table, as an SQL argument; nil for an ID of another entity or
    /// store, or a temporary one, which no row of the table has.
    package func key(of id: ObjectID, in mapping: EntityMapping) -> DatabaseValue? {
        guard id.entity === mapping.declaration, id.store == store.identity, !id.isTemporary else { return nil }
        return id.key.databaseValue
    }

    /// `==` (or, `negated`, `!=`) between object IDs, as Swift compares them: equal when entity,
    /// store and key are; nil when neither side is an object ID.
    package func objectIDEquality(_ left: Operand, _ right: Operand, negated: Bool) throws -> Operand? {
        let op = negated ? "IS NOT" : "IS"
        switch (left, right) {
        case let (.objectID(mapping, access), .objectIDs(ids)), let (.objectIDs(ids), .objectID(mapping, access)):
            guard let id = ids.first, ids.count == 1 else { throw unsupported("a collection of object IDs compared with ==") }
            guard let constant = self.key(of: id, in: mapping) else { return .scalar(Scalar(sql: negated ? "1" : "0")) }
            let isID = keyTest(access, of: mapping, SQLFragment(" IS ?", arguments: [constant]))
            return .scalar(Scalar(sql: negated ? SQLFragment("(NOT ", isID, ")") : isID))
        case let (.objectID(leftMapping, leftAccess), .objectID(rightMapping, rightAccess)):
            let leftKey = rowKey(leftAccess, of: leftMapping), rightKey = rowKey(rightAccess, of: rightMapping)
            if leftMapping === rightMapping {
                return .scalar(Scalar(sql: SQLFragment("(", leftKey, " \(op) ", rightKey, ")")))
            }
            // IDs of two entities are equal only when both are nil.
            let bothNil = SQLFragment("(", leftKey, " IS NULL AND ", rightKey, " IS NULL)")
            return .scalar(Scalar(sql: negated ? SQLFragment("(NOT ", bothNil, ")") : bothNil))
        default:
            return nil
        }
    }

    // MARK: Key paths

    /// The property `keyPath` reads of `root`, whose Swift type is `rootType`.
    package mutating func member(_ keyPath: AnyKeyPath, of root: Operand, rootType: Any.Type) throws -> Operand {
        switch root {
        case .row(let row):
            let mapping = row.mapping
            if Self.isObjectID(keyPath, of: mapping.declaration.type) {
                return .objectID(mapping, row.access)
            }
            guard let index = mapping.declaration.propertyIndex(for: keyPath) else {
                throw unsupported("\(keyPath) is not a persisted property of \(mapping.name)")
            }
            switch mapping.declaration.layout.slots[index] {
            case .attribute(let slot):
                reads.read(index, of: mapping)
                var value = column(mapping.quotedAttributeColumns[slot], of: mapping, at: row.access)
                if mapping.readsFiles(atSlot: slot) { value = SQLFragment("\(ExternalValueFunction.name)(") + value + ")" }
                return .scalar(Scalar(sql: value, traits: row.traits))
            case .toOne(let slot):
                let relationship = mapping.toOneRelationships[slot]
                let destination = store.mappings[relationship.destination]
                reads.follow(relationship, from: mapping, to: destination)
                let destinationKey: SQLFragment
                switch relationship.storage {
                case .foreignKey(let foreignKey):
                    destinationKey = column(SQL.quote(foreignKey), of: mapping, at: row.access)
                case let .inverseForeignKey(table, column, _):
                    destinationKey = SQLFragment(
                        "(SELECT Z_PK FROM \(SQL.quote(table)) WHERE \(SQL.quote(column)) = ", rowKey(row.access, of: mapping), " LIMIT 1)")
                case .joinTable:
                    throw unsupported("\(mapping.name).\(relationship.name)")
                }
                let access =
                    destination.quotedMarkColumn.map { RowAccess.unmarkedKey(destinationKey, markColumn: $0) } ?? .key(destinationKey)
                return .row(Row(mapping: destination, access: access, traits: row.traits))
            case .toMany(let slot):
                let relationship = mapping.toManyRelationships[slot]
                reads.follow(relationship, from: mapping, to: store.mappings[relationship.destination])
                return .members(
                    Members(relationship: relationship, owner: rowKey(row.access, of: mapping), alias: newAlias(), traits: row.traits))
            }
        case .members(let members):
            let destination = store.mappings[members.relationship.destination].declaration.type
            if Self.isCount(keyPath, of: destination) {
                return .scalar(Scalar(sql: SQLFragment("(SELECT COUNT(*) ", membersFrom(members), ")"), traits: .lenient(members.traits)))
            }
            if Self.isEmptyCheck(keyPath, of: destination) {
                // A filter that can fail is run on every member, as Swift's `filter` runs it.
                let sql =
                    members.traits.mayFail
                    ? SQLFragment("((SELECT COUNT(*) ", membersFrom(members), ") = 0)")
                    : SQLFragment("(NOT EXISTS (SELECT 1 ", membersFrom(members), "))")
                return .scalar(Scalar(sql: sql, traits: .lenient(members.traits)))
            }
            throw unsupported("\(keyPath) on the to-many relationship \(members.relationship.name)")
        case .scalar(let scalar):
            return .scalar(try property(keyPath, of: scalar, rootType: rootType))
        case .constants, .objectIDs, .range:
            throw unsupported("\(keyPath) on a constant")
        case .objectID:
            throw unsupported("\(keyPath) on an object ID")
        }
    }

    /// A property of a value: the character count of text, the size of data, an enum's raw value.
    private func property(_ keyPath: AnyKeyPath, of value: Scalar, rootType: Any.Type) throws -> Scalar {
        let traits = Traits.strict(value.traits)
        switch keyPath {
        case \String.count, \Substring.count:
            return Scalar(sql: SQLFunction.count(value.sql), traits: traits)
        case \String.isEmpty, \Substring.isEmpty:
            // Text is compared with its length: "\0" is not empty.
            return Scalar(sql: "(" + value.sql + " = '')", traits: traits)
        case \Data.count:
            return Scalar(sql: "length(" + value.sql + ")", traits: traits)
        case \Data.isEmpty:
            return Scalar(sql: "(length(" + value.sql + ") = 0)", traits: traits)
        default:
            // An enum's raw value is what the column holds.
            if Self.isRawValue(keyPath, of: rootType) { return value }
            throw unsupported("\(keyPath) on a value of type \(rootType)")
        }
    }

    /// The key of the row `access` reaches in `mapping`'s table; NULL for a hidden marked row.
    package func rowKey(_ access: RowAccess, of mapping: EntityMapping) -> SQLFragment {
        switch access {
        case .alias(let alias): SQLFragment("\(alias).Z_PK")
        case .key(let key): key
        case let .unmarkedKey(key, markColumn):
            "(CASE WHEN " + isUnmarked(key, of: mapping, markColumn: markColumn) + " THEN " + key + " END)"
        }
    }

    /// `key` followed by `test` (` IS ?`, ` IN (…)`), false for a hidden marked row: the test stays on
    /// the key itself, so that SQLite can use the key's index.
    package func keyTest(_ access: RowAccess, of mapping: EntityMapping, _ test: SQLFragment) -> SQLFragment {
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

    /// `FROM … WHERE …` selecting the members of a to-many relationship, with the member table
    /// aliased as `members.alias`, and the conditions of its filters.
    package func membersFrom(_ members: Members) -> SQLFragment {
        let destination = store.mappings[members.relationship.destination]
        let alias = members.alias
        // Members marked for deletion are hidden, as Swift hides them.
        var conditions = destination.quotedMarkColumn.map { [SQLFragment(" AND \(alias).\($0) IS NULL")] } ?? []
        conditions += members.conditions.map { " AND " + $0 }
        let from: SQLFragment
        switch members.relationship.storage {
        case let .inverseForeignKey(_, column, _):
            from = SQLFragment("FROM \(destination.table) AS \(alias) WHERE \(alias).\(SQL.quote(column)) = ", members.owner)
        case let .joinTable(table, source, target, _):
            from = SQLFragment(
                "FROM \(SQL.quote(table)) AS j\(alias) JOIN \(destination.table) AS \(alias) ON \(alias).Z_PK = j\(alias).\(target) WHERE j\(alias).\(source) = ",
                members.owner)
        case .foreignKey:
            return SQLFragment("FROM \(destination.table) AS \(alias) WHERE 0")
        }
        return conditions.reduce(from, +)
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

    /// Whether `keyPath` reads an enum attribute's raw value, the value its column holds. Known
    /// by what it reads, for every case: a key path written in the predicate is not equal to the
    /// one a generic function writes (`\R.rawValue` goes through the protocol).
    private static func isRawValue(_ keyPath: AnyKeyPath, of type: Any.Type) -> Bool {
        func check<R: RawRepresentable & CaseIterable & AttributeValue>(_ type: R.Type) -> Bool {
            guard Swift.type(of: keyPath).valueType == R.RawValue.self, let keyPath = keyPath as? PartialKeyPath<R> else { return false }
            return R.allCases.allSatisfy { ($0[keyPath: keyPath] as? any AttributeValue)?.storedValue == $0.storedValue }
        }
        guard let representable = type as? any (RawRepresentable & CaseIterable & AttributeValue).Type else { return false }
        return check(representable)
    }

    // MARK: Constants

    /// A constant of a predicate as a value the store compares: its stored form (text
    /// precomposed, a date as the seconds it holds), the NaN marker for NaN.
    package func constant(_ value: Any) throws -> Operand {
        if let value = value as? any AttributeValue {
            return .scalar(try storedConstant(value))
        }
        if let character = value as? Character {
            return .scalar(try storedConstant(String(character)))
        }
        if let regex = value as? PredicateExpressions.PredicateRegex {
            return .scalar(Scalar(sql: SQLFragment("?", arguments: [regex.stringRepresentation.databaseValue])))
        }
        if let result = value as? ComparisonResult {
            return .scalar(Scalar(sql: SQLFragment("?", arguments: [result.rawValue.databaseValue])))
        }
        if let object = value as? any Entity {
            return .scalar(
                Scalar(sql: SQLFragment("?", arguments: [object.objectID.isTemporary ? .null : object.objectID.key.databaseValue])))
        }
        if let id = value as? ObjectID {
            return .objectIDs([id])
        }
        if let ids = value as? any Collection<ObjectID> {
            return .objectIDs(Array(ids))
        }
        if let range = try constantRange(value) {
            return range
        }
        if let collection = value as? any Collection {
            return try constants(collection)
        }
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional, mirror.children.isEmpty {
            return .scalar(Scalar(sql: "NULL"))
        }
        throw unsupported("a constant of type \(Swift.type(of: value))")
    }

    /// A constant's stored form; one that cannot be encoded refuses the predicate (compared as NULL,
    /// it would match nothing without a word). A NaN is the NaN marker.
    private func storedConstant(_ value: any AttributeValue) throws -> Scalar {
        if case .real(let real) = value.storedValue, real.isNaN {
            return Scalar(sql: SQLFragment(SQLFunction.nanMarker), traits: Traits(mayBeNaN: true))
        }
        do {
            return Scalar(sql: SQLFragment("?", arguments: [try value.checkedStoredValue().databaseValue]))
        } catch {
            throw unsupported("a constant of type \(Swift.type(of: value)) that cannot be encoded: \(error)")
        }
    }

    /// The values of a constant collection, for `contains`.
    private func constants(_ collection: any Collection) throws -> Operand {
        var values: [StoredValue] = []
        var holdsNil = false
        for element in collection {
            guard let element = element as? any AttributeValue else {
                throw unsupported("a collection of \(Swift.type(of: element))")
            }
            let stored = element.storedValue
            switch stored {
            case .null: holdsNil = true
            case .real(let real) where real.isNaN: continue  // NaN equals nothing
            default:
                do {
                    values.append(try element.checkedStoredValue())
                } catch {
                    throw unsupported("a constant of type \(Swift.type(of: element)) that cannot be encoded: \(error)")
                }
            }
        }
        return .constants(values, holdsNil: holdsNil)
    }

    /// A constant range (`Range`, `ClosedRange` or a one-sided range), or nil for another value.
    private func constantRange(_ value: Any) throws -> Operand? {
        guard let range = value as? any RangeExpression else { return nil }
        func bound(_ value: Any) throws -> Scalar {
            guard let value = value as? any AttributeValue else { throw unsupported("a range of \(Swift.type(of: value))") }
            return try storedConstant(value)
        }
        guard let (lower, upper, includesUpper) = RangeBounds.of(range) else {
            throw unsupported("a range of type \(Swift.type(of: range))")
        }
        return .range(lower: try lower.map(bound), upper: try upper.map(bound), includesUpper: includesUpper, check: nil)
    }
}

/// The bounds of Swift's range types, from an existential range.
private enum RangeBounds {
    /// The bounds (nil for the open side of a one-sided range), and whether the upper one is in
    /// the range; nil for a range type that is none of Swift's five.
    package static func of(_ range: any RangeExpression) -> (lower: Any?, upper: Any?, includesUpper: Bool)? {
        func open<R: RangeExpression>(_ range: R) -> (lower: Any?, upper: Any?, includesUpper: Bool)? {
            switch range {
            case let range as Range<R.Bound>: (range.lowerBound, range.upperBound, false)
            case let range as ClosedRange<R.Bound>: (range.lowerBound, range.upperBound, true)
            case let range as PartialRangeFrom<R.Bound>: (range.lowerBound, nil, false)
            case let range as PartialRangeThrough<R.Bound>: (nil, range.upperBound, true)
            case let range as PartialRangeUpTo<R.Bound>: (nil, range.upperBound, false)
            default: nil
            }
        }
        return open(range)
    }
}
