package import Foundation
import Observation
public import OrderedCollections

/// The storage of one object's persistent values, and its place in a context.
///
/// Generated accessors call `value(at:)`, `setValue(_:at:)` and `initialize(_:at:)`; everything else is
/// the package's (the context reaches it from another module: the accessors on its hot paths are
/// `@inlinable`, so that crossing costs no call), and the state reaches its context only through its
/// ``ObjectHost``. Attributes and to-one relationships are stored in the state itself, after its header,
/// laid out like the object's row (see `EntityLayout`), packed (see `PackedValues`), with the
/// to-many relationships' array when the entity has any (see `StateStorageLayout`): a fetched row
/// is decoded straight into the object that represents it, and a changed value is a changed
/// column. The values as last read or saved are copied aside only when the first of them changes,
/// so an unchanged object costs one allocation besides the object itself.
///
/// The header is reached through its address: a `ManagedBuffer`'s header is a class property, and
/// dynamic exclusivity checks on it would cost more than the reads on the path of a fetch. A state
/// is only touched from its context's isolation, and never while one of its own fields is being
/// modified, so those checks could never fire.
@_documentation(visibility: internal)
public final class ObjectState: ManagedBuffer<_ObjectStateHeader, UInt64> {
    /// A new object, created by user code.
    package static func makeNew(of entity: EntityDeclaration) -> ObjectState {
        let layout = entity.layout
        let state = make(entity) {
            _ObjectStateHeader(
                id: .temporary(for: entity), acceptsInitialValues: true,
                extras: ObjectStateExtras(globalID: GlobalIDs.next()))
        }
        state.initializeToMany(layout.newToMany)
        let values = state.packedValues
        for position in layout.initialValues.indices {
            values.initialize(at: position, to: layout.initialValues[position])
        }
        return state
    }

    /// An object of the store held by `host`: a fault when `version` is nil (its values all NULL),
    /// otherwise a row of that version whose values `initializeValues` writes into the uninitialized
    /// packed values it is given (all of them).
    @inline(__always)
    @inlinable package static func make(
        entity: EntityDeclaration, id: ObjectID, host: any ObjectHost, version: Int64?,
        initializeValues: (PackedValues, _ count: Int) -> Void
    ) -> ObjectState {
        assert(id.entity === entity, "\(id) is not an ID of \(entity.name)")
        let count = entity.layout.initialValues.count
        let state = make(entity) {
            var header = _ObjectStateHeader(id: id, acceptsInitialValues: false, extras: nil)
            header.host = host
            header.observesReads = host.observesReads
            header.isFault = version == nil
            if let version { header.version = version }
            return header
        }
        state.initializeToMany(entity.layout.faultedToMany)
        let values = state.packedValues
        if version != nil {
            initializeValues(values, count)
        } else {
            for position in 0..<count { values.initialize(at: position, to: .null) }
        }
        return state
    }

    /// Allocates a state with the tail its entity's layout asks for, uninitialized; the header is
    /// made in place (building it outside and passing it in costs a copy and a destruction of
    /// every field).
    @inline(__always)
    @inlinable package static func make(_ entity: EntityDeclaration, header: () -> _ObjectStateHeader) -> ObjectState {
        let buffer = create(minimumCapacity: entity.layout.storage.words) { _ in header() }
        // `create` allocates an instance of the class it is called on.
        return unsafeDowncast(buffer, to: ObjectState.self)
    }

    deinit {
        // The host outlives every state attached to it (see ``_ObjectStateHeader/host``).
        fields.pointee.host?.forget(self)
        if fields.pointee.awaitsSuperclassClaim { MaterializationSlot.forget(self) }
        let values = packedValues
        for position in 0..<valueCount { values.deinitialize(at: position) }
        toManyStorage?.deinitialize(count: 1)
    }

    /// How the state's tail is laid out. Read through a guaranteed reference: the declaration is
    /// immortal, and an ordinary read would retain and release it.
    @inline(__always)
    @inlinable package var storage: StateStorageLayout {
        Unmanaged.passUnretained(entity)._withUnsafeGuaranteedRef { $0.layout.storage }
    }

    /// The start of the state's tail (see ``StateStorageLayout``).
    @inline(__always)
    @inlinable package var tail: UnsafeMutablePointer<UInt64> {
        withUnsafeMutablePointerToElements { $0 }
    }

    /// The values, packed in the state's tail.
    @inline(__always)
    @inlinable package var packedValues: PackedValues {
        PackedValues(tail: tail, payloadOffset: storage.payloadOffset)
    }

    /// The to-many relationships' array in the state's tail; nil when the entity has none.
    @inline(__always)
    @inlinable package var toManyStorage: UnsafeMutablePointer<ContiguousArray<ToManyValue>>? {
        guard let offset = storage.toManyOffset else { return nil }
        return (UnsafeMutableRawPointer(tail) + offset).assumingMemoryBound(to: ContiguousArray<ToManyValue>.self)
    }

    @inlinable package func initializeToMany(_ toMany: ContiguousArray<ToManyValue>) {
        guard let offset = storage.toManyOffset else { return }
        (UnsafeMutableRawPointer(tail) + offset).bindMemory(to: ContiguousArray<ToManyValue>.self, capacity: 1)
            .initialize(to: toMany)
    }

    /// The state of an `@Entity` object being initialized: the one ObjectGraph prepared when it
    /// materializes a fetched object, otherwise a new one.
    public static func _claim(_ entity: EntityDeclaration) -> ObjectState {
        MaterializationSlot.take(for: entity) ?? makeNew(of: entity)
    }

    /// The state of an object of a subentity, for its subclass's own handle on it (see
    /// ``MaterializationSlot/claimForSubclass(_:makeNew:)``): the superclasses' initializers, which
    /// run after, take the same state.
    public static func _claimForSubclass(_ entity: EntityDeclaration) -> ObjectState {
        MaterializationSlot.claimForSubclass(entity) { makeNew(of: entity) }
    }

    // MARK: Header fields

    @inline(__always)
    @inlinable package var fields: UnsafeMutablePointer<_ObjectStateHeader> {
        withUnsafeMutablePointerToHeader { $0 }
    }

    /// The entity's declaration.
    @inlinable package var entity: EntityDeclaration { fields.pointee.id.entity }
    @inlinable package var id: ObjectID {
        get { fields.pointee.id }
        set { fields.pointee.id = newValue }
    }
    /// The global ID; nil for an object of the store until it is read (see ``loadedGlobalID``).
    package var globalID: UUID? {
        get { fields.pointee.extras?.globalID }
        set {
            if newValue == nil, fields.pointee.extras == nil { return }
            extras.globalID = newValue
        }
    }
    @inlinable package var version: Int64 {
        get { fields.pointee.version }
        set { fields.pointee.version = newValue }
    }
    /// The object this state belongs to. The object owns the state, so this never dangles.
    @inlinable package var object: (any Entity)? {
        get {
            // Both through guaranteed references: the cast's result is the one retain.
            guard let object = fields.pointee.object else { return nil }
            return Unmanaged.passUnretained(entity)._withUnsafeGuaranteedRef { entity in
                object._withUnsafeGuaranteedRef { entity.existential.entity($0) }
            }
        }
        set { fields.pointee.object = newValue.map { Unmanaged.passUnretained($0 as AnyObject) } }
    }
    /// The host, unretained (see ``_ObjectStateHeader``); change it with ``attach(to:)``.
    @inlinable package var host: (any ObjectHost)? { fields.pointee.host }
    @inlinable package var isFault: Bool {
        get { fields.pointee.isFault }
        set { fields.pointee.isFault = newValue }
    }
    @inlinable package var isInserted: Bool {
        get { fields.pointee.isInserted }
        set { fields.pointee.isInserted = newValue }
    }
    @inlinable package var insertionIsPosted: Bool {
        get { fields.pointee.insertionIsPosted }
        set { fields.pointee.insertionIsPosted = newValue }
    }
    @inlinable package var isUpdated: Bool {
        get { fields.pointee.isUpdated }
        set { fields.pointee.isUpdated = newValue }
    }
    @inlinable package var isDeleted: Bool {
        get { fields.pointee.isDeleted }
        set {
            fields.pointee.isDeleted = newValue
            fields.pointee.host?.didChangeDeletion(of: self, isDeleted: newValue)
        }
    }
    /// Whether the object is changed in its context: inserted, updated, deleted, or its members.
    @inlinable package var isChangedHere: Bool {
        isInserted || isUpdated || isDeleted || !changedToMany.isEmpty
    }
    /// Whether the row could not be found when a fault was fulfilled.
    @inlinable package var isInaccessible: Bool {
        get { fields.pointee.isInaccessible }
        set { fields.pointee.isInaccessible = newValue }
    }
    /// True while user code may assign initial values: from creation until the object is inserted.
    @inlinable package var acceptsInitialValues: Bool {
        get { withUnsafeMutablePointerToHeader { $0.pointee.acceptsInitialValues } }
        set { withUnsafeMutablePointerToHeader { $0.pointee.acceptsInitialValues = newValue } }
    }
    /// True while the object's materializing initializer runs: its placeholder assignments must not
    /// change anything.
    @inlinable package var isMaterializing: Bool {
        get { fields.pointee.isMaterializing }
        set { fields.pointee.isMaterializing = newValue }
    }
    /// True while a new object's state, claimed by its subclass, waits for its superclasses'
    /// initializers to take it over.
    @inlinable package var awaitsSuperclassClaim: Bool {
        get { fields.pointee.awaitsSuperclassClaim }
        set { fields.pointee.awaitsSuperclassClaim = newValue }
    }
    /// True from the object's `willSave()` until the save's hooks are done: each changed object gets
    /// one call, however many rounds the hooks take.
    @inlinable package var hasRunWillSave: Bool {
        get { fields.pointee.hasRunWillSave }
        set { fields.pointee.hasRunWillSave = newValue }
    }
    /// Every change goes through here, and drops the relationship values the context keeps for a
    /// deletion pass (see ``cachedMembers(at:)``).
    ///
    /// An entity without to-many relationships keeps no array (see ``StateStorageLayout``): it reads
    /// as empty, and nothing writes it, as no slot exists to write.
    @inlinable package var toMany: ContiguousArray<ToManyValue> {
        get { toManyStorage?.pointee ?? [] }
        _modify {
            if let storage = toManyStorage {
                host?.forgetCachedMembers(of: self)
                yield &storage.pointee
            } else {
                var none: ContiguousArray<ToManyValue> = []
                yield &none
                assert(none.isEmpty, "\(entity.name) has no to-many relationship to change")
            }
        }
        set {
            guard let storage = toManyStorage else {
                assert(newValue.isEmpty, "\(entity.name) has no to-many relationship to change")
                return
            }
            host?.forgetCachedMembers(of: self)
            storage.pointee = newValue
        }
    }
    /// To-many slots changed since the last save, with the members each gained and lost: what a save
    /// writes (never the whole set as loaded, which would undo other contexts' changes).
    @inlinable package var changedToMany: [Int: MemberChanges] {
        get { fields.pointee.extras?.changedToMany ?? [:] }
        _modify { yield &extras.changedToMany }
        set {
            if newValue.isEmpty, fields.pointee.extras == nil { return }
            extras.changedToMany = newValue
        }
    }
    /// Relationships of an object not inserted yet, by property index: the related objects are kept
    /// alive, and linked (with their inverses) when the object is inserted.
    package var detachedRelatives: DetachedRelatives {
        get { fields.pointee.extras?.detachedRelatives ?? DetachedRelatives() }
        _modify { yield &extras.detachedRelatives }
        set {
            if newValue.isEmpty, fields.pointee.extras == nil { return }
            extras.detachedRelatives = newValue
        }
    }

    /// In a child context, what the object was when it came from the parent; nil otherwise.
    @inlinable package var parentBaseline: ParentBaseline? {
        get { fields.pointee.extras?.parentBaseline }
        set {
            if newValue == nil, fields.pointee.extras == nil { return }
            extras.parentBaseline = newValue
        }
    }

    /// The parts few objects need, made at the first write of one of them.
    @inlinable package var extras: ObjectStateExtras {
        if let extras = fields.pointee.extras { return extras }
        let extras = ObjectStateExtras()
        fields.pointee.extras = extras
        return extras
    }

    /// Drops the extras once every part of them is empty (after a save, say): the memory of an
    /// object saved and kept is that of a fetched one.
    @inlinable package func dropEmptyExtras() {
        if fields.pointee.extras?.isEmpty == true { fields.pointee.extras = nil }
    }

    /// Makes the state belong to a host (a context, at insertion), or to none (when the context is
    /// gone or forgets it).
    package func attach(to host: (any ObjectHost)?) {
        if let previous = fields.pointee.host, previous !== host { previous.detach(self) }
        fields.pointee.host = host
        fields.pointee.observesReads = host?.observesReads ?? false
    }

    /// Forgets the host without telling it: for a context being deallocated, whose registrars go
    /// with it (telling it would cost a call per state it held).
    package func detachFromDeallocatingHost() {
        fields.pointee.host = nil
        fields.pointee.observesReads = false
    }

    /// Whether reads of the object's properties are reported to Observation: its context's
    /// ``ObjectContext/isObservable``, copied here so that a read tests one flag.
    @usableFromInline
    package var observesReads: Bool {
        get { fields.pointee.observesReads }
        set { fields.pointee.observesReads = newValue }
    }

    // MARK: Values

    /// The number of values: attributes, then to-one relationships.
    @inlinable package var valueCount: Int { storage.valueCount }

    /// The value at a position of the row layout.
    @inline(__always)
    @inlinable package func value(atPosition position: Int) -> StoredValue {
        packedValues[position]
    }

    /// Changes the value at a position, first setting its committed value aside if this is the
    /// position's first change since the values were read or saved.
    @inlinable package func write(_ value: StoredValue, atPosition position: Int) {
        if !isFault, !isInserted, !acceptsInitialValues { keepCommittedValue(atPosition: position) }
        packedValues.assign(value, at: position)
    }

    /// Sets the value at a position aside as committed, unless it was already: called before the
    /// position is written, so that every position not kept still holds its committed value.
    ///
    /// Only the written positions are kept, not every value: an update of one attribute copied the
    /// whole row (a retain of each text), and compared it whole at each step of its save.
    @inlinable package func keepCommittedValue(atPosition position: Int) {
        let extras = self.extras
        let values = packedValues
        guard extras.committed != nil else {
            extras.committed = [CommittedValue(position: position, value: values[position])]
            return
        }
        // Changed in place, through the optional: no copy of the array is held while it grows.
        extras.committed?.keep(values[position], at: position)
    }

    /// Every value, copied.
    @inlinable package var values: ContiguousArray<StoredValue> {
        let values = packedValues
        let count = valueCount
        // Appended: `ContiguousArray(unsafeUninitializedCapacity:)` is not specialized here, and
        // looks up the array's type metadata at each call.
        var copy = ContiguousArray<StoredValue>()
        copy.reserveCapacity(count)
        for position in 0..<count { copy.append(values[position]) }
        return copy
    }

    /// Replaces every value; they become the committed ones.
    package func replaceValues(with values: ContiguousArray<StoredValue>) {
        let packed = packedValues
        for position in 0..<min(valueCount, values.count) { packed.assign(values[position], at: position) }
        forgetCommittedValues()
    }

    /// The values as last read or saved, when some were written since (nil otherwise): the
    /// current values with the kept committed ones in their places. Setting them keeps those that
    /// differ from the current values.
    package var committedValues: ContiguousArray<StoredValue>? {
        get {
            guard let kept = fields.pointee.extras?.committed else { return nil }
            var values = self.values
            for entry in kept { values[entry.position] = entry.value }
            return values
        }
        set {
            guard let newValue else { return forgetCommittedValues() }
            let packed = packedValues
            extras.committed = (0..<min(valueCount, newValue.count)).compactMap { position in
                packed[position] == newValue[position] ? nil : CommittedValue(position: position, value: newValue[position])
            }
        }
    }

    /// Gives every position written since the values were read or saved its value back.
    package func restoreCommittedValues() {
        guard let kept = fields.pointee.extras?.committed else { return }
        let packed = packedValues
        for entry in kept { packed.assign(entry.value, at: entry.position) }
        forgetCommittedValues()
    }

    /// Makes the current values the committed ones.
    @inlinable package func forgetCommittedValues() {
        if let extras = fields.pointee.extras, extras.committed != nil { extras.committed = nil }
    }

    /// Whether values were written since they were read or saved (maybe back to the same ones).
    @inlinable package var keepsCommittedValues: Bool { fields.pointee.extras?.committed != nil }

    /// The value at a position as last read or saved.
    @inlinable package func committedValue(atPosition position: Int) -> StoredValue {
        if let kept = fields.pointee.extras?.committed, let entry = kept.first(where: { $0.position == position }) {
            return entry.value
        }
        return packedValues[position]
    }

    /// The positions whose value differs from the one last read or saved, in order.
    @inlinable package var changedPositions: [Int] {
        guard let kept = fields.pointee.extras?.committed else { return [] }
        let values = packedValues
        var positions: [Int] = []
        for entry in kept where values[entry.position] != entry.value { positions.append(entry.position) }
        return positions
    }

    /// Fills the state with a row's values, which `initializeValues` writes into the packed values
    /// it is given, deinitialized (all of them): they become the committed ones.
    @inline(__always)
    package func load(version: Int64, initializeValues: (PackedValues, _ count: Int) -> Void) {
        forgetPartialValues()
        fields.pointee.version = version
        let count = valueCount
        let values = packedValues
        for position in 0..<count { values.deinitialize(at: position) }
        initializeValues(values, count)
        committedValues = nil
        isFault = false
    }

    /// Fills the state with given values, committed, and a version.
    package func load(_ values: ContiguousArray<StoredValue>, version: Int64) {
        forgetPartialValues()
        replaceValues(with: values)
        self.version = version
        isFault = false
    }

    /// The global ID, read from the store the first time it is asked for (fetches leave it out).
    /// An object whose row is gone, or cannot be read now, reads the all-zero ID, which is not kept:
    /// the next access reads the store again.
    package var loadedGlobalID: UUID {
        if let globalID { return globalID }
        guard let loaded = host?.readGlobalID(of: self) else { return GlobalIDs.placeholder }
        globalID = loaded
        return loaded
    }

    /// The row version, which a fault only knows once loaded.
    package var loadedVersion: Int64 {
        fulfillIfNeeded()
        return version
    }

    /// Marks the current values as saved.
    @inlinable package func commit() {
        forgetCommittedValues()
        changedToMany = [:]
        parentBaseline = nil
        dropEmptyExtras()
    }

    /// Loads the values of a fault.
    @inline(__always)
    @inlinable package func fulfillIfNeeded() {
        if isFault { host?.fulfillFault(self) }
    }

    /// The position of property `index` in its kind's numbering.
    ///
    /// Read through a guaranteed reference: the declaration is immortal, and reading its table as
    /// an ordinary array would retain and release it on every property access.
    @inline(__always)
    @inlinable package func slot(of index: Int) -> Int {
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
        do {
            initializeStoredAttribute(try value.checkedStoredValue(), at: index)
        } catch {
            noteUnstorableValue(error, at: index)
        }
    }

    /// Reads an attribute. Loads the object first if it is a fault.
    @inlinable
    public func value<Value: AttributeValue>(at index: Int) -> Value {
        // The rare failure reads the stored value again: keeping it for that costs every read a copy.
        Value(storedValue: attributeForReading(at: index)) ?? unconvertedValue(at: index)
    }

    /// An attribute's stored value, read in the accessor itself when nothing has to happen first:
    /// the object is no fault and its reads are not reported to Observation (see
    /// ``_ObjectStateHeader/slowReadFlags``). Anything else takes ``storedAttribute(at:)``. Two calls
    /// and a copy per read are what this spares; a fetch reads every attribute of every object.
    ///
    /// The two reads are unchecked. Their invariant: `index` is the index of one of this entity's
    /// attributes (the accessors `@Entity` writes pass their own property's), so the position table
    /// has it, and the position it holds is one of the state's values. Debug builds assert both
    /// on every read (``checkFastRead(at:)``).
    @inlinable @inline(__always)
    package func attributeForReading(at index: Int) -> StoredValue {
        withUnsafeMutablePointers { header, tail in
            let flags = header.pointee.flags
            guard flags & _ObjectStateHeader.slowReadFlags == 0 else { return storedAttribute(at: index) }
            if flags & _ObjectStateHeader.checksUseFlag != 0 { checkFastRead(at: index) }
            // The declaration read twice rather than kept in a local, which would retain it.
            return PackedValues(tail: tail, payloadOffset: header.pointee.id.entity.payloadOffset)[
                header.pointee.id.entity.attributePositions[index]]
        }
    }

    /// The checks debug builds run for a read in the accessor (see
    /// ``_ObjectStateHeader/checksUseFlag``): the invariant of ``attributeForReading(at:)``, and
    /// that one thread at a time uses the context (for a read that is one load, its use begins and
    /// ends here).
    @usableFromInline
    package func checkFastRead(at index: Int) {
        let layout = entity.layout
        assert(
            layout.slots.indices.contains(index) && layout.slots[index] == .attribute(layout.slotIndex[index])
                && layout.slotIndex[index] < valueCount,
            "\(entity.name): property \(index) is not an attribute with a value in the state")
        beginUse()?.end()
    }

    /// Writes an attribute and records the change. A value that cannot be encoded is not written:
    /// the failure is recorded, and the next save reports it.
    @inlinable
    public func setValue<Value: AttributeValue>(_ value: Value, at index: Int) {
        do {
            setStoredAttribute(try value.checkedStoredValue(), at: index)
        } catch {
            noteUnstorableValue(error, at: index)
        }
    }

    @usableFromInline
    package func initializeStoredAttribute(_ value: StoredValue, at index: Int) {
        guard acceptsInitialValues else { return }
        if fields.pointee.extras?.unstorableValues != nil { forgetUnstorableValue(at: index) }
        packedValues.assign(value, at: slot(of: index))
    }

    /// Records that a value assigned to attribute `index` could not be encoded: the attribute keeps
    /// its previous value, and the object counts as changed, so that the next save names the
    /// failure (see ``ValidationFailure/Reason/unstorableValue(reason:)``) and writes nothing.
    @usableFromInline
    package func noteUnstorableValue(_ error: any Error, at index: Int) {
        guard !isMaterializing else { return }
        if let host, !host.willChange(self, property: index) { return }
        extras.unstorableValues = extras.unstorableValues ?? [:]
        extras.unstorableValues?[index] = "\(error)"
    }

    /// A value that can be stored replaces one that could not.
    private func forgetUnstorableValue(at index: Int) {
        guard let extras = fields.pointee.extras else { return }
        extras.unstorableValues?[index] = nil
        if extras.unstorableValues?.isEmpty == true { extras.unstorableValues = nil }
    }

    /// The attributes whose last assigned value could not be encoded, with why.
    package var unstorableValues: [Int: String] {
        get { fields.pointee.extras?.unstorableValues ?? [:] }
        set {
            if newValue.isEmpty, fields.pointee.extras == nil { return }
            extras.unstorableValues = newValue.isEmpty ? nil : newValue
        }
    }

    /// What an attribute reads when its stored value does not convert to its type.
    ///
    /// An object that has no row read (a new object not given a value yet, a fault whose row is
    /// gone, or whose read failed and is recorded already) reads the attribute's default; a save
    /// names what is missing. Anything else came from the store and does not fit: the
    /// failure is recorded for the context (``Entity/checkedValue(_:)`` throws it, and so does the
    /// next save), the stored value stays as it is, and the accessor, which cannot throw, reads the
    /// default.
    @usableFromInline
    package func unconvertedValue<Value: AttributeValue>(at index: Int) -> Value {
        guard let host, !isFault, !isInserted, !isInaccessible else {
            return fallbackValue(at: index)
        }
        let stored = value(atPosition: slot(of: index))
        do {
            // A type whose optional conversion is stricter than its throwing one reads that value.
            return try Value(checkedStoredValue: stored)
        } catch {
            let name = entity.propertyNames[index]
            host.recordReadFailure(
                ObjectGraphError.unreadableValue(id, property: name, reason: "\(error)"),
                of: self, property: name)
            return fallbackValue(at: index)
        }
    }

    @usableFromInline
    package func storedAttribute(at index: Int) -> StoredValue {
        let use = beginUse()
        defer { use?.end() }
        if fields.pointee.observesReads { trackAccess(index) }
        let slot = slot(of: index)
        if isFault, !needsRow(forPosition: slot) { return value(atPosition: slot) }
        fulfillIfNeeded()
        return value(atPosition: slot)
    }

    /// Gives a fault the values a partial fetch read, by position: reads of them are answered
    /// without loading the row, the first read of any other value loads it whole. Does nothing to
    /// an object that is no fault (its values are the context's view of it), nor to a fault that
    /// changed (through an inverse relationship): its values are its own.
    package func loadPartially(_ values: some Sequence<(position: Int, value: StoredValue)>) {
        guard isFault, !isUpdated else { return }
        var positions = extras.partiallyLoaded ?? []
        for (position, value) in values {
            packedValues.assign(value, at: position)
            positions.insert(position)
        }
        extras.partiallyLoaded = positions
    }

    /// Forgets the values a partial fetch read (see ``loadPartially(_:)``): the row was loaded
    /// whole, or changed in the store since.
    package func forgetPartialValues() {
        guard let extras = fields.pointee.extras, extras.partiallyLoaded != nil else { return }
        extras.partiallyLoaded = nil
        dropEmptyExtras()
    }

    /// Whether a read of value `position` of this fault needs its row: false when a partial fetch
    /// read it (a change through an inverse relationship since is written over it, as over any
    /// fault's value).
    package func needsRow(forPosition position: Int) -> Bool {
        isFault && fields.pointee.extras?.partiallyLoaded?.contains(position) != true
    }

    /// The value read when the stored one is missing or does not fit the type: the declared default,
    /// else the type's default.
    @usableFromInline
    package func fallbackValue<Value: AttributeValue>(at index: Int) -> Value {
        let declared = entity.layout.initialValues[slot(of: index)]
        return Value(storedValue: declared) ?? Value.defaultValue
    }

    @usableFromInline
    package func setStoredAttribute(_ value: StoredValue, at index: Int) {
        guard !isMaterializing else { return }
        let use = beginUse()
        defer { use?.end() }
        let slot = slot(of: index)
        let host = self.host
        if let host, !host.willChange(self, property: index) { return }
        if fields.pointee.extras?.unstorableValues != nil { forgetUnstorableValue(at: index) }
        write(value, atPosition: slot)
        if let host, slot == Unmanaged.passUnretained(entity)._withUnsafeGuaranteedRef({ $0.layout.markedForDeletionSlot }) {
            host.didWriteMark(of: self)
        }
    }

    /// Marks the start of a read or write of a property, for the context's check that one thread
    /// at a time uses it (debug builds only; see ``ExclusiveUse``).
    @inline(__always)
    package func beginUse() -> ExclusiveUse.Use? {
        #if DEBUG
            host?.beginUse()
        #else
            nil
        #endif
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
    @inlinable
    public func value<Destination: Entity>(at index: Int) -> Destination? {
        relatedObject(at: index) as? Destination
    }

    /// The object a to-one relationship points to. Typed as an entity, not as `AnyObject`: a caller
    /// that needs an entity would otherwise cast back, a conformance lookup of about 150
    /// instructions per read.
    @usableFromInline
    package func relatedObject(at index: Int) -> (any Entity)? {
        let use = beginUse()
        defer { use?.end() }
        if fields.pointee.observesReads { trackAccess(index) }
        let slot = slot(of: index)
        if isFault, needsRow(forPosition: entity.layout.attributeCount + slot) { fulfillIfNeeded() }
        guard let host else { return detachedRelatives[index]?.first }
        return host.relatedObject(of: self, slot: slot, property: index)
    }

    /// Sets a to-one relationship.
    public func setValue<Destination: Entity>(_ value: Destination?, at index: Int) {
        setRelatedObject(value, at: index)
    }

    /// Sets a to-one relationship, out of the generic accessor: run unspecialized, its optional
    /// handling looked up type metadata on every call.
    private func setRelatedObject(_ value: (any Entity)?, at index: Int) {
        guard !isMaterializing else { return }
        let use = beginUse()
        defer { use?.end() }
        if let host {
            host.setToOne(self, slot: slot(of: index), to: value)
        } else if let value {
            detachedRelatives[index] = [value]
        } else {
            detachedRelatives[index] = nil
        }
    }

    /// The key of the object a to-one relationship points to; temporary keys are negative.
    @inlinable package func relatedKey(at slot: Int) -> Int64? {
        let position = entity.layout.attributeCount + slot
        guard case .integer(let key) = value(atPosition: position) else { return nil }
        return key
    }

    /// Gives the to-one links that hold temporary keys the keys a save allocated for them, in the
    /// current values and in the committed ones: the same objects, so no change is recorded.
    package func replaceTemporaryKeys(_ newKeys: AllocatedKeys) {
        let positions = entity.layout.attributeCount..<valueCount
        let values = packedValues
        for position in positions {
            if case .integer(let key) = values[position], key < 0, let saved = newKeys[key] {
                values.assign(.integer(saved), at: position)
            }
        }
        guard let extras = fields.pointee.extras, var committed = extras.committed else { return }
        var remapped = false
        for index in committed.indices where positions.contains(committed[index].position) {
            if case .integer(let key) = committed[index].value, key < 0, let saved = newKeys[key] {
                committed[index].value = .integer(saved)
                remapped = true
            }
        }
        if remapped { extras.committed = committed }
    }

    /// Points a to-one relationship at an object, without touching the inverse.
    package func setRelated(_ id: ObjectID?, at slot: Int) {
        let position = entity.layout.attributeCount + slot
        write(id.map { .integer($0.key) } ?? .null, atPosition: position)
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

    // Inlinable, like the attribute accessors: unspecialized, building the set looks up type
    // metadata for every member.

    /// Reads a to-many relationship, loading its members the first time.
    @inlinable
    public func value<Destination: Entity>(at index: Int) -> Set<Destination> {
        if observesReads { trackAccess(index) }
        if let cached = cachedMembers(at: index) as? Set<Destination> { return cached }
        let objects = relatedObjects(at: index)
        var members = Set<Destination>(minimumCapacity: objects.count)
        for case let member as Destination in objects { members.insert(member) }
        cacheMembers(members, at: index)
        return members
    }

    /// Reads an ordered to-many relationship, loading its members the first time.
    @inlinable
    public func value<Destination: Entity>(at index: Int) -> [Destination] {
        if observesReads { trackAccess(index) }
        if let cached = cachedMembers(at: index) as? [Destination] { return cached }
        let members = relatedObjects(at: index).compactMap { $0 as? Destination }
        cacheMembers(members, at: index)
        return members
    }

    /// The value of a to-many relationship read earlier in the current deletion pass, if it has not
    /// changed since. Rules of many deleted objects often read the same relationship (the demo's
    /// "was this the country's last mood?"), which would otherwise be rebuilt every time.
    @usableFromInline
    package func cachedMembers(at index: Int) -> Any? {
        host?.cachedMembers(of: self, index: index)
    }

    @usableFromInline
    package func cacheMembers(_ members: Any, at index: Int) {
        host?.cacheMembers(members, of: self, index: index)
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
        let use = beginUse()
        defer { use?.end() }
        if let host {
            host.setToMany(self, slot: slot(of: index), to: members)
        } else {
            detachedRelatives[index] = members
        }
    }

    /// The objects of a to-many relationship.
    @usableFromInline
    package func relatedObjects(at index: Int) -> [any Entity] {
        let use = beginUse()
        defer { use?.end() }
        guard let host else { return detachedRelatives[index] ?? [] }
        return host.relatedObjects(of: self, slot: slot(of: index), property: index)
    }

    // MARK: Observation

    /// Tells Observation that property `index` is read, in a context that reports reads (elsewhere
    /// a read tests ``observesReads`` and no more).
    @usableFromInline
    package func trackAccess(_ index: Int) {
        guard let object, let registrar = host?.registrar(of: self) else { return }
        entity.properties[index].observation.access(object, registrar)
    }

    // MARK: Change information

    package func changedKeys() -> Set<String> {
        var properties: [Int] = []
        appendChangedProperties(to: &properties)
        return Set(properties.map { entity.properties[$0].name })
    }

    /// Appends the indices (in the entity's properties) of the properties changed since the last save:
    /// every property of an inserted object.
    package func appendChangedProperties(to properties: inout [Int]) {
        let layout = entity.layout
        if isInserted {
            properties.append(contentsOf: entity.properties.indices)
            return
        }
        if let committed = fields.pointee.extras?.committed {
            // Read once, outside the loop: the layout's array read in it is retained at each turn.
            let valueProperties = layout.valueProperties
            let values = packedValues
            for entry in committed where values[entry.position] != entry.value {
                properties.append(valueProperties[entry.position])
            }
        }
        for slot in changedToMany.keys {
            properties.append(layout.toManyProperties[slot])
        }
    }

    package func committedValue(forKey key: String) -> StoredValue? {
        guard let index = entity.properties.firstIndex(where: { $0.name == key }),
            case .attribute(let slot) = entity.layout.slots[index]
        else { return nil }
        let committed = committedValue(atPosition: slot)
        return committed != value(atPosition: slot) ? committed : nil
    }

    /// Whether any column of the object's row differs from what was read. Compared in place: a save
    /// asks this of every updated object twice, and copying the values to compare them cost an
    /// allocation and a retain of every text each time.
    package var hasColumnChanges: Bool {
        guard let committed = fields.pointee.extras?.committed else { return false }
        let values = packedValues
        return committed.contains { values[$0.position] != $0.value }
    }
}

/// The fields of an ``ObjectState``, stored ahead of its values. An implementation detail of
/// ObjectGraph, public only because the state's superclass names it.
@_documentation(visibility: internal)
public struct _ObjectStateHeader {
    /// The object's ID, which names its entity too (the state's ``entity``).
    ///
    /// Every word of the header is paid once per object, and the header is laid out to waste none:
    /// the ID takes 20 bytes, the flags the next two, and the eight-byte fields follow.
    @usableFromInline package var id: ObjectID
    /// The flags below, a bit each: nine `Bool` fields would take two words once padded. Declared
    /// right after `id`, in the padding that follows it.
    @usableFromInline package var flags: UInt16 = 0
    @usableFromInline package var version: Int64 = 0
    /// The object, unretained (the object owns the state), as a plain reference: the entity's
    /// declaration makes it `any Entity` (see ``ObjectState/object``), where the existential would
    /// take a second word in every header.
    @usableFromInline package var object: Unmanaged<AnyObject>?
    /// The host (the context's host for the object's entity), unretained: objects must not keep
    /// their context alive, as in Core Data. Not a weak reference, which would cost a side-table
    /// update per object: a context clears this field of every state it registered when it is
    /// deallocated, and a state is registered whenever this field names a host.
    @usableFromInline package unowned(unsafe) var host: (any ObjectHost)?
    /// The parts a fetched, unchanged object does not have (see ``ObjectStateExtras``); nil until
    /// one of them is needed.
    @usableFromInline package var extras: ObjectStateExtras?

    @usableFromInline package init(
        id: ObjectID, acceptsInitialValues: Bool, extras: ObjectStateExtras?
    ) {
        self.id = id
        self.flags = acceptsInitialValues ? Self.acceptsInitialValuesFlag : 0
        #if DEBUG
            flags |= Self.checksUseFlag
        #endif
        self.extras = extras
    }

    // MARK: Flags

    @usableFromInline package static let isFaultFlag: UInt16 = 1 << 0
    @usableFromInline package static let isInsertedFlag: UInt16 = 1 << 1
    @usableFromInline package static let insertionIsPostedFlag: UInt16 = 1 << 2
    @usableFromInline package static let isUpdatedFlag: UInt16 = 1 << 3
    @usableFromInline package static let isDeletedFlag: UInt16 = 1 << 4
    @usableFromInline package static let isInaccessibleFlag: UInt16 = 1 << 5
    @usableFromInline package static let acceptsInitialValuesFlag: UInt16 = 1 << 6
    @usableFromInline package static let isMaterializingFlag: UInt16 = 1 << 7
    @usableFromInline package static let observesReadsFlag: UInt16 = 1 << 8
    @usableFromInline package static let hasRunWillSaveFlag: UInt16 = 1 << 9
    /// Set on every state in debug builds, where each read in the accessor runs its checks (see
    /// ``ObjectState/checkFastRead(at:)``); never in release builds, whose reads test it and go on.
    @usableFromInline package static let checksUseFlag: UInt16 = 1 << 10
    /// A new object's state that its subclass claimed, waiting for its superclasses' initializers
    /// (see ``MaterializationSlot/claimForSubclass(_:makeNew:)``).
    @usableFromInline package static let awaitsSuperclassClaimFlag: UInt16 = 1 << 11
    /// The flags that send an attribute read through ``ObjectState/storedAttribute(at:)``.
    @usableFromInline package static let slowReadFlags: UInt16 = isFaultFlag | observesReadsFlag

    @inlinable @inline(__always)
    package func has(_ flag: UInt16) -> Bool { flags & flag != 0 }

    @inlinable @inline(__always)
    package mutating func set(_ flag: UInt16, _ isOn: Bool) {
        flags = isOn ? flags | flag : flags & ~flag
    }

    @inlinable package var isFault: Bool {
        get { has(Self.isFaultFlag) }
        set { set(Self.isFaultFlag, newValue) }
    }
    @inlinable package var isInserted: Bool {
        get { has(Self.isInsertedFlag) }
        set { set(Self.isInsertedFlag, newValue) }
    }
    /// Whether an ``ObjectsDidChange`` reported the insertion: later changes are reported as updates.
    @inlinable package var insertionIsPosted: Bool {
        get { has(Self.insertionIsPostedFlag) }
        set { set(Self.insertionIsPostedFlag, newValue) }
    }
    @inlinable package var isUpdated: Bool {
        get { has(Self.isUpdatedFlag) }
        set { set(Self.isUpdatedFlag, newValue) }
    }
    @inlinable package var isDeleted: Bool {
        get { has(Self.isDeletedFlag) }
        set { set(Self.isDeletedFlag, newValue) }
    }
    @inlinable package var isInaccessible: Bool {
        get { has(Self.isInaccessibleFlag) }
        set { set(Self.isInaccessibleFlag, newValue) }
    }
    @inlinable package var acceptsInitialValues: Bool {
        get { has(Self.acceptsInitialValuesFlag) }
        set { set(Self.acceptsInitialValuesFlag, newValue) }
    }
    @inlinable package var isMaterializing: Bool {
        get { has(Self.isMaterializingFlag) }
        set { set(Self.isMaterializingFlag, newValue) }
    }
    @inlinable package var awaitsSuperclassClaim: Bool {
        get { has(Self.awaitsSuperclassClaimFlag) }
        set { set(Self.awaitsSuperclassClaimFlag, newValue) }
    }
    @inlinable package var observesReads: Bool {
        get { has(Self.observesReadsFlag) }
        set { set(Self.observesReadsFlag, newValue) }
    }
    @inlinable package var hasRunWillSave: Bool {
        get { has(Self.hasRunWillSaveFlag) }
        set { set(Self.hasRunWillSaveFlag, newValue) }
    }
}

/// The members a to-many relationship gained and lost since the last save. A member removed and added
/// again (or the reverse) is no change; an entry with neither is a change of order.
@usableFromInline package struct MemberChanges: Sendable {
    package init(added: OrderedSet<ObjectID> = [], removed: Set<ObjectID> = [], savedOrder: OrderedSet<ObjectID>? = nil) {
        self.added = added
        self.removed = removed
        self.savedOrder = savedOrder
    }

    package var added: OrderedSet<ObjectID> = []
    package var removed: Set<ObjectID> = []
    /// For an ordered relationship loaded when its first change was made, its members as saved: an
    /// undo that brings that order back leaves nothing to save.
    package var savedOrder: OrderedSet<ObjectID>?

    package mutating func add(_ id: ObjectID) {
        if removed.remove(id) == nil { added.append(id) }
    }

    package mutating func remove(_ id: ObjectID) {
        if added.remove(id) == nil { removed.insert(id) }
    }
}

/// The members of a to-many relationship in memory.
@usableFromInline package enum ToManyValue: Sendable {
    /// Not loaded yet; changes made through inverse relationships wait in `added` / `removed`.
    case fault
    case pending(added: OrderedSet<ObjectID>, removed: Set<ObjectID>)
    case loaded(OrderedSet<ObjectID>)

    /// Whether the members must be read from the store before they are known.
    package var needsLoading: Bool {
        if case .loaded = self { return false }
        return true
    }

    /// The members, as far as they are known.
    package var members: [ObjectID] {
        switch self {
        case .loaded(let members): members.elements
        case .pending(let added, _): Array(added)
        case .fault: []
        }
    }

    /// Becomes loaded with the stored members and the changes made before they were read.
    package mutating func resolve(stored: [ObjectID]) {
        switch self {
        case .loaded:
            return
        case .fault:
            self = .loaded(OrderedSet(stored))
        case .pending(let added, let removed):
            var members = OrderedSet(stored)
            members.removeAll { removed.contains($0) }
            members.append(contentsOf: added)
            self = .loaded(members)
        }
    }

    // The mutations below first set `self` to `.fault`, so that the set taken out of the enum is the
    // only reference to its storage and changes in place: otherwise each insertion into a loaded
    // relationship copies every member (a country given 100,000 moods one by one is quadratic).

    /// Records `id` as a member; false if it already was one.
    package mutating func insert(_ id: ObjectID) -> Bool {
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
    package mutating func remove(_ id: ObjectID) -> Bool {
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
