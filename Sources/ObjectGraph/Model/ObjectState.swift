import Foundation
import OrderedCollections

/// The storage of one object's persistent values, and its place in a context.
///
/// Generated accessors call ``value(at:)``, ``setValue(_:at:)`` and ``initialize(_:at:)``; everything else is
/// internal. Attributes and to-one relationships live in one array laid out like the object's row (see
/// ``EntityLayout``): a fetched row becomes an object's values without conversion, and a changed
/// value is a changed column. The committed values share their buffer with the current ones until a
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
    @exclusivity(unchecked) unowned(unsafe) private(set) var context: ObjectContext?
    /// The entity's mapping in the context's store, set and cleared with ``context`` (the context keeps
    /// the store, and the store its mappings, alive).
    @exclusivity(unchecked) unowned(unsafe) private(set) var mapping: EntityMapping?

    @exclusivity(unchecked) var isFault = false
    @exclusivity(unchecked) var isInserted = false
    @exclusivity(unchecked) var isUpdated = false
    @exclusivity(unchecked) var isDeleted = false
    /// Whether the row could not be found when a fault was fulfilled.
    @exclusivity(unchecked) var isInaccessible = false
    /// True while user code may assign initial values: from creation until the object is inserted.
    @exclusivity(unchecked) @usableFromInline var acceptsInitialValues: Bool
    /// True while the object's materializing initializer runs: its placeholder assignments (which
    /// reach setters for optional properties, already initialized to nil) must not change anything.
    @exclusivity(unchecked) var isMaterializing = false

    /// The row's values: attributes, then to-one destination keys (`.integer`, or `.null` for none).
    /// Empty while the object is a fault.
    @exclusivity(unchecked) var values: ContiguousArray<StoredValue>
    /// The values as last read or saved.
    @exclusivity(unchecked) var committedValues: ContiguousArray<StoredValue>
    @exclusivity(unchecked) var toMany: ContiguousArray<ToManyValue>
    /// To-many slots changed since the last save.
    @exclusivity(unchecked) var changedToMany: Set<Int> = []
    /// Relationships of an object not inserted yet, by property index: the related objects are kept
    /// alive, and linked (with their inverses) when the object is inserted.
    @exclusivity(unchecked) var detachedRelatives: [Int: [any Entity]] = [:]

    /// A new object, created by user code.
    init(newObjectOf entity: EntityDeclaration) {
        self.entity = entity
        self.id = .temporary(for: entity)
        self.globalID = GlobalIDs.next()
        self.acceptsInitialValues = true
        values = entity.layout.initialValues
        committedValues = []
        toMany = entity.layout.newToMany
    }

    /// A fault for an object of the store: ``load(_:version:globalID:)`` fills it.
    init(entity: EntityDeclaration, id: ObjectID, globalID: UUID, context: ObjectContext, mapping: EntityMapping) {
        self.entity = entity
        self.id = id
        self.globalID = globalID
        self.context = context
        self.mapping = mapping
        self.acceptsInitialValues = false
        self.isFault = true
        values = []
        committedValues = []
        toMany = entity.layout.faultedToMany
    }

    deinit {
        context?.forget(self)
    }

    /// The state of an `@Entity` object being initialized: the one ObjectGraph prepared when it
    /// materializes a fetched object, otherwise a new one.
    public static func _claim(_ entity: EntityDeclaration) -> ObjectState {
        MaterializationSlot.take() ?? ObjectState(newObjectOf: entity)
    }

    /// Makes the state belong to a context (at insertion), or to none (when the context is gone or
    /// forgets it).
    func attach(to context: ObjectContext?, mapping: EntityMapping?) {
        self.context = context
        self.mapping = mapping
    }

    /// Fills the state with a row's values.
    func load(_ values: ContiguousArray<StoredValue>, version: Int64, globalID: UUID? = nil) {
        if let globalID { self.globalID = globalID }
        self.values = values
        self.committedValues = values
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
        committedValues = values
        changedToMany = []
    }

    @inline(__always)
    private func fulfillIfNeeded() {
        if isFault { context?.fulfillFault(self) }
    }

    /// The position of property `index` in its kind's numbering.
    ///
    /// Read through a guaranteed reference: the declaration is immortal, and reading its table as
    /// an ordinary array would retain and release it on every property access.
    @inline(__always)
    private func slot(of index: Int) -> Int {
        Unmanaged.passUnretained(entity)._withUnsafeGuaranteedRef { $0.layout.slotIndex[index] }
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
        values[slot(of: index)] = value
    }

    @usableFromInline
    func storedAttribute(at index: Int) -> StoredValue {
        fulfillIfNeeded()
        let slot = slot(of: index)
        return slot < values.count ? values[slot] : .null
    }

    /// The value read when the stored one is missing or does not fit the type: the declared default,
    /// else the type's default.
    @usableFromInline
    func fallbackValue<Value: AttributeValue>(at index: Int) -> Value {
        let declared = entity.layout.initialValues[slot(of: index)]
        return Value(storedValue: declared) ?? Value.defaultValue
    }

    @usableFromInline
    func setStoredAttribute(_ value: StoredValue, at index: Int) {
        guard !isMaterializing else { return }
        let slot = slot(of: index)
        if let context {
            context.willChange(self)
        }
        guard slot < values.count else { return }
        values[slot] = value
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
        guard let context else { return detachedRelatives[index]?.first as? Destination }
        guard let id = relatedID(at: slot(of: index)) else { return nil }
        return context.object(with: id) as? Destination
    }

    /// Sets a to-one relationship.
    public func setValue<Destination: Entity>(_ value: Destination?, at index: Int) {
        guard !isMaterializing else { return }
        if let context {
            context.setToOne(self, slot: slot(of: index), to: value)
        } else {
            detachedRelatives[index] = value.map { [$0] }
        }
    }

    /// The key of the object a to-one relationship points to; temporary keys are negative.
    func relatedKey(at slot: Int) -> Int64? {
        let position = entity.layout.attributeCount + slot
        guard position < values.count, case .integer(let key) = values[position] else { return nil }
        return key
    }

    /// The ID of the object a to-one relationship points to, in the context's store.
    func relatedID(at slot: Int) -> ObjectID? {
        guard let key = relatedKey(at: slot), let context, let mapping else { return nil }
        return ObjectID(entity: mapping.toOneDestinations[slot], key: key, store: key < 0 ? nil : context.store.identity)
    }

    /// Points a to-one relationship at an object, without touching the inverse.
    func setRelated(_ id: ObjectID?, at slot: Int) {
        let position = entity.layout.attributeCount + slot
        guard position < values.count else { return }
        values[position] = id.map { .integer($0.key) } ?? .null
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
        if let context {
            context.setToMany(self, slot: slot(of: index), to: members)
        } else {
            detachedRelatives[index] = members
        }
    }

    private func relatedObjects(at index: Int) -> [any Entity] {
        guard let context else { return detachedRelatives[index] ?? [] }
        return context.members(of: self, slot: slot(of: index)).compactMap(context.object(with:))
    }

    // MARK: Change information

    func changedKeys() -> Set<String> {
        let layout = entity.layout
        let properties = entity.properties
        if isInserted {
            return Set(properties.map(\.name))
        }
        var keys: Set<String> = []
        if !committedValues.isEmpty {
            for position in values.indices where values[position] != committedValues[position] {
                keys.insert(properties[layout.valueProperties[position]].name)
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
              slot < committedValues.count, committedValues[slot] != values[slot] else { return nil }
        return committedValues[slot]
    }

    /// Whether any column of the object's row differs from what was read.
    var hasColumnChanges: Bool {
        values != committedValues
    }
}

/// The members of a to-many relationship in memory.
enum ToManyValue: Sendable {
    /// Not loaded yet; changes made through inverse relationships wait in `added` / `removed`.
    case fault
    case pending(added: OrderedSet<ObjectID>, removed: Set<ObjectID>)
    case loaded(OrderedSet<ObjectID>)

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
