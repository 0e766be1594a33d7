public import ObjectGraphModel
import ObjectGraphStore

/// One attribute assignment of ``ObjectContext/batchUpdate(_:where:set:)``: a stored attribute and
/// the value every matching row gets.
///
/// ```swift
/// try context.batchUpdate(Mood.self, set: [.set(\.rating, to: 3), .set(\.markedForDeletionDate, to: nil)])
/// ```
public struct BatchAssignment<Root: Entity>: Sendable {
    let propertyIndex: Int?
    let keyPathDescription: String
    /// The value's stored form, or why it could not be encoded (the update is then refused).
    let value: Result<StoredValue, UnstorableValue>

    /// Sets the attribute at `keyPath` to `value`.
    public static func set<Value: AttributeValue>(_ keyPath: KeyPath<Root, Value>, to value: Value) -> Self {
        BatchAssignment(
            propertyIndex: Root._$entity.propertyIndex(for: keyPath), keyPathDescription: "\(keyPath)",
            value: Result { try value.checkedStoredValue() }.mapError { UnstorableValue(reason: "\($0)") })
    }

    /// The column written, checked against the entity's mapping.
    func column(in mapping: EntityMapping) throws -> (name: String, slot: Int, value: StoredValue) {
        guard let propertyIndex, case .attribute(let slot) = mapping.declaration.layout.slots[propertyIndex] else {
            throw ObjectGraphError.invalidBatchOperation(
                entity: mapping.name, property: keyPathDescription,
                reason: "only stored attributes can be set by a batch update")
        }
        let attribute = mapping.description.attributes[slot]
        let value: StoredValue
        switch self.value {
        case .success(let stored): value = stored
        case .failure(let failure):
            throw ObjectGraphError.invalidBatchOperation(
                entity: mapping.name, property: attribute.name, reason: "the value cannot be stored: \(failure.reason)")
        }
        if value.isNull && !attribute.isOptional {
            throw ObjectGraphError.invalidBatchOperation(
                entity: mapping.name, property: attribute.name, reason: "the attribute is required and cannot be set to nil")
        }
        if let rule = mapping.ruleChecks.brokenRule(slot: slot, value: value) {
            throw ObjectGraphError.invalidBatchOperation(
                entity: mapping.name, property: attribute.name, reason: "the value \(value) must be \(rule)")
        }
        return (attribute.name, slot, value)
    }
}

/// One row of a batch insert, as the ``RowWriter`` writes it: attribute values, no relationships.
struct BatchRow: RowValues {
    private let values: [StoredValue]

    /// A row from values by attribute name, checked against the entity.
    init(values: [String: any AttributeValue], row: Int, mapping: EntityMapping) throws {
        let attributes = mapping.description.attributes
        func refuse(_ property: String, _ reason: String) -> ObjectGraphError {
            .invalidBatchOperation(entity: mapping.name, property: property, reason: "row \(row): \(reason)")
        }
        for name in values.keys where !attributes.contains(where: { $0.name == name }) {
            throw refuse(
                name,
                mapping.description.relationship(named: name) == nil
                    ? "the entity has no attribute of that name" : "relationships are not set by a batch insert")
        }
        self.values = try attributes.map { attribute in
            guard let value = values[attribute.name] else {
                if let declared = attribute.defaultValue { return declared }
                guard attribute.isOptional else { throw refuse(attribute.name, "a required attribute has no value") }
                return .null
            }
            let type = Swift.type(of: value)
            guard type.attributeType == attribute.type else {
                throw refuse(attribute.name, "a \(type) is not a value of a \(attribute.type) attribute")
            }
            let stored: StoredValue
            do {
                stored = try value.checkedStoredValue()
            } catch {
                throw refuse(attribute.name, "the value cannot be stored: \(error)")
            }
            if stored.isNull && !attribute.isOptional { throw refuse(attribute.name, "a required attribute has no value") }
            return stored
        }
        try Self.checkRules(of: self.values, mapping: mapping) { refuse($0, $1) }
    }

    /// Refuses a row whose values break an attribute's rule (see ``AttributeRule``).
    private static func checkRules(
        of values: [StoredValue], mapping: EntityMapping, refuse: (String, String) -> ObjectGraphError
    ) throws {
        let rules = mapping.ruleChecks
        for index in rules.checks.indices {
            let slot = rules.checks[index].slot
            if !rules.isFollowed(check: index, by: values[slot]) {
                throw refuse(mapping.description.attributes[slot].name, "the value \(values[slot]) must be \(rules.rule(ofCheck: index))")
            }
        }
    }

    /// A row from a new object's attribute values.
    init(object: some Entity, row: Int, mapping: EntityMapping) throws {
        let state = object._$state
        func refuse(_ property: String?, _ reason: String) -> ObjectGraphError {
            .invalidBatchOperation(entity: mapping.name, property: property, reason: "object \(row): \(reason)")
        }
        guard state.context == nil, state.acceptsInitialValues else {
            throw refuse(nil, "only new objects, never inserted into a context, carry values for a batch insert")
        }
        if let index = state.detachedRelatives.inPropertyOrder.first(where: { !$0.objects.isEmpty })?.index {
            throw refuse(state.entity.properties[index].name, "relationships are not set by a batch insert")
        }
        if let (index, reason) = state.unstorableValues.min(by: { $0.key < $1.key }) {
            throw refuse(state.entity.propertyNames[index], "the value cannot be stored: \(reason)")
        }
        let attributes = mapping.description.attributes
        values = (0..<attributes.count).map { state.value(atPosition: $0) }
        for (slot, attribute) in attributes.enumerated() where values[slot].isNull && !attribute.isOptional {
            throw refuse(attribute.name, "a required attribute has no value")
        }
        try Self.checkRules(of: values, mapping: mapping) { refuse($0, $1) }
    }

    func value(atPosition position: Int) -> StoredValue {
        position < values.count ? values[position] : .null
    }

    func relatedKey(at slot: Int) -> Int64? { nil }
}

/// Why a value could not be encoded for storage: its encoder's error, as text (an error value need
/// not be `Sendable`).
struct UnstorableValue: Error, Sendable {
    let reason: String
}
