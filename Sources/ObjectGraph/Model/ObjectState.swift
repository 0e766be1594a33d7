import Foundation
import OrderedCollections

/// The storage of one object's persistent values, and its place in a context.
///
/// Generated accessors call ``value(at:)``, ``setValue(_:at:)`` and ``initialize(_:at:)``; everything else is
/// internal. Attributes, to-one and to-many relationships live in three compact arrays indexed by the
/// entity's ``EntityLayout``. The committed arrays share their buffers with the current ones until a
/// property changes (copy on write), so an unchanged object costs one copy of its values.
public final class ObjectState {
    let entity: EntityDeclaration
    var id: ObjectID
    var globalID: UUID
    var version: Int64 = 0

    /// The object this state belongs to. The object owns the state, so this never dangles.
    unowned(unsafe) var object: (any Entity)?
    weak var context: ObjectContext?
    var mapping: EntityMapping?

    var isFault = false
    var isInserted = false
    var isUpdated = false
    var isDeleted = false
    /// Whether the row could not be found when a fault was fulfilled.
    var isInaccessible = false
    /// True while user code may assign initial values (between creation and insertion).
    private var acceptsInitialValues: Bool
    /// True while the object's materializing initializer runs: its placeholder assignments (which
    /// reach setters for optional properties, already initialized to nil) must not change anything.
    var isMaterializing = false

    var attributes: ContiguousArray<StoredValue>
    var committedAttributes: ContiguousArray<StoredValue>
    var toOne: ContiguousArray<ObjectID?>
    var committedToOne: ContiguousArray<ObjectID?>
    var toMany: ContiguousArray<ToManyValue>
    /// To-many slots changed since the last save.
    var changedToMany: Set<Int> = []
    /// Related objects of an object not inserted yet, kept alive until insertion.
    var detachedRelatives: [ObjectID: any Entity] = [:]

    /// A new object, created by user code.
    init(newObjectOf entity: EntityDeclaration) {
        self.entity = entity
        self.id = .temporary(for: entity)
        self.globalID = UUID()
        self.acceptsInitialValues = true
        let layout = entity.layout
        attributes = layout.initialAttributes
        committedAttributes = []
        toOne = ContiguousArray(repeating: nil, count: layout.toOneProperties.count)
        committedToOne = []
        toMany = ContiguousArray(repeating: .loaded([]), count: layout.toManyProperties.count)
    }

    /// An object read from the store, or a fault for one (`values == nil`).
    init(entity: EntityDeclaration, id: ObjectID, globalID: UUID, context: ObjectContext, mapping: EntityMapping) {
        self.entity = entity
        self.id = id
        self.globalID = globalID
        self.context = context
        self.mapping = mapping
        self.acceptsInitialValues = false
        self.isFault = true
        attributes = []
        committedAttributes = []
        toOne = []
        committedToOne = []
        toMany = ContiguousArray(repeating: .fault, count: entity.layout.toManyProperties.count)
    }

    deinit {
        context?.forget(self)
    }

    /// The state of an `@Entity` object being initialized: the one ObjectGraph prepared when it
    /// materializes a fetched object, otherwise a new one.
    public static func _claim(_ entity: EntityDeclaration) -> ObjectState {
        MaterializationSlot.take() ?? ObjectState(newObjectOf: entity)
    }

    /// Fills the state with a row's values.
    func load(attributes: ContiguousArray<StoredValue>, toOne: ContiguousArray<ObjectID?>, version: Int64,
              globalID: UUID? = nil) {
        if let globalID { self.globalID = globalID }
        self.attributes = attributes
        self.committedAttributes = attributes
        self.toOne = toOne
        self.committedToOne = toOne
        self.version = version
        isFault = false
    }

    /// Marks the current values as saved.
    func commit() {
        committedAttributes = attributes
        committedToOne = toOne
        changedToMany = []
    }

    /// Detaches the state from the user's initial assignments.
    func stopAcceptingInitialValues() { acceptsInitialValues = false }

    private func fulfillIfNeeded() {
        if isFault { context?.fulfillFault(self) }
    }

    // MARK: Attributes

    /// Stores an initial value assigned by a user initializer or a declared default.
    public func initialize<Value: AttributeValue>(_ value: Value, at index: Int) {
        guard acceptsInitialValues else { return }
        attributes[entity.layout.slotIndex[index]] = value.storedValue
    }

    /// Reads an attribute. Loads the object first if it is a fault.
    public func value<Value: AttributeValue>(at index: Int) -> Value {
        fulfillIfNeeded()
        let slot = entity.layout.slotIndex[index]
        if slot < attributes.count, let value = Value(storedValue: attributes[slot]) {
            return value
        }
        return fallbackValue(slot: slot)
    }

    /// The value read when the stored one is missing: the declared default, else the type's default.
    private func fallbackValue<Value: AttributeValue>(slot: Int) -> Value {
        let declared = entity.layout.initialAttributes[slot]
        return Value(storedValue: declared) ?? Value.defaultValue
    }

    /// Writes an attribute and records the change.
    public func setValue<Value: AttributeValue>(_ value: Value, at index: Int) {
        guard !isMaterializing else { return }
        let slot = entity.layout.slotIndex[index]
        if let context {
            context.willChange(self)
        }
        guard slot < attributes.count else { return }
        attributes[slot] = value.storedValue
    }

    // MARK: To-one relationships

    public func initialize<Destination: Entity>(_ value: Destination?, at index: Int) {
        guard acceptsInitialValues else { return }
        setValue(value, at: index)
    }

    public func value<Destination: Entity>(at index: Int) -> Destination? {
        fulfillIfNeeded()
        let slot = entity.layout.slotIndex[index]
        guard slot < toOne.count, let id = toOne[slot] else { return nil }
        return resolve(id) as? Destination
    }

    public func setValue<Destination: Entity>(_ value: Destination?, at index: Int) {
        guard !isMaterializing else { return }
        let slot = entity.layout.slotIndex[index]
        if let context {
            context.setToOne(self, slot: slot, to: value)
        } else {
            toOne[slot] = value?.objectID
            if let value { detachedRelatives[value.objectID] = value }
        }
    }

    // MARK: To-many relationships

    public func initialize<Destination: Entity>(_ value: Set<Destination>, at index: Int) {
        guard acceptsInitialValues, !value.isEmpty else { return }
        setValue(value, at: index)
    }

    public func initialize<Destination: Entity>(_ value: [Destination], at index: Int) {
        guard acceptsInitialValues, !value.isEmpty else { return }
        setValue(value, at: index)
    }

    public func value<Destination: Entity>(at index: Int) -> Set<Destination> {
        Set(relatedObjects(at: index).lazy.compactMap { $0 as? Destination })
    }

    public func value<Destination: Entity>(at index: Int) -> [Destination] {
        relatedObjects(at: index).compactMap { $0 as? Destination }
    }

    public func setValue<Destination: Entity>(_ value: Set<Destination>, at index: Int) {
        setMembers(value.map { $0 as any Entity }, at: index)
    }

    public func setValue<Destination: Entity>(_ value: [Destination], at index: Int) {
        setMembers(value.map { $0 as any Entity }, at: index)
    }

    private func setMembers(_ members: [any Entity], at index: Int) {
        guard !isMaterializing else { return }
        let slot = entity.layout.slotIndex[index]
        if let context {
            context.setToMany(self, slot: slot, to: members)
        } else {
            toMany[slot] = .loaded(OrderedSet(members.map(\.objectID)))
            for member in members { detachedRelatives[member.objectID] = member }
        }
    }

    private func relatedObjects(at index: Int) -> [any Entity] {
        let slot = entity.layout.slotIndex[index]
        guard slot < toMany.count else { return [] }
        let ids = context?.members(of: self, slot: slot) ?? toMany[slot].loadedMembers ?? []
        return ids.compactMap(resolve)
    }

    private func resolve(_ id: ObjectID) -> (any Entity)? {
        if let context { return context.object(with: id) }
        return detachedRelatives[id]
    }

    // MARK: Change information

    func changedKeys() -> Set<String> {
        let layout = entity.layout
        let properties = entity.properties
        if isInserted {
            return Set(properties.map(\.name))
        }
        var keys: Set<String> = []
        if !committedAttributes.isEmpty {
            for slot in attributes.indices where attributes[slot] != committedAttributes[slot] {
                keys.insert(properties[layout.attributeProperties[slot]].name)
            }
        }
        if !committedToOne.isEmpty {
            for slot in toOne.indices where toOne[slot] != committedToOne[slot] {
                keys.insert(properties[layout.toOneProperties[slot]].name)
            }
        }
        for slot in changedToMany {
            keys.insert(properties[layout.toManyProperties[slot]].name)
        }
        return keys
    }

    func committedValue(forKey key: String) -> StoredValue? {
        guard let index = entity.properties.firstIndex(where: { $0.name == key }),
              case .attribute(let slot) = entity.layout.slots[index],
              slot < committedAttributes.count, committedAttributes[slot] != attributes[slot] else { return nil }
        return committedAttributes[slot]
    }

    /// Whether any column of the object's row differs from what was read.
    var hasColumnChanges: Bool {
        attributes != committedAttributes || toOne != committedToOne
    }
}

/// The members of a to-many relationship in memory.
enum ToManyValue {
    /// Not loaded yet; changes made through inverse relationships wait in `added` / `removed`.
    case fault
    case pending(added: OrderedSet<ObjectID>, removed: Set<ObjectID>)
    case loaded(OrderedSet<ObjectID>)

    var loadedMembers: [ObjectID]? {
        if case .loaded(let members) = self { return Array(members) }
        return nil
    }
}
