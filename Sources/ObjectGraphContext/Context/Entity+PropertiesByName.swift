import Foundation
public import ObjectGraphModel

/// Properties named at run time: Core Data's `value(forKey:)` and `setValue(_:forKey:)`, for code
/// that works on any entity (an importer, a sync layer) where generated accessors need the type.
///
/// Attributes are read and written in their stored form (``StoredValue``), relationships as objects.
/// Each call goes through the same paths as the accessors: a fault loads, a change is recorded (and
/// reaches observers and the next save), a relationship keeps its inverse in step. Unlike the
/// accessors these throw: a read that fails, a name the entity does not have, a value of the wrong
/// kind.
extension Entity {
    /// The stored value of the attribute named `key`.
    ///
    /// - Throws: ``ObjectGraphError/invalidPropertyAccess(entity:property:reason:)`` when the entity
    ///   has no attribute of that name; ``ObjectGraphError/readFailed(_:property:_:)`` when the
    ///   object's row cannot be read.
    public func storedValue(forKey key: String) throws -> StoredValue {
        let state = _$state
        let slot = try attributeSlot(named: key).slot
        if let context = state.context { try context.loadFault(state) }
        return state.value(atPosition: slot)
    }

    /// Sets the attribute named `key` to a stored value, recorded as a change like an assignment.
    ///
    /// The value must be of the attribute's storage class (an integer for `Int` and `Bool`, a real
    /// for `Double` and `Date` (seconds since 2001), where an integer does too, text for `String`
    /// and `Decimal`, a blob for `Data`, `UUID` and `Codable` values), or NULL for an optional
    /// attribute. It is stored as an assignment stores it: text in Normalization Form C, an
    /// integer given to a real attribute as that real. A NaN is refused.
    ///
    /// - Throws: ``ObjectGraphError/invalidPropertyAccess(entity:property:reason:)`` for an unknown
    ///   attribute or a value that does not fit it, and ``ObjectGraphError/readFailed(_:property:_:)``
    ///   when the object's row cannot be read; nothing is changed then.
    public func setStoredValue(_ value: StoredValue, forKey key: String) throws {
        let state = _$state
        let index = try attributeSlot(named: key).index
        guard case .attribute(let attribute) = state.entity.properties[index].kind else { return }
        if let reason = Self.misfit(value, attribute) {
            throw ObjectGraphError.invalidPropertyAccess(entity: state.entity.name, property: key, reason: reason)
        }
        if let context = state.context { try context.loadFault(state) }
        state.setStoredAttribute(Self.storedForm(of: value, attribute), at: index)
    }

    /// The objects the relationship named `key` holds: none or one for a to-one, the members of a
    /// to-many (in order for an ordered one).
    ///
    /// - Throws: ``ObjectGraphError/invalidPropertyAccess(entity:property:reason:)`` when the entity
    ///   has no relationship of that name; ``ObjectGraphError/readFailed(_:property:_:)`` when the
    ///   object or the relationship's members cannot be read.
    public func relatedObjects(forKey key: String) throws -> [any Entity] {
        let state = _$state
        let index = try relationshipIndex(named: key)
        if let context = state.context {
            try context.loadFault(state)
            if case .toMany(let slot) = state.entity.layout.slots[index] {
                _ = try context.loadedMembers(of: state, slot: slot)  // a failed read throws here, not later
            }
        }
        switch state.entity.layout.slots[index] {
        case .toOne:
            return state.relatedObject(at: index).map { [$0] } ?? []
        case .toMany:
            return state.relatedObjects(at: index)
        case .attribute:
            return []
        }
    }

    /// Sets the relationship named `key`: to the one object given (or to none) for a to-one, to the
    /// objects given, in order, for a to-many. Inverses follow, as with an assignment.
    ///
    /// - Throws: ``ObjectGraphError/invalidPropertyAccess(entity:property:reason:)`` for an unknown
    ///   relationship, more than one object for a to-one, or an object of another entity than the
    ///   relationship's destination; nothing is changed then.
    public func setRelatedObjects(_ objects: [any Entity], forKey key: String) throws {
        let state = _$state
        let index = try relationshipIndex(named: key)
        guard case .relationship(let relationship) = state.entity.properties[index].kind else { return }
        let destination = relationship.destination()
        if let stranger = objects.first(where: { $0._$state.entity !== destination }) {
            throw ObjectGraphError.invalidPropertyAccess(
                entity: state.entity.name, property: key,
                reason: "\(stranger._$state.entity.name) is not \(destination.name), the relationship's destination")
        }
        switch state.entity.layout.slots[index] {
        case .toOne(let slot):
            guard objects.count <= 1 else {
                throw ObjectGraphError.invalidPropertyAccess(
                    entity: state.entity.name, property: key, reason: "a to-one relationship holds one object, not \(objects.count)")
            }
            if let context = state.context {
                context.setToOne(state, slot: slot, to: objects.first)
            } else {
                state.detachedRelatives[index] = objects
            }
        case .toMany(let slot):
            if let context = state.context {
                context.setToMany(state, slot: slot, to: objects)
            } else {
                state.detachedRelatives[index] = objects
            }
        case .attribute:
            break
        }
    }

    // MARK: Names

    private func attributeSlot(named key: String) throws -> (index: Int, slot: Int) {
        let entity = _$state.entity
        guard let index = entity.propertyNames.firstIndex(of: key) else {
            throw ObjectGraphError.invalidPropertyAccess(
                entity: entity.name, property: key, reason: "the entity has no property of that name")
        }
        guard case .attribute(let slot) = entity.layout.slots[index] else {
            throw ObjectGraphError.invalidPropertyAccess(
                entity: entity.name, property: key, reason: "it is a relationship, not an attribute")
        }
        return (index, slot)
    }

    private func relationshipIndex(named key: String) throws -> Int {
        let entity = _$state.entity
        guard let index = entity.propertyNames.firstIndex(of: key) else {
            throw ObjectGraphError.invalidPropertyAccess(
                entity: entity.name, property: key, reason: "the entity has no property of that name")
        }
        guard entity.properties[index].isRelationship else {
            throw ObjectGraphError.invalidPropertyAccess(
                entity: entity.name, property: key, reason: "it is an attribute, not a relationship")
        }
        return index
    }

    /// What an assignment of `value` would store: text precomposed (see ``Swift/String/storedValue``),
    /// an integer given to a real attribute as the real it reads as.
    private static func storedForm(of value: StoredValue, _ attribute: AttributeDeclaration) -> StoredValue {
        switch (value, attribute.type) {
        case (.text(let text), .string): .text(text.precomposed)
        case (.integer(let integer), .double), (.integer(let integer), .date): .real(Double(integer))
        default: value
        }
    }

    /// Why `value` cannot be stored in `attribute`; nil when it can: a value of the kind its type is
    /// stored as, or of another kind its type reads exactly (an integer for a `Double`, a UUID's text).
    private static func misfit(_ value: StoredValue, _ attribute: AttributeDeclaration) -> String? {
        if case .real(let real) = value, real.isNaN { return "\(NotANumber(typeName: attribute.typeName))" }
        if case .integer(let integer) = value, [.double, .date].contains(attribute.type), Double(exactly: integer) == nil {
            return "\(integer) has no exact \(attribute.typeName)"
        }
        let fits =
            switch (value, attribute.type) {
            case (.null, _): attribute.isOptional
            case (.integer, .integer), (.integer, .bool), (.integer, .double), (.integer, .date), (.integer, .decimal),
                (.real, .double), (.real, .date), (.real, .decimal),
                (.text, .string), (.text, .decimal), (.text, .uuid), (.text, .json),
                (.blob, .data), (.blob, .uuid), (.blob, .json):
                true
            default: false
            }
        guard !fits else { return nil }
        return value.isNull
            ? "the attribute is required, and nil is not a value of \(attribute.typeName)"
            : "\(value) is not a stored value of \(attribute.typeName)"
    }
}
