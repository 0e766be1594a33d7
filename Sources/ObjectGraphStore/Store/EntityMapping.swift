public import Foundation
public import ObjectGraphModel

/// How an entity's objects are laid out in the store: its table, columns and relationship storage.
///
/// Built once when a container opens; immutable and shared by every context.
package final class EntityMapping: Sendable {
    package let declaration: EntityDeclaration
    package let description: EntityDescription
    /// Position in the store's mapping list.
    package let index: Int
    package let table: String
    /// Attribute slot → column name.
    package let attributeColumns: [String]
    /// To-one slot → the relationship's mapping.
    package let toOneRelationships: [RelationshipMapping]
    /// To-many slot → the relationship's mapping.
    package let toManyRelationships: [RelationshipMapping]
    /// To-one and to-many slot → the destination entity.
    package let toOneDestinations: [EntityDeclaration]
    package let toManyDestinations: [EntityDeclaration]
    /// To-one and to-many slot → the delete rule (read for every deleted object, so kept apart from
    /// the relationship mappings, which are costly to copy).
    package let toOneDeleteRules: [DeleteRule]
    package let toManyDeleteRules: [DeleteRule]
    /// To-many slot → whether the relationship is ordered (read at every member change, for the
    /// same reason).
    package let toManyIsOrdered: [Bool]
    /// Position in ``ObjectState/values`` → how its column is read (to-one keys are integers).
    package let valueStorageClasses: [StorageClass]
    /// Attribute slot → the quoted column name.
    package let quotedAttributeColumns: [String]
    /// To-one slots stored as a foreign key in this table, with the quoted column.
    package let foreignKeys: [(slot: Int, quotedColumn: String)]
    /// `INSERT INTO table (Z_PK, Z_UUID, Z_VERSION, attributes…, foreign keys…) VALUES (?, …)`.
    package let insertSQL: String
    /// The columns of a row as read into an object, for a query whose table is aliased `t0`:
    /// `Z_PK, Z_VERSION, attributes…, to-one keys…` (a subquery for the side of a one-to-one that does
    /// not hold the foreign key). The global ID is left out: reading a 16-byte blob for every row cost
    /// a tenth of a fetch, and it is read when asked for (see ``ObjectState/loadedGlobalID``).
    package let selectList: String
    /// For an entity with subentities, each subentity's value columns in ``selectList``, by value
    /// position, by entity name: a row of a subentity is read from them. Empty otherwise.
    package let subentityColumns: [String: [CInt]]
    /// The number of columns of ``selectList``: the first column beyond it (a search's rank, a
    /// row's global ID). For an entity with subentities, the last of them is each row's entity.
    package let selectListCount: CInt
    /// The value columns of ``selectList`` (its entries after `Z_PK` and `Z_VERSION`), by value
    /// position: what a partial fetch selects of them.
    package let valueColumns: [String]
    /// The attributes whose values a deletion keeps in the history (`@Attribute(.preserveValueOnDeletion)`),
    /// by attribute slot.
    package let preservedAttributes: [Int]
    /// The SQL expression of a deleted row's tombstone: a JSON object of its preserved values, or
    /// NULL when the entity preserves none or they are all nil.
    package let tombstoneSQL: String
    /// For a ``DelayedDeletable`` entity, the attribute slot of `markedForDeletionDate`.
    package let markedForDeletionSlot: Int?
    /// The attribute slots in a group with a unique index (a unique attribute's, a `#Unique` group's):
    /// a save releases their changed values before it writes any row.
    package let uniqueAttributeSlots: [Int]
    /// Every group of columns no two rows may share: each unique attribute's, then `#Unique`'s.
    package let uniqueGroups: [ColumnGroup]
    /// The `#Index` groups of more than one attribute.
    package let indexGroups: [ColumnGroup]
    /// The rules of the attributes (`@Attribute(.range(1...5))`), as checks; empty for most
    /// entities, so that a save checks nothing for them.
    package let ruleChecks: RuleChecks
    /// The attribute slots whose large values are kept in files (`@Attribute(.externalStorage)`);
    /// empty for most entities.
    package let externalSlots: [Int]
    /// Where those files are, for reading a row's values; nil when the entity keeps no value in
    /// files, or the store is in memory.
    package let externalFiles: ExternalFiles?
    /// For an entity of a hierarchy (a parent or subentity), the table they share and the rows
    /// that are this entity's; nil for most entities, which have a table of their own.
    package let hierarchy: EntityHierarchy?
    /// The name the table's keys are allocated under: the hierarchy's root for its entities, whose
    /// rows share one table and one range of keys.
    package var keySpace: String { hierarchy?.root ?? name }
    /// Whether the values of attribute `slot` may be in files, whose names its column holds.
    package func readsFiles(atSlot slot: Int) -> Bool {
        externalFiles != nil && externalSlots.contains(slot)
    }

    /// The SQL of an attribute's value, given its column's (`t0."photo"`): the column, or for an
    /// attribute whose values may be in files, the values themselves (``ExternalValueFunction``),
    /// so that SQL compares, measures and sorts the bytes Swift does, not a file's name.
    package func valueSQL(ofSlot slot: Int, column: String) -> String {
        readsFiles(atSlot: slot) ? "\(ExternalValueFunction.name)(\(column))" : column
    }

    /// The quoted column of the mark, for SQL that hides marked rows as Swift does.
    package var quotedMarkColumn: String? { markedForDeletionSlot.map { quotedAttributeColumns[$0] } }
    /// To-one slot → whether the destination is ``DelayedDeletable`` (its marked objects are hidden).
    package let toOneDestinationsHideMarked: [Bool]
    /// The slots of the attributes that are not optional, which a save checks for a value.
    package let requiredAttributeSlots: [Int]
    /// Whether the entity is ``DelayedDeletable`` and its marks run delete rules
    /// (``DelayedDeletable/propagatesDeleteRulesWhenMarked``), read once rather than by a dynamic
    /// cast of every object a save validates.
    package let propagatesDeleteRulesWhenMarked: Bool

    package init(
        declaration: EntityDeclaration, description: EntityDescription, index: Int,
        toOne: [RelationshipMapping], toMany: [RelationshipMapping], externalFiles: ExternalFiles? = nil,
        hierarchy: EntityHierarchy? = nil, subentityValueColumns: [String: [String]]? = nil
    ) {
        self.declaration = declaration
        self.hierarchy = hierarchy
        self.externalSlots = description.attributes.indices.filter { description.attributes[$0].allowsExternalStorage }
        self.externalFiles = externalSlots.isEmpty ? nil : externalFiles
        self.description = description
        self.index = index
        self.table = SQL.quote(hierarchy?.root ?? description.name)
        self.attributeColumns = description.attributes.map(\.name)
        self.toOneRelationships = toOne
        self.toManyRelationships = toMany
        self.toOneDestinations = toOne.map(\.destinationDeclaration)
        self.toManyDestinations = toMany.map(\.destinationDeclaration)
        self.toOneDeleteRules = toOne.map(\.description.deleteRule)
        self.toManyDeleteRules = toMany.map(\.description.deleteRule)
        self.toManyIsOrdered = toMany.map(\.description.isOrdered)
        self.quotedAttributeColumns = attributeColumns.map(SQL.quote)
        // Groups the store refused to map were refused with the model (`SQLiteStore.makeMappings`).
        self.uniqueGroups = description.allUniquenessConstraints.compactMap {
            ColumnGroup($0, description: description, toOne: toOne)
        }
        self.indexGroups = description.indexes.compactMap { ColumnGroup($0, description: description, toOne: toOne) }
        self.uniqueAttributeSlots = Array(
            Set(uniqueGroups.flatMap { $0.positions.filter { $0 < description.attributes.count } })
        ).sorted()
        self.valueStorageClasses =
            description.attributes.map { StorageClass($0.type) }
            + Array(repeating: .integer, count: toOne.count)
        self.foreignKeys = toOne.enumerated().compactMap { slot, relationship in
            relationship.foreignKeyColumn.map { (slot, SQL.quote($0)) }
        }
        let insertColumns = ["Z_PK", "Z_UUID", "Z_VERSION"] + quotedAttributeColumns + foreignKeys.map(\.quotedColumn)
        // A row of a hierarchy's table names its entity, a constant of the statement.
        let entityColumn = hierarchy == nil ? "" : ", \(EntityHierarchy.entityColumn)"
        let entityValue = hierarchy.map { ", " + SQL.literal($0.entity.databaseValue) } ?? ""
        self.insertSQL =
            "INSERT INTO \(table) (\(insertColumns.joined(separator: ", "))\(entityColumn)) "
            + "VALUES (\(SQL.placeholders(insertColumns.count))\(entityValue))"
        let toOneColumns = toOne.map { relationship -> String in
            switch relationship.storage {
            case .foreignKey(let column):
                return "t0." + SQL.quote(column)
            case let .inverseForeignKey(table, column, _):
                return "(SELECT i.Z_PK FROM \(SQL.quote(table)) AS i WHERE i.\(SQL.quote(column)) = t0.Z_PK LIMIT 1)"
            case .joinTable:
                return "NULL"  // a to-one is never stored in a join table
            }
        }
        self.valueColumns = attributeColumns.map { "t0." + SQL.quote($0) } + toOneColumns
        // An entity with subentities also reads their columns, then each row's entity: a row of
        // a subentity is an object of its own class, made from its own columns (see
        // `CurrentRow/entityName` and `subentityColumns`).
        var hierarchyColumns: [String] = []
        if let subentityValueColumns, hierarchy?.hasSubentities == true {
            for columns in subentityValueColumns.values {
                for column in columns where !valueColumns.contains(column) && !hierarchyColumns.contains(column) {
                    hierarchyColumns.append(column)
                }
            }
            hierarchyColumns.sort()
            let selected = valueColumns + hierarchyColumns
            self.subentityColumns = subentityValueColumns.mapValues { columns in
                columns.map { column in CInt(2 + (selected.firstIndex(of: column) ?? 0)) }
            }
            hierarchyColumns.append("t0.\(EntityHierarchy.entityColumn)")
        } else {
            self.subentityColumns = [:]
        }
        self.selectList = (["t0.Z_PK", "t0.Z_VERSION"] + valueColumns + hierarchyColumns).joined(separator: ", ")
        self.selectListCount = CInt(2 + valueColumns.count + hierarchyColumns.count)
        let attributeOptions = declaration.properties.compactMap { property -> Set<AttributeOption>? in
            if case .attribute(let attribute) = property.kind { return attribute.options }
            return nil
        }
        self.preservedAttributes = attributeOptions.indices.filter { attributeOptions[$0].contains(.preserveValueOnDeletion) }
        self.ruleChecks = RuleChecks(
            declaration.properties.compactMap { property -> [AttributeRule]? in
                if case .attribute(let attribute) = property.kind { return attribute.rules }
                return nil
            })
        // JSON cannot hold a blob: blobs are kept as hexadecimal text (see `Tombstone`).
        let preserved = preservedAttributes.map { slot -> String in
            let column = SQL.quote(description.attributes[slot].name)
            let value = StorageClass(description.attributes[slot].type) == .blob ? "hex(\(column))" : column
            return "'\(description.attributes[slot].name)', \(value)"
        }
        // A row whose preserved values are all nil (a mood never synced has no remote ID) keeps
        // none: building a JSON object costs SQLite more than recording the change itself.
        let anyValue = preservedAttributes.map { "\(SQL.quote(description.attributes[$0].name)) IS NOT NULL" }
        self.tombstoneSQL =
            preserved.isEmpty
            ? "NULL"
            : """
            CASE WHEN \(anyValue.joined(separator: " OR ")) THEN json_object(\(preserved.joined(separator: ", "))) END
            """
        self.toOneDestinationsHideMarked = toOne.map { $0.destinationDeclaration.type is any DelayedDeletable.Type }
        self.requiredAttributeSlots = description.attributes.indices.filter { !description.attributes[$0].isOptional }
        self.propagatesDeleteRulesWhenMarked =
            (declaration.type as? any DelayedDeletable.Type)?.propagatesDeleteRulesWhenMarked ?? false
        self.markedForDeletionSlot =
            declaration.type is any DelayedDeletable.Type
            ? description.attributes.firstIndex { $0.name == DelayedDeletableKey.markedForDeletionDate } : nil
    }

    package var name: String { description.name }

    /// Whether the value at a row position is written to a column of this table: every attribute,
    /// and the to-one relationships that hold the foreign key (not the other side of a one-to-one).
    package func hasColumn(atPosition position: Int) -> Bool {
        position < attributeColumns.count || toOneRelationships[position - attributeColumns.count].foreignKeyColumn != nil
    }

    /// `UPDATE table SET column = ?, …, Z_VERSION = Z_VERSION + 1 WHERE Z_PK = ?`, then `AND
    /// Z_VERSION = ?` when `versioned`: the columns at these row positions (each
    /// ``hasColumn(atPosition:)``), in order.
    package func updateSQL(positions: [Int], versioned: Bool) -> String {
        let assignments =
            positions.map { position in
                position < attributeColumns.count
                    ? "\(quotedAttributeColumns[position]) = ?"
                    : "\(SQL.quote(toOneRelationships[position - attributeColumns.count].foreignKeyColumn ?? "")) = ?"
            } + ["Z_VERSION = Z_VERSION + 1"]
        return "UPDATE \(table) SET \(assignments.joined(separator: ", ")) WHERE Z_PK = ?"
            + (versioned ? " AND Z_VERSION = ?" : "")
    }
}

/// Where a relationship's links are stored.
///
/// A class, immutable: the save and delete paths read a relationship's mapping for every object they
/// touch, and copying a struct of strings and enums cost retains and releases of each of its fields.
package final class RelationshipMapping: Sendable {
    package enum Storage: Sendable {
        /// A column of this entity's table holds the destination's primary key.
        case foreignKey(column: String)
        /// A column of the destination's table holds this entity's primary key; `orderColumn` keeps
        /// the order of an ordered to-many.
        case inverseForeignKey(table: String, column: String, orderColumn: String?)
        /// A join table links both sides (many-to-many).
        case joinTable(table: String, sourceColumn: String, targetColumn: String, orderColumn: String?)
    }

    package let description: RelationshipDescription
    package let propertyIndex: Int
    /// Position of the destination's mapping in the store's list.
    package let destination: Int
    /// The destination entity, for the IDs of related objects.
    package let destinationDeclaration: EntityDeclaration
    package let storage: Storage
    /// The inverse's property index and slot in the destination.
    package let inversePropertyIndex: Int
    package let inverseSlot: Int
    package let inverseIsToMany: Bool

    package init(
        description: RelationshipDescription, propertyIndex: Int, destination: Int,
        destinationDeclaration: EntityDeclaration, storage: Storage, inversePropertyIndex: Int, inverseSlot: Int,
        inverseIsToMany: Bool
    ) {
        self.description = description
        self.propertyIndex = propertyIndex
        self.destination = destination
        self.destinationDeclaration = destinationDeclaration
        self.storage = storage
        self.inversePropertyIndex = inversePropertyIndex
        self.inverseSlot = inverseSlot
        self.inverseIsToMany = inverseIsToMany
    }

    package var name: String { description.name }
    package var isToMany: Bool { description.isToMany }
    /// Whether the links are join-table rows.
    package var isManyToMany: Bool {
        if case .joinTable = storage { return true }
        return false
    }

    package var foreignKeyColumn: String? {
        if case .foreignKey(let column) = storage { return column }
        return nil
    }
}

/// Helpers to write SQL safely.
package enum SQL {
    /// Quotes an identifier: `name` → `"name"`.
    package static func quote(_ identifier: String) -> String {
        // Most identifiers hold no quote; replacing goes through Foundation and costs far more.
        guard identifier.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + identifier + "\"" }
        return "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `?, ?, ?` for `count` arguments.
    package static func placeholders(_ count: Int) -> String {
        count > 0 ? String(repeating: "?, ", count: count - 1) + "?" : ""
    }

    /// Order column of a one-to-many ordered relationship, stored beside the foreign key.
    package static func orderColumn(forForeignKey column: String) -> String { "Z_\(column)_ORDER" }
}

/// An entity's attribute rules, made into checks that cost a comparison or two per value: a save
/// checks every rule of every inserted or changed object.
@usableFromInline package final class RuleChecks: @unchecked Sendable {
    // Safety: every property is a constant, and the compiled patterns are only read: matching takes
    // a `Regex` by value and leaves it as it was. `Regex<AnyRegexOutput>` is not `Sendable` only
    // because its output type is not. A class, so that a save's check of each object retains one
    // reference, not three arrays.

    /// One rule of one attribute, as plain values.
    @usableFromInline package struct Check {
        package let slot: Int
        /// The rule's place in ``RuleChecks/rules``, for the failure's message.
        package let rule: Int
        @usableFromInline package let kind: Kind

        @usableFromInline package enum Kind {
            case integerRange(Int64, Int64)
            case realRange(Double, Double)
            case length(Int, Int)
            /// The index of the compiled pattern in ``RuleChecks/patterns``.
            case pattern(Int)
        }
    }

    @usableFromInline package let checks: [Check]
    package let rules: [AttributeRule]
    @usableFromInline package let patterns: [Regex<AnyRegexOutput>]

    package var isEmpty: Bool { checks.isEmpty }

    /// The checks of each attribute's rules, by attribute slot.
    package init(_ rulesBySlot: [[AttributeRule]]) {
        var checks: [Check] = [], rules: [AttributeRule] = [], patterns: [Regex<AnyRegexOutput>] = []
        for (slot, slotRules) in rulesBySlot.enumerated() {
            for rule in slotRules {
                let kind: Check.Kind
                switch rule.kind {
                case let .range(minimum, maximum):
                    if case .integer? = minimum ?? .integer(0), case .integer? = maximum ?? .integer(0) {
                        func integer(_ value: StoredValue?, _ otherwise: Int64) -> Int64 {
                            if case .integer(let bound)? = value { bound } else { otherwise }
                        }
                        kind = .integerRange(integer(minimum, .min), integer(maximum, .max))
                    } else {
                        func real(_ value: StoredValue?, _ otherwise: Double) -> Double {
                            switch value {
                            case .integer(let bound)?: Double(bound)
                            case .real(let bound)?: bound
                            default: otherwise
                            }
                        }
                        kind = .realRange(real(minimum, -.infinity), real(maximum, .infinity))
                    }
                case let .length(minimum, maximum):
                    kind = .length(minimum ?? 0, maximum ?? .max)
                case .matches:
                    // A pattern that does not compile made the model invalid: none reaches here.
                    guard let pattern = rule.compiledPattern() else { continue }
                    kind = .pattern(patterns.count)
                    patterns.append(pattern)
                }
                checks.append(Check(slot: slot, rule: rules.count, kind: kind))
                rules.append(rule)
            }
        }
        self.checks = checks
        self.rules = rules
        self.patterns = patterns
    }

    /// Whether `value` follows the rule of check `index`.
    @inlinable package func isFollowed(check index: Int, by value: StoredValue) -> Bool {
        isFollowed(checks[index].kind, by: value)
    }

    /// The rule of check `index`, for a failure's message.
    package func rule(ofCheck index: Int) -> AttributeRule { rules[checks[index].rule] }

    /// The first rule the value of attribute `slot` breaks, if any.
    package func brokenRule(slot: Int, value: StoredValue) -> AttributeRule? {
        checks.first { $0.slot == slot && !isFollowed($0.kind, by: value) }.map { rules[$0.rule] }
    }

    @inlinable package func isFollowed(_ kind: Check.Kind, by value: StoredValue) -> Bool {
        if case .null = value { return true }
        switch kind {
        case let .integerRange(minimum, maximum):
            if case .integer(let integer) = value { return integer >= minimum && integer <= maximum }
            if case .real(let real) = value { return real >= Double(minimum) && real <= Double(maximum) }
        case let .realRange(minimum, maximum):
            if case .real(let real) = value { return real >= minimum && real <= maximum }
            if case .integer(let integer) = value { return Double(integer) >= minimum && Double(integer) <= maximum }
        case let .length(minimum, maximum):
            if case .text(let text) = value { return Self.length(of: text, isAtLeast: minimum, atMost: maximum) }
            if case .blob(let data) = value { return data.count >= minimum && data.count <= maximum }
        case .pattern(let index):
            if case .text(let text) = value { return (try? patterns[index].wholeMatch(in: text)) != nil }
        }
        return false
    }

    /// Characters are counted only as far as needed: a string has at least as many bytes as
    /// characters, and `.length(1...)` only asks whether it is empty.
    @usableFromInline package static func length(of text: String, isAtLeast minimum: Int, atMost maximum: Int) -> Bool {
        switch minimum {
        case ...0: break
        case 1: if text.isEmpty { return false }
        default: if text.utf8.count < minimum || text.dropFirst(minimum - 1).isEmpty { return false }
        }
        return maximum == .max || text.utf8.count <= maximum || text.count <= maximum
    }
}
