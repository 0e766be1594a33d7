/// How an entity's objects are laid out in the store: its table, columns and relationship storage.
///
/// Built once when a container opens; immutable and shared by every context.
final class EntityMapping: Sendable {
    let declaration: EntityDeclaration
    let description: EntityDescription
    /// Position in the store's mapping list.
    let index: Int
    let table: String
    /// Attribute slot → column name.
    let attributeColumns: [String]
    /// To-one slot → the relationship's mapping.
    let toOneRelationships: [RelationshipMapping]
    /// To-many slot → the relationship's mapping.
    let toManyRelationships: [RelationshipMapping]
    /// To-one and to-many slot → the destination entity.
    let toOneDestinations: [EntityDeclaration]
    let toManyDestinations: [EntityDeclaration]
    /// To-one and to-many slot → the delete rule (read for every deleted object, so kept apart from
    /// the relationship mappings, which are costly to copy).
    let toOneDeleteRules: [DeleteRule]
    let toManyDeleteRules: [DeleteRule]
    /// Position in ``ObjectState/values`` → how its column is read (to-one keys are integers).
    let valueStorageClasses: [StorageClass]
    /// Attribute slot → the quoted column name.
    let quotedAttributeColumns: [String]
    /// To-one slots stored as a foreign key in this table, with the quoted column.
    let foreignKeys: [(slot: Int, quotedColumn: String)]
    /// `INSERT INTO table (Z_PK, Z_UUID, Z_VERSION, attributes…, foreign keys…) VALUES (?, …)`.
    let insertSQL: String
    /// The columns of a row as read into an object, for a query whose table is aliased `t0`:
    /// `Z_PK, Z_VERSION, attributes…, to-one keys…` (a subquery for the side of a one-to-one that does
    /// not hold the foreign key). The global ID is left out: reading a 16-byte blob for every row cost
    /// a tenth of a fetch, and it is read when asked for (see ``ObjectState/loadedGlobalID``).
    let selectList: String
    /// The attributes whose values a deletion keeps in the history (`@Attribute(.preserveValueOnDeletion)`),
    /// by attribute slot.
    let preservedAttributes: [Int]
    /// The SQL expression of a deleted row's tombstone: a JSON object of its preserved values, or
    /// NULL when the entity preserves none or they are all nil.
    let tombstoneSQL: String
    /// For a ``DelayedDeletable`` entity, the attribute slot of `markedForDeletionDate`.
    let markedForDeletionSlot: Int?
    /// The attribute slots with a unique index.
    let uniqueAttributeSlots: [Int]
    /// The attributes with rules (`@Attribute(.range(1...5))`), by slot; empty for most entities, so
    /// that a save checks nothing for them.
    let attributeRules: [AttributeRules]
    /// The quoted column of the mark, for SQL that hides marked rows as Swift does.
    var quotedMarkColumn: String? { markedForDeletionSlot.map { quotedAttributeColumns[$0] } }
    /// To-one slot → whether the destination is ``DelayedDeletable`` (its marked objects are hidden).
    let toOneDestinationsHideMarked: [Bool]

    init(
        declaration: EntityDeclaration, description: EntityDescription, index: Int,
        toOne: [RelationshipMapping], toMany: [RelationshipMapping]
    ) {
        self.declaration = declaration
        self.description = description
        self.index = index
        self.table = SQL.quote(description.name)
        self.attributeColumns = description.attributes.map(\.name)
        self.toOneRelationships = toOne
        self.toManyRelationships = toMany
        self.toOneDestinations = toOne.map(\.destinationDeclaration)
        self.toManyDestinations = toMany.map(\.destinationDeclaration)
        self.toOneDeleteRules = toOne.map(\.description.deleteRule)
        self.toManyDeleteRules = toMany.map(\.description.deleteRule)
        self.quotedAttributeColumns = attributeColumns.map(SQL.quote)
        self.uniqueAttributeSlots = description.attributes.indices.filter { description.attributes[$0].isUnique }
        self.valueStorageClasses =
            description.attributes.map { StorageClass($0.type) }
            + Array(repeating: .integer, count: toOne.count)
        self.foreignKeys = toOne.enumerated().compactMap { slot, relationship in
            relationship.foreignKeyColumn.map { (slot, SQL.quote($0)) }
        }
        let insertColumns = ["Z_PK", "Z_UUID", "Z_VERSION"] + quotedAttributeColumns + foreignKeys.map(\.quotedColumn)
        self.insertSQL =
            "INSERT INTO \(table) (\(insertColumns.joined(separator: ", "))) "
            + "VALUES (\(SQL.placeholders(insertColumns.count)))"
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
        let columns =
            ["t0.Z_PK", "t0.Z_VERSION"] + attributeColumns.map { "t0." + SQL.quote($0) }
            + toOneColumns
        self.selectList = columns.joined(separator: ", ")
        let attributeOptions = declaration.properties.compactMap { property -> Set<AttributeOption>? in
            if case .attribute(let attribute) = property.kind { return attribute.options }
            return nil
        }
        self.preservedAttributes = attributeOptions.indices.filter { attributeOptions[$0].contains(.preserveValueOnDeletion) }
        self.attributeRules = declaration.properties.compactMap { property -> [AttributeRule]? in
            if case .attribute(let attribute) = property.kind { return attribute.rules }
            return nil
        }.enumerated().compactMap { slot, rules in
            rules.isEmpty ? nil : AttributeRules(slot: slot, name: description.attributes[slot].name, rules: rules)
        }
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
        self.markedForDeletionSlot =
            declaration.type is any DelayedDeletable.Type
            ? description.attributes.firstIndex { $0.name == DelayedDeletableKey.markedForDeletionDate } : nil
    }

    var name: String { description.name }
}

/// Where a relationship's links are stored.
struct RelationshipMapping: Sendable {
    enum Storage: Sendable {
        /// A column of this entity's table holds the destination's primary key.
        case foreignKey(column: String)
        /// A column of the destination's table holds this entity's primary key; `orderColumn` keeps
        /// the order of an ordered to-many.
        case inverseForeignKey(table: String, column: String, orderColumn: String?)
        /// A join table links both sides (many-to-many).
        case joinTable(table: String, sourceColumn: String, targetColumn: String, orderColumn: String?)
    }

    let description: RelationshipDescription
    let propertyIndex: Int
    /// Position of the destination's mapping in the store's list.
    let destination: Int
    /// The destination entity, for the IDs of related objects.
    let destinationDeclaration: EntityDeclaration
    let storage: Storage
    /// The inverse's property index and slot in the destination.
    let inversePropertyIndex: Int
    let inverseSlot: Int
    let inverseIsToMany: Bool

    var name: String { description.name }
    var isToMany: Bool { description.isToMany }
    /// Whether the links are join-table rows.
    var isManyToMany: Bool {
        if case .joinTable = storage { return true }
        return false
    }

    var foreignKeyColumn: String? {
        if case .foreignKey(let column) = storage { return column }
        return nil
    }
}

/// Helpers to write SQL safely.
enum SQL {
    /// Quotes an identifier: `name` → `"name"`.
    static func quote(_ identifier: String) -> String {
        // Most identifiers hold no quote; replacing goes through Foundation and costs far more.
        guard identifier.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + identifier + "\"" }
        return "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `?, ?, ?` for `count` arguments.
    static func placeholders(_ count: Int) -> String {
        count > 0 ? String(repeating: "?, ", count: count - 1) + "?" : ""
    }

    /// Order column of a one-to-many ordered relationship, stored beside the foreign key.
    static func orderColumn(forForeignKey column: String) -> String { "Z_\(column)_ORDER" }
}

extension EntityMapping {
    /// The first rule the value of attribute `slot` breaks, if any.
    func brokenRule(slot: Int, value: StoredValue) -> AttributeRule? {
        guard !attributeRules.isEmpty, let attribute = attributeRules.first(where: { $0.slot == slot }) else { return nil }
        return attribute.broken(by: value).first
    }
}

/// The rules of one attribute, with their patterns compiled once.
struct AttributeRules: @unchecked Sendable {
    // Safety: the compiled patterns are only read: matching takes a `Regex` by value and leaves it
    // as it was. `Regex<AnyRegexOutput>` is not `Sendable` only because its output type is not.
    let slot: Int
    let name: String
    let rules: [(rule: AttributeRule, pattern: Regex<AnyRegexOutput>?)]

    init(slot: Int, name: String, rules: [AttributeRule]) {
        self.slot = slot
        self.name = name
        self.rules = rules.map { ($0, $0.compiledPattern()) }
    }

    /// The rules `value` breaks.
    func broken(by value: StoredValue) -> [AttributeRule] {
        guard !value.isNull else { return [] }
        return rules.compactMap { $0.rule.isFollowed(by: value, pattern: $0.pattern) ? nil : $0.rule }
    }
}
