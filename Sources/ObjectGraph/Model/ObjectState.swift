import Foundation
import OrderedCollections

/// The storage of one object's persistent values, and its place in a context.
///
/// Generated accessors call ``value(at:)``, ``setValue(_:at:)`` and ``initialize(_:at:)``; everything else is
/// internal. Attributes, to-one and to-many relationships live in three compact arrays indexed by the
/// entity's ``EntityLayout``. The committed arrays share their buffers with the current ones until a
/// property changes (copy on write), so an unchanged object costs one copy of its values.
///
/// Its stored properties opt out of dynamic exclusivity checking: a state is only touched from its
/// context's isolation, and never while one of its own properties is being modified, so the checks
/// could never fire; on the read path of a fetch they cost more than the reads themselves.
public final class ObjectState {
    /// Declarations are immortal (see ``EntityDeclaration``), so no reference count is kept.
    unowned(unsafe) let entity: EntityDeclaration
    @exclusivity(unchecked) var id: ObjectID
    @exclusivity(unchecked) var globalID: UUID
    @exclusivity(unchecked) var version: Int64 = 0

    /// The object this state belongs to. The object owns the state, so this never dangles.
    @exclusivity(unchecked) unowned(unsafe) var object: (any Entity)?
    /// The context, unretained (objects must not keep their context alive, as in Core Data). Not a weak
    /// reference, which would cost a side-table update per object: a context clears this field of
    /// every state it registered when it is deallocated, and a state is registered whenever this field
    /// names a context.
    @exclusivity(unchecked) unowned(unsafe) var context: ObjectContext?
    @exclusivity(unchecked) var mapping: EntityMapping?

    @exclusivity(unchecked) var isFault = false
    @exclusivity(unchecked) var isInserted = false
    @exclusivity(unchecked) var isUpdated = false
    @exclusivity(unchecked) var isDeleted = false
    /// Whether the row could not be found when a fault was fulfilled.
    @exclusivity(unchecked) var isInaccessible = false
    /// True while user code may assign initial values (between creation and insertion).
    @exclusivity(unchecked) @usableFromInline var acceptsInitialValues: Bool
    /// True while the object's materializing initializer runs: its placeholder assignments (which
    /// reach setters for optional properties, already initialized to nil) must not change anything.
    @exclusivity(unchecked) var isMaterializing = false

    @exclusivity(unchecked) var attributes: ContiguousArray<StoredValue>
    @exclusivity(unchecked) var committedAttributes: ContiguousArray<StoredValue>
    @exclusivity(unchecked) var toOne: ContiguousArray<ObjectID?>
    @exclusivity(unchecked) var committedToOne: ContiguousArray<ObjectID?>
    @exclusivity(unchecked) var toMany: ContiguousArray<ToManyValue>
    /// To-many slots changed since the last save.
    @exclusivity(unchecked) var changedToMany: Set<Int> = []
    /// Related objects of an object not inserted yet, kept alive until insertion.
    @exclusivity(unchecked) var detachedRelatives: [ObjectID: any Entity] = [:]

    /// A new object, created by user code.
    init(newObjectOf entity: EntityDeclaration) {
        self.entity = entity
        self.id = .temporary(for: entity)
        self.globalID = GlobalIDs.next()
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

    /// The global ID, which a fault only knows once loaded.
    var loadedGlobalID: UUID {
        fulfillIfNeeded()
        return globalID
    }

    /// The row version, which a fault only knows once loaded.
    var loadedVersion: Int64 {
        fulfillIfNeeded()
        return version
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

    // The generic accessors are inlinable so that they are specialized in the module declaring the
    // entity: an unspecialized generic call looks up type metadata on every read, which would cost
    // more than the read itself. Everything they call is concrete.

    /// Stores an initial value assigned by a user initializer or a declared default.
    @inlinable
    public func initialize<Value: AttributeValue>(_ value: Value, at index: Int) {
        // Checked here, before converting the value: a materialized object's initializer assigns
        // every property, and none of those assignments must cost anything.
        guard acceptsInitialValues else { return }
        initializeStoredAttribute(value.storedValue, at: index)
    }

    /// Reads an attribute. Loads the object first if it is a fault.
    @inlinable
    public func value<Value: AttributeValue>(at index: Int) -> Value {
        Value(storedValue: storedAttribute(at: index)) ?? fallbackValue(at: index)
    }

    /// Writes an attribute and records the change.
    @inlinable
    public func setValue<Value: AttributeValue>(_ value: Value, at index: Int) {
        setStoredAttribute(value.storedValue, at: index)
    }

    @usableFromInline
    func initializeStoredAttribute(_ value: StoredValue, at index: Int) {
        guard acceptsInitialValues else { return }
        attributes[entity.layout.slotIndex[index]] = value
    }

    @usableFromInline
    func storedAttribute(at index: Int) -> StoredValue {
        fulfillIfNeeded()
        let slot = entity.layout.slotIndex[index]
        return slot < attributes.count ? attributes[slot] : .null
    }

    /// The value read when the stored one is missing or does not fit the type: the declared default,
    /// else the type's default.
    @usableFromInline
    func fallbackValue<Value: AttributeValue>(at index: Int) -> Value {
        let declared = entity.layout.initialAttributes[entity.layout.slotIndex[index]]
        return Value(storedValue: declared) ?? Value.defaultValue
    }

    @usableFromInline
    func setStoredAttribute(_ value: StoredValue, at index: Int) {
        guard !isMaterializing else { return }
        let slot = entity.layout.slotIndex[index]
        if let context {
            context.willChange(self)
        }
        guard slot < attributes.count else { return }
        attributes[slot] = value
    }

    // MARK: To-one relationships

    // The relationship accessors below are called by the code `@Entity` generates: `initialize` from
    // init accessors (before insertion), `value(at:)` from getters, `setValue` from setters. Setting a
    // relationship of an object in a context updates the inverse at once.

    /// Stores an initial to-one value.
    public func initialize<Destination: Entity>(_ value: Destination?, at index: Int) {
        guard acceptsInitialValues else { return }
        setValue(value, at: index)
    }

    /// Reads a to-one relationship, loading a fault first.
    public func value<Destination: Entity>(at index: Int) -> Destination? {
        fulfillIfNeeded()
        let slot = entity.layout.slotIndex[index]
        guard slot < toOne.count, let id = toOne[slot] else { return nil }
        return resolve(id) as? Destination
    }

    /// Sets a to-one relationship.
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

    /// Stores an initial to-many value.
    public func initialize<Destination: Entity>(_ value: Set<Destination>, at index: Int) {
        guard acceptsInitialValues, !value.isEmpty else { return }
        setValue(value, at: index)
    }

    /// Stores an initial ordered to-many value.
    public func initialize<Destination: Entity>(_ value: [Destination], at index: Int) {
        guard acceptsInitialValues, !value.isEmpty else { return }
        setValue(value, at: index)
    }

    /// Reads a to-many relationship, loading its members the first time.
    public func value<Destination: Entity>(at index: Int) -> Set<Destination> {
        Set(relatedObjects(at: index).lazy.compactMap { $0 as? Destination })
    }

    /// Reads an ordered to-many relationship, loading its members the first time.
    public func value<Destination: Entity>(at index: Int) -> [Destination] {
        relatedObjects(at: index).compactMap { $0 as? Destination }
    }

    /// Sets a to-many relationship.
    public func setValue<Destination: Entity>(_ value: Set<Destination>, at index: Int) {
        setMembers(value.map { $0 as any Entity }, at: index)
    }

    /// Sets an ordered to-many relationship.
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

    // The mutations below first set `self` to `.fault`, so that the set taken out of the enum is the
    // only reference to its storage and changes in place: otherwise each insertion into a loaded
    // relationship copies every member (a country given 100,000 moods one by one is quadratic).

    /// Records `id` as a member; false if it already was one.
    mutating func insert(_ id: ObjectID) -> Bool {
        switch self {
        case .loaded(var members):
            self = .fault
            let inserted = members.append(id).inserted
            self = .loaded(members)
            return inserted
        case .fault:
            self = .pending(added: [id], removed: [])
        case .pending(var added, var removed):
            self = .fault
            removed.remove(id)
            added.append(id)
            self = .pending(added: added, removed: removed)
        }
        return true
    }

    /// Records that `id` is no longer a member; false if a loaded relationship did not hold it.
    mutating func remove(_ id: ObjectID) -> Bool {
        switch self {
        case .loaded(var members):
            self = .fault
            let removed = members.remove(id) != nil
            self = .loaded(members)
            return removed
        case .fault:
            self = .pending(added: [], removed: [id])
        case .pending(var added, var removed):
            self = .fault
            added.remove(id)
            removed.insert(id)
            self = .pending(added: added, removed: removed)
        }
        return true
    }
}
