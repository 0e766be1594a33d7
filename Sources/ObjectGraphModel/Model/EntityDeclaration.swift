import Foundation

/// What `@Entity` declares about one class: its name and persisted properties, in declaration order.
///
/// One instance exists per entity class in the process (`Mood._$entity`); it is independent of any store.
@_documentation(visibility: internal)
public final class EntityDeclaration: Sendable {
    /// The class.
    package let type: any Entity.Type
    /// The entity name, the class name unless `@Entity("Name")` says otherwise.
    @usableFromInline package let name: String
    /// The entity's name before it was renamed, from `@Entity(originalName:)`.
    package let originalName: String?
    package let properties: [PropertyDeclaration]
    /// Property index → name.
    package let propertyNames: [String]
    @usableFromInline package let layout: EntityLayout
    /// Attribute property index → position in the values (``EntityLayout/slotIndex``), where the
    /// accessors inlined in the entity's module read it: a buffer of the declaration's own, never
    /// freed (declarations are immortal), read with two loads and no reference counting. Written
    /// once, here, before the declaration is shared: reading it from any thread is safe.
    @usableFromInline nonisolated(unsafe) let attributePositions: UnsafeMutablePointer<Int>
    /// An object of this entity as `any Entity`, from the plain reference an object's state keeps
    /// (one word rather than the existential's two). Unchecked in release builds: a state only ever
    /// refers to an object of its own entity (the object that claimed it); debug builds check.
    @usableFromInline package let existential: any EntityCasting
    /// Where a state's values start after its header (``StateStorageLayout/payloadOffset``), for the
    /// accessors inlined in the entity's module.
    @usableFromInline package let payloadOffset: Int
    /// The groups of properties no two objects may share (`#Unique`), as property indexes; nil for a
    /// key path that names no persisted property, which the schema refuses.
    package let uniquenessGroups: [[Int?]]
    /// The groups of properties indexed together (`#Index`), as ``uniquenessGroups``.
    package let indexGroups: [[Int?]]
    /// The entity whose subentity this is: its class's `@Entity` superclass. Nil for most entities.
    package let parent: EntityDeclaration?

    /// Made by the code `@Entity` generates, once per class.
    ///
    /// - Parameters:
    ///   - parent: The declaration of the class's `@Entity` superclass, for a subentity.
    ///   - properties: Every persisted property, a subentity's inherited ones first, in order.
    ///   - uniqueness: The groups of `#Unique`.
    ///   - indexes: The groups of `#Index`.
    public init<Object: Entity>(
        _ type: Object.Type, name: String, originalName: String? = nil, parent: EntityDeclaration? = nil,
        properties: [PropertyDeclaration], uniqueness: [[PartialKeyPath<Object>]] = [], indexes: [[PartialKeyPath<Object>]] = []
    ) {
        self.parent = parent
        func resolved(_ groups: [[PartialKeyPath<Object>]]) -> [[Int?]] {
            groups.map { group in group.map { keyPath in properties.firstIndex { ($0.keyPath as AnyKeyPath) == (keyPath as AnyKeyPath) } } }
        }
        self.uniquenessGroups = resolved(uniqueness)
        self.indexGroups = resolved(indexes)
        self.type = type
        self.existential = EntityCast<Object>()
        self.name = name
        self.originalName = originalName
        self.properties = properties
        self.propertyNames = properties.map(\.name)
        self.layout = EntityLayout(properties: properties, isDelayedDeletable: type is any DelayedDeletable.Type)
        self.attributePositions = .allocate(capacity: max(layout.slotIndex.count, 1))
        attributePositions.initialize(from: layout.slotIndex, count: layout.slotIndex.count)
        self.payloadOffset = layout.storage.payloadOffset
        Self.all.withLock { $0.append(self) }
    }

    /// Whether this is `other` or one of its subentities, at any depth.
    @inline(__always)
    package func isKind(of other: EntityDeclaration) -> Bool {
        var declaration = self
        while declaration !== other {
            guard let parent = declaration.parent else { return false }
            declaration = parent
        }
        return true
    }

    /// The root of the entity's hierarchy: itself, for an entity without a parent.
    package var root: EntityDeclaration {
        var declaration = self
        while let parent = declaration.parent { declaration = parent }
        return declaration
    }

    /// Every declaration ever made. `@Entity` makes one per class, in a static constant; keeping them
    /// here too guarantees they are never deallocated, which ``ObjectID`` relies on.
    private static let all = Locked<[EntityDeclaration]>([])

    package func propertyIndex(for keyPath: AnyKeyPath) -> Int? {
        if let index = properties.firstIndex(where: { $0.keyPath == keyPath }) { return index }
        // A key path written generically, through a protocol requirement (`\Self.markedForDeletionDate`
        // in `DelayedDeletable`'s predicates), differs from the class's own key path to the property.
        guard let deletable = type as? any DelayedDeletable.Type else { return nil }
        func isMark<D: DelayedDeletable>(_: D.Type) -> Bool { keyPath == \D.markedForDeletionDate }
        guard isMark(deletable) else { return nil }
        return properties.firstIndex { $0.name == DelayedDeletableKey.markedForDeletionDate }
    }
}

/// How one persisted property is declared. Built by the code `@Entity` generates.
@_documentation(visibility: internal)
public struct PropertyDeclaration: Sendable {
    package let name: String
    package let keyPath: any AnyKeyPath & Sendable
    /// The same property reached through an optional (`\Mood?.?.text`): appended to another entity's
    /// to-one key path, it gives the key path of a sort by a related object's attribute.
    package let chainedKeyPath: any AnyKeyPath & Sendable
    /// Tells Observation of reads and changes of the property (see ``PropertyObservation``).
    package let observation: PropertyObservation
    package let kind: Kind

    package enum Kind: Sendable {
        case attribute(AttributeDeclaration)
        case relationship(RelationshipDeclaration)
    }

    package var isRelationship: Bool {
        if case .relationship = kind { return true }
        return false
    }
}

package struct AttributeDeclaration: Sendable {
    package let type: AttributeType
    /// The Swift type, for messages.
    package let typeName: String
    /// False for an enum without a case (see ``AttributeValue/isInhabited``).
    package let isInhabited: Bool
    package let isOptional: Bool
    package let defaultValue: StoredValue?
    /// Why the declared default could not be encoded; the schema refuses the model then.
    package let defaultValueFailure: String?
    package let options: Set<AttributeOption>
    /// The attribute's name before it was renamed, from `@Attribute(originalName:)`.
    package let originalName: String?

    /// The rules its values must follow, in the order declared.
    package let rules: [AttributeRule]
}

package struct RelationshipDeclaration: Sendable {
    /// The destination's declaration; a closure, because two entities refer to each other.
    package let destination: @Sendable () -> EntityDeclaration
    package let isToMany: Bool
    package let isOrdered: Bool
    package let deleteRule: DeleteRule
    package let inverse: (any AnyKeyPath & Sendable)?
    package let minimumCount: Int?
    package let maximumCount: Int?
}

// MARK: - Builders used by generated code

extension PropertyDeclaration {
    /// An attribute without options.
    public static func property<Root: Entity, Value: AttributeValue>(
        _ name: String, _ keyPath: any KeyPath<Root, Value> & Sendable, chained: any AnyKeyPath & Sendable
    ) -> PropertyDeclaration {
        attribute(name, keyPath, chained: chained)
    }

    /// An attribute with a declared default value.
    public static func property<Root: Entity, Value: AttributeValue>(
        _ name: String, _ keyPath: any KeyPath<Root, Value> & Sendable, chained: any AnyKeyPath & Sendable, default value: Value
    ) -> PropertyDeclaration {
        attribute(name, keyPath, chained: chained, default: value)
    }

    /// An attribute with options (`@Attribute(.unique)`) or a former name
    /// (`@Attribute(originalName: "title")`).
    public static func attribute<Root: Entity, Value: AttributeValue>(
        _ name: String, _ keyPath: any KeyPath<Root, Value> & Sendable, chained: any AnyKeyPath & Sendable,
        options: [AttributeOption] = [], originalName: String? = nil, default value: Value? = nil
    ) -> PropertyDeclaration {
        var declared: StoredValue?
        var failure: String?
        do {
            declared = try value.map { try $0.checkedStoredValue() }.flatMap { $0.isNull ? nil : $0 }
        } catch {
            failure = "\(error)"
        }
        return PropertyDeclaration(
            name: name, keyPath: keyPath, chainedKeyPath: chained, observation: PropertyObservation(keyPath),
            kind: .attribute(
                AttributeDeclaration(
                    type: Value.attributeType, typeName: "\(Value.self)", isInhabited: Value.isInhabited,
                    isOptional: Value.isOptionalAttribute, defaultValue: declared, defaultValueFailure: failure,
                    options: Set(options), originalName: originalName, rules: options.compactMap(\.rule))))
    }

    /// A to-one relationship.
    public static func property<Root: Entity, Destination: Entity>(
        _ name: String, _ keyPath: any KeyPath<Root, Destination?> & Sendable, chained: any AnyKeyPath & Sendable,
        default value: Destination? = nil
    ) -> PropertyDeclaration {
        relationship(name, keyPath, chained: chained)
    }

    /// A to-many relationship.
    public static func property<Root: Entity, Destination: Entity>(
        _ name: String, _ keyPath: any KeyPath<Root, Set<Destination>> & Sendable, chained: any AnyKeyPath & Sendable,
        default value: Set<Destination> = []
    ) -> PropertyDeclaration {
        relationship(name, keyPath, chained: chained)
    }

    /// An ordered to-many relationship.
    public static func property<Root: Entity, Destination: Entity>(
        _ name: String, _ keyPath: any KeyPath<Root, [Destination]> & Sendable, chained: any AnyKeyPath & Sendable,
        default value: [Destination] = []
    ) -> PropertyDeclaration {
        relationship(name, keyPath, chained: chained)
    }

    /// A to-one relationship configured with `@Relationship`.
    public static func relationship<Root: Entity, Destination: Entity>(
        _ name: String, _ keyPath: any KeyPath<Root, Destination?> & Sendable, chained: any AnyKeyPath & Sendable,
        deleteRule: DeleteRule = .nullify, inverse: (any AnyKeyPath & Sendable)? = nil,
        minimumCount: Int? = nil, maximumCount: Int? = nil, default value: Destination? = nil
    ) -> PropertyDeclaration {
        PropertyDeclaration(
            name: name, keyPath: keyPath, chainedKeyPath: chained, observation: PropertyObservation(keyPath),
            kind: .relationship(
                RelationshipDeclaration(
                    destination: { Destination._$entity }, isToMany: false, isOrdered: false, deleteRule: deleteRule,
                    inverse: inverse, minimumCount: minimumCount, maximumCount: maximumCount)))
    }

    /// A to-many relationship configured with `@Relationship`.
    public static func relationship<Root: Entity, Destination: Entity>(
        _ name: String, _ keyPath: any KeyPath<Root, Set<Destination>> & Sendable, chained: any AnyKeyPath & Sendable,
        deleteRule: DeleteRule = .nullify, inverse: (any AnyKeyPath & Sendable)? = nil,
        minimumCount: Int? = nil, maximumCount: Int? = nil, default value: Set<Destination> = []
    ) -> PropertyDeclaration {
        PropertyDeclaration(
            name: name, keyPath: keyPath, chainedKeyPath: chained, observation: PropertyObservation(keyPath),
            kind: .relationship(
                RelationshipDeclaration(
                    destination: { Destination._$entity }, isToMany: true, isOrdered: false, deleteRule: deleteRule,
                    inverse: inverse, minimumCount: minimumCount, maximumCount: maximumCount)))
    }

    /// An ordered to-many relationship configured with `@Relationship`.
    public static func relationship<Root: Entity, Destination: Entity>(
        _ name: String, _ keyPath: any KeyPath<Root, [Destination]> & Sendable, chained: any AnyKeyPath & Sendable,
        deleteRule: DeleteRule = .nullify, inverse: (any AnyKeyPath & Sendable)? = nil,
        minimumCount: Int? = nil, maximumCount: Int? = nil, default value: [Destination] = []
    ) -> PropertyDeclaration {
        PropertyDeclaration(
            name: name, keyPath: keyPath, chainedKeyPath: chained, observation: PropertyObservation(keyPath),
            kind: .relationship(
                RelationshipDeclaration(
                    destination: { Destination._$entity }, isToMany: true, isOrdered: true, deleteRule: deleteRule,
                    inverse: inverse, minimumCount: minimumCount, maximumCount: maximumCount)))
    }
}

// MARK: - Casting

/// Makes `any Entity` of an object whose class is known only as its declaration's. A protocol
/// rather than a closure: a generic closure keeps its type in a context, retained and released at
/// every call.
@usableFromInline package protocol EntityCasting: Sendable {
    func entity(_ object: AnyObject) -> any Entity
}

/// The cast for the objects of one entity class: unchecked in release builds, checked in debug
/// builds (see ``EntityDeclaration/existential``).
package struct EntityCast<Object: Entity>: EntityCasting {
    package func entity(_ object: AnyObject) -> any Entity {
        unsafeDowncast(object, to: Object.self)
    }
}

// MARK: - Layout

/// Where each persisted property lives in an ``ObjectState``.
///
/// Attributes and to-one relationships share one array of stored values laid out like the entity's
/// row: the attributes, then each to-one relationship's destination key. To-many relationships have
/// their own array. Each kind numbers its properties from zero (its slots).
@usableFromInline package struct EntityLayout: Sendable {
    package enum Slot: Sendable, Equatable {
        case attribute(Int)
        case toOne(Int)
        case toMany(Int)
    }

    /// Property index → slot.
    package let slots: [Slot]
    /// Property index → position in its kind's numbering.
    @usableFromInline package let slotIndex: [Int]
    /// The number of attributes; to-one slot `n` is at position `attributeCount + n` of the values.
    @usableFromInline package let attributeCount: Int
    /// The values of a new object: declared defaults, else NULL, and no related objects.
    @usableFromInline package let initialValues: ContiguousArray<StoredValue>
    /// Position in the values → property index.
    package let valueProperties: [Int]
    /// Attribute slot → property index.
    package let attributeProperties: [Int]
    /// To-one slot → property index.
    package let toOneProperties: [Int]
    /// To-many slot → property index.
    package let toManyProperties: [Int]
    /// The to-many relationships of a new object (loaded, empty) and of a fault (not loaded), shared
    /// by every state until one changes.
    package let newToMany: ContiguousArray<ToManyValue>
    @usableFromInline package let faultedToMany: ContiguousArray<ToManyValue>
    /// How a state keeps these values and relationships after its header.
    @usableFromInline package let storage: StateStorageLayout

    /// The attribute slot of a ``DelayedDeletable`` entity's mark, `markedForDeletionDate`; nil for
    /// other entities. A write there is news for the context (an object marked or unmarked), tested
    /// here so that other writes need not ask it.
    package let markedForDeletionSlot: Int?

    package init(properties: [PropertyDeclaration], isDelayedDeletable: Bool) {
        var slots: [Slot] = []
        var attributes: [Int] = [], toOne: [Int] = [], toMany: [Int] = []
        var initial = ContiguousArray<StoredValue>()
        for (index, property) in properties.enumerated() {
            switch property.kind {
            case .attribute(let attribute):
                slots.append(.attribute(attributes.count))
                attributes.append(index)
                initial.append(attribute.defaultValue ?? .null)
            case .relationship(let relationship) where relationship.isToMany:
                slots.append(.toMany(toMany.count))
                toMany.append(index)
            case .relationship:
                slots.append(.toOne(toOne.count))
                toOne.append(index)
            }
        }
        self.slots = slots
        self.slotIndex = slots.map {
            switch $0 {
            case .attribute(let i), .toOne(let i), .toMany(let i): i
            }
        }
        self.attributeCount = attributes.count
        self.markedForDeletionSlot =
            isDelayedDeletable
            ? attributes.firstIndex { properties[$0].name == DelayedDeletableKey.markedForDeletionDate } : nil
        self.initialValues = initial + ContiguousArray(repeating: .null, count: toOne.count)
        self.valueProperties = attributes + toOne
        self.attributeProperties = attributes
        self.toOneProperties = toOne
        self.toManyProperties = toMany
        self.newToMany = ContiguousArray(repeating: .loaded([]), count: toMany.count)
        self.faultedToMany = ContiguousArray(repeating: .fault, count: toMany.count)
        self.storage = StateStorageLayout(valueCount: initialValues.count, hasToMany: !toMany.isEmpty)
    }
}
