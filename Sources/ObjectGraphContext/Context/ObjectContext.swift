import Foundation
public import ObjectGraphModel
import ObjectGraphStore
import Observation
import OrderedCollections

/// A unit of work on the object graph: it fetches objects, tracks their changes, and saves them in one
/// transaction.
///
/// A context keeps one live object per ID (uniquing). It holds objects with unsaved changes strongly and
/// every other object weakly, so memory follows what the caller keeps. A context is not `Sendable`: use
/// it on one isolation (the main actor for ``ObjectContainer/viewContext``), and pass ``ObjectID``s
/// between contexts.
public final class ObjectContext {
    /// The container that made this context (see `container`, declared with the container), nil
    /// once it is gone: the context calls nothing on it, so it does not name its type.
    package private(set) weak var owner: AnyObject?
    /// The context a child context saves into (see ``newChildContext()``); nil for a context that
    /// saves to the store. A child keeps its parent alive.
    public let parent: ObjectContext?
    /// The child contexts made from this one that are still alive: told of this context's saves.
    var children: [WeakContext] = []
    /// The coordinator's store, kept at hand: its mappings and identity are read for every object.
    let store: SQLiteStore
    /// A name for debugging and for the transaction author of saves.
    public var name: String?
    /// What a fault whose row another context deleted does when it is read. On (the default), the
    /// object becomes deleted: it reads its declared defaults (a type's default where none is
    /// declared) and is posted as deleted. Off, it reads the same defaults but is not marked deleted;
    /// ``Entity/checkedValue(_:)`` then throws ``ObjectGraphError/inaccessibleFault(_:)``.
    public var shouldDeleteInaccessibleFaults = true
    /// Whether the saves of the container's other contexts are merged into this one without being
    /// asked (see ``mergeChanges(from:)`` for what a merge does). On by default.
    ///
    /// A save made elsewhere waits until this context is used on its own isolation: it is merged when
    /// the context fetches, counts, looks up an existing object, processes its pending changes or
    /// saves. The view context also merges as soon as the main actor is free. Merging first when
    /// saving means that a context that merges automatically meets a conflict (see ``mergePolicy``)
    /// only with a save committed while it saves, or with a change made outside the container.
    ///
    /// A save waiting costs its list of IDs: a context kept for long without being used should be
    /// released, or switched off. Switched off, the context keeps its view of the store until it
    /// merges a ``DidSave`` itself; saves that arrived and were not merged yet are dropped.
    public var automaticallyMergesChanges: Bool {
        get { inbox.isOpen }
        set { inbox.isOpen = newValue }
    }
    /// What a save does with an object whose row changed in the store since this context read it.
    /// ``MergePolicy/error`` (the default) makes the save fail, listing the conflicts.
    public var mergePolicy: MergePolicy = .error
    /// Whether this context's objects report to the Observation framework: a property read inside
    /// `withObservationTracking` (a SwiftUI view's body) is tracked, and the view hears of the
    /// property's change, made here or merged from another context's save. On for the
    /// ``ObjectContainer/viewContext``, off for background contexts, whose bulk reads need not pay
    /// for a registrar per object; switch it on for a background context that a view observes.
    public var isObservable: Bool {
        get { observation.observesReads }
        set {
            guard newValue != observation.observesReads else { return }
            observation.observesReads = newValue
            registry.forEachState { $0.observesReads = newValue }
        }
    }
    /// What the context tells Observation (see ``ObservationRegistrars``). Its parts' state is
    /// read without the dynamic exclusivity checks of a class's stored properties: the context is
    /// used from one isolation at a time (checked in debug builds, see ``ExclusiveUse``).
    @exclusivity(unchecked) var observation = ObservationRegistrars()
    /// Other contexts' saves waiting to be merged.
    let inbox: MergeInbox
    /// What delivers this context's commits to the container's other contexts, and theirs to it.
    let coordinator: StoreCoordinator

    // The bookkeeping below is touched for every object a fetch, a change or a deletion involves. It
    // opts out of dynamic exclusivity checks, like the object states: a context is used from one
    // isolation, and none of these is accessed while it is being modified.

    /// Live objects by ID, unretained: each object's state removes its entry when it is deallocated.
    @exclusivity(unchecked) var registry: ObjectRegistry
    /// The unit of work: what changed since the last save, and what is still to be told of it.
    @exclusivity(unchecked) var changes = ChangeTracker()
    /// The undo manager recording changes (see ``undoManager``); nil records nothing, at the cost of
    /// a test per change.
    @exclusivity(unchecked) var undo: ObjectUndoManager?
    /// While delete rules run, what the pass keeps at hand (see ``DeletionPass``); nil otherwise.
    @exclusivity(unchecked) var deletionPass: DeletionPass?
    /// Where the processing of pending changes stands (see ``PendingChangesProcessing``).
    @exclusivity(unchecked) var processing = PendingChangesProcessing()
    /// The store's marks read so far (see ``StoredMarks``).
    @exclusivity(unchecked) var storedMarks = StoredMarks()
    let objectsDidChangeObservers = Observers<ObjectsDidChange>()
    /// List monitors: they hear every ``ObjectsDidChange``, those naming only rows nobody holds
    /// (``ObjectsDidChange/unheldUpdates``) too, before anyone else, so that a handler that reads a
    /// list reads it up to date. Merges note rows nobody holds only while one listens.
    let listMonitorObservers = Observers<ObjectsDidChange>()
    let willSaveObservers = Observers<WillSave>()
    let didSaveObservers = Observers<DidSave>()
    /// Reads that failed in an accessor that cannot throw (see ``ReadFailures``).
    @exclusivity(unchecked) var readFailures = ReadFailures()
    /// Traps, in debug builds, when two threads use the context at once.
    let exclusiveUse = ExclusiveUse()
    /// The host of each entity's states, by mapping index (see ``EntityHost``). Set once, as the
    /// context is made (the hosts need the context), then only read: a fault or a fetched object
    /// reads it, without a dynamic exclusivity check.
    @exclusivity(unchecked) private(set) var hosts: [EntityHost] = []

    /// For the view context: has its isolation call ``processPendingChanges()`` once it is free.
    private let processSoon: (@Sendable () -> Void)?
    /// The container's save rules (see ``ObjectContainer/addSaveRule(named:_:)``), held here so
    /// that a save does not load the container's weak reference to ask them.
    let saveRules: Observers<ProposedSave>?

    /// Makes a context of `owner`'s, which saves to `coordinator`'s store, or into `parent`.
    ///
    /// - Parameter saveRules: The owner's save rules; a child shares its parent's.
    package init(
        owner: AnyObject?, coordinator: StoreCoordinator, saveRules: Observers<ProposedSave>?,
        parent: ObjectContext? = nil, processSoon: (@Sendable () -> Void)? = nil
    ) {
        self.owner = owner
        self.saveRules = saveRules ?? parent?.saveRules
        self.parent = parent
        self.coordinator = coordinator
        self.store = coordinator.store
        self.registry = ObjectRegistry(store: store.identity)
        self.processSoon = processSoon
        self.inbox = MergeInbox(wake: processSoon)
        coordinator.register(inbox)
        hosts = store.mappings.map { EntityHost(context: self, mapping: $0) }
    }

    deinit {
        // States refer to their context without a reference count (see `ObjectState.context`): the
        // ones that outlive it must learn that it is gone.
        registry.forEachState { state in
            assert(state.context === self, "\(state.id) is registered in a context it does not point to")
            state.detachFromDeallocatingHost()
        }
    }

    // MARK: State

    /// Whether the context has unsaved changes. For a child context: changes not saved into its
    /// parent yet.
    public var hasChanges: Bool {
        changes.hasChanges && (parent == nil || changes.hasChangesSinceSave)
    }

    /// Objects inserted since the last save.
    public var insertedObjects: [any Entity] { Array(changes.inserted.values) }
    /// Objects changed since the last save (not counting inserted or deleted ones).
    public var updatedObjects: [any Entity] {
        changes.updated.values.filter { !$0._$state.isDeleted && !$0._$state.isInserted }
    }
    /// Objects deleted since the last save.
    public var deletedObjects: [any Entity] { Array(changes.deleted.values) }
    /// Every live object of the context.
    public var registeredObjects: [any Entity] {
        registry.states.compactMap(\.object)
    }

    // MARK: Inserting

    /// Inserts a new object; it is written at the next save. Objects it is related to are inserted too.
    ///
    /// Inserting an object of an entity missing from the schema makes the next save fail with
    /// ``ObjectGraphError/unknownEntity(_:)``; inserting an object that belongs to another context
    /// (or that left its context) changes nothing and makes it fail with
    /// ``ObjectGraphError/wrongContext(_:action:)``.
    ///
    /// - Parameter object: A new object, made with its initializer.
    public func insert<T: Entity>(_ object: T) {
        let use = beginUse()
        defer { use.end() }
        insertObject(object)
    }

    func insertObject(_ object: any Entity) {
        let state = object._$state
        if state.context === self {
            if state.isDeleted && state.isInserted { undelete(object) }
            return
        }
        // Only a new object is inserted: one of another context, or one that left its context
        // (rolled back, deleted, or its context is gone), stays where it is.
        guard state.context == nil, state.acceptsInitialValues else {
            changes.deferredErrors.append(.wrongContext(state.id, action: "inserted into this context"))
            return
        }
        guard let mapping = store.mapping(for: state.entity) else {
            changes.deferredErrors.append(.unknownEntity(state.entity.name))
            return
        }
        state.acceptsInitialValues = false
        state.attach(to: host(for: mapping))
        if let slot = mapping.markedForDeletionSlot, !state.value(atPosition: slot).isNull {
            noteUnsavedMark(of: state, mapping: mapping)
        }
        state.object = object
        state.isInserted = true
        state.insertionIsPosted = false
        registry.register(state)
        changes.recordInsertion(ofNew: object, key: StateKey(state))
        changes.hasChangesSinceSave = true
        if undo != nil { recordExistenceForUndo(of: object, wasLive: false) }
        scheduleProcessing()

        // Relationships assigned before insertion now get their inverses.
        let relatives = state.detachedRelatives
        state.detachedRelatives = DetachedRelatives()
        for (index, objects) in relatives.inPropertyOrder {
            switch state.entity.layout.slots[index] {
            case .toOne(let slot): setToOne(state, slot: slot, to: objects.first)
            case .toMany(let slot): setToMany(state, slot: slot, to: objects)
            case .attribute: break
            }
        }
        object.awakeFromInsert()
    }

    // MARK: Finding objects

    /// The object with this ID in this context: the registered one, or a fault that loads when read.
    ///
    /// Returns nil if the ID's entity is not in this context's schema. A fault for a row that does not
    /// exist reads as deleted; use ``existingObject(with:)`` to check the store.
    ///
    /// - Parameter id: An ID from any context of this store, or decoded.
    public func object(with id: ObjectID) -> (any Entity)? {
        let use = beginUse()
        defer { use.end() }
        if let registered = registry.state(for: id) {
            return registered.object
        }
        guard !id.isTemporary, id.store == store.identity, let mapping = store.mapping(for: id.entity) else {
            return nil
        }
        return fault(for: id, mapping: mapping)
    }

    /// A new, registered fault for a saved row that has no live object here.
    func fault(for id: ObjectID, mapping: EntityMapping) -> any Entity {
        let (object, state) = makeFault(for: id, mapping: mapping)
        registry.register(state)
        return object
    }

    /// A new fault, not registered yet.
    private func makeFault(for id: ObjectID, mapping: EntityMapping) -> (any Entity, ObjectState) {
        let state = ObjectState.make(entity: mapping.declaration, id: id, host: host(for: mapping), row: nil)
        let object = MaterializationSlot.materialize(mapping.declaration.type, with: state)
        state.object = object
        deletionPass?.memory.keptObjects.append(object)
        return (object, state)
    }

    /// The objects with these IDs of one entity (the members of a relationship), in order: the live
    /// ones, and faults for the others, registered together.
    package func objects(with ids: [ObjectID], of entity: EntityDeclaration) -> [any Entity] {
        guard let mapping = store.mapping(for: entity) else { return [] }
        var objects: [any Entity] = []
        objects.reserveCapacity(ids.count)
        var faults: [Unmanaged<ObjectState>] = []
        for id in ids {
            if let object = registry.state(for: id)?.object {
                objects.append(object)
            } else if !id.isTemporary, id.store == store.identity, id.entity === entity {
                let (object, state) = makeFault(for: id, mapping: mapping)
                objects.append(object)
                faults.append(Unmanaged.passUnretained(state))  // kept alive by `objects`
            } else if !id.isTemporary, id.store == store.identity, id.entity.isKind(of: entity),
                let subentity = store.mapping(for: id.entity)
            {
                // A member of a subentity: an object of its own class.
                objects.append(fault(for: id, mapping: subentity))
            }
        }
        registry.register(faults, of: entity)
        return objects
    }

    /// The object with this ID, typed; nil if it is not a `T`.
    ///
    /// - Parameters:
    ///   - id: An ID from any context of this store, or decoded.
    ///   - type: The entity expected.
    public func object<T: Entity>(with id: ObjectID, as type: T.Type = T.self) -> T? {
        object(with: id) as? T
    }

    /// The object with this ID, loaded from the store if needed.
    ///
    /// - Throws: ``ObjectGraphError/objectNotFound(_:)`` if no such object exists (or it was deleted in
    ///   this context), ``ObjectGraphError/foreignObjectID(_:)`` for an ID of another store.
    ///
    /// - Parameter id: An ID from any context of this store, or decoded.
    public func existingObject(with id: ObjectID) throws -> any Entity {
        let use = beginUse()
        defer { use.end() }
        if id.store != nil, id.store != store.identity { throw ObjectGraphError.foreignObjectID(id) }
        mergeIncomingChanges()
        guard let object = object(with: id) else { throw ObjectGraphError.objectNotFound(id) }
        let state = object._$state
        try loadFault(state)
        guard !state.isDeleted, !state.isInaccessible else { throw ObjectGraphError.objectNotFound(id) }
        return object
    }

    /// The object with this ID, typed, loaded from the store if needed.
    ///
    /// - Parameters:
    ///   - id: An ID from any context of this store, or decoded.
    ///   - type: The entity expected; an object of another one throws
    ///     ``ObjectGraphError/objectNotFound(_:)``.
    public func existingObject<T: Entity>(with id: ObjectID, as type: T.Type = T.self) throws -> T {
        guard let object = try existingObject(with: id) as? T else { throw ObjectGraphError.objectNotFound(id) }
        return object
    }

    /// The object with this ID if it is live in this context, without creating a fault.
    ///
    /// - Parameter id: An ID from any context of this store.
    public func registeredObject(for id: ObjectID) -> (any Entity)? {
        registry.state(for: id)?.object
    }

    /// Called by a state being deallocated.
    func forget(_ state: ObjectState) {
        observation.forget(state)
        let wasRegistered = registry.forget(state)
        // States point to their context without a reference count: one that does must be registered,
        // or the context could not clear the pointer when it goes (see `deinit`).
        assert(wasRegistered, "\(state.id) points to context \(name ?? "(unnamed)") without being registered there")
    }

    // MARK: Changing

    /// Records that property `index` of an object is about to change: loads the object if it is a
    /// fault, and keeps it until saved. Returns false, changing nothing, if the fault cannot be read:
    /// a value written over values that are not known would be saved as if they were (the failure
    /// is recorded, so the next save reports it).
    @discardableResult
    func willChange(_ state: ObjectState, property index: Int) -> Bool {
        if state.isFault {
            fulfillFault(state)
            guard !state.isFault else { return false }
        }
        markUpdated(state, property: index)
        return true
    }

    /// Keeps an object whose property `index` changed until saved, without loading it.
    func markUpdated(_ state: ObjectState, property index: Int) {
        changes.hasChangesSinceSave = true
        if undo != nil { recordValueForUndo(of: state, property: index) }
        observation.notifyChange(of: state, property: index)
        changes.unposted.recordUpdate(of: state, property: index)
        scheduleProcessing()
        guard !state.isInserted, !state.isUpdated, let object = state.object else { return }
        state.isUpdated = true
        // Not updated, so not in the list (a state is in it exactly while `isUpdated`).
        changes.updated.appendNew(StateKey(state), object)
    }

    /// Records that an object read values saved elsewhere (a merge, a refresh, a resolved conflict):
    /// posted as refreshed, and told to whoever observes it.
    func recordRefresh(of state: ObjectState, _ object: any Entity, keys: Set<String>) {
        changes.unposted.refreshed[StateKey(state)] = (object, keys)
        observation.notifyChange(of: state, keys: keys)
    }

    /// Asks for the changes just recorded to be posted once the context's isolation is free, for a
    /// context that can be asked (the view context); the others post when they process their
    /// pending changes.
    @inline(__always)
    private func scheduleProcessing() {
        guard let processSoon, !processing.isScheduled else { return }
        processing.isScheduled = true
        processSoon()
    }

    // MARK: Undoing

    /// Discards every unsaved change: inserted objects are forgotten, changed and deleted ones get their
    /// saved values back. The ``undoManager`` forgets every group. A child context goes back to
    /// its parent's objects as they are now.
    public func rollback() {
        let use = beginUse()
        defer { use.end() }
        undo?.removeAllActions()
        discardUnsavedChanges()
        if let parent {
            inheritChanges(of: parent)
            changes.hasChangesSinceSave = false
        }
        postObjectsDidChange()
    }

    /// Takes back every unsaved change, leaving the unposted changes to say what that did (posted by a
    /// rollback; a reset reports itself as a whole instead).
    private func discardUnsavedChanges() {
        // Posted for what the rollback does, not for the changes it takes back.
        var change = PendingObjectsChange()
        for (key, object) in changes.inserted { change.invalidated[key] = object }
        for (key, object) in changes.updated where !object._$state.isInserted { change.refreshed[key] = (object, []) }
        for (key, object) in changes.deleted where !object._$state.isInserted { change.refreshed[key] = (object, []) }
        for object in changes.inserted.values {
            let state = object._$state
            state.isInserted = false
            state.isDeleted = true
            registry.unregister(state.id)
            state.attach(to: nil)
        }
        for object in Array(changes.updated.values) + Array(changes.deleted.values) {
            let state = object._$state
            guard !state.isInserted else { continue }
            state.restoreCommittedValues()
            state.unstorableValues = [:]
            for slot in state.changedToMany.keys { state.toMany[slot] = .fault }
            state.changedToMany = [:]
            state.isUpdated = false
            state.isDeleted = false
        }
        changes.clear()
        changes.unposted = change
        forgetStoredMarks()
    }

    /// Forgets every object: unsaved changes are discarded and the objects callers still hold become
    /// detached from the context. Observers hear of it once, as every object invalidated
    /// (``ObjectsDidChange/invalidatedAllObjects``), not of each change it discards. The
    /// ``undoManager`` forgets every group.
    public func reset() {
        let use = beginUse()
        defer { use.end() }
        undo?.removeAllActions()
        discardUnsavedChanges()
        for state in registry.states {
            state.attach(to: nil)
            state.isFault = false
            state.isInaccessible = true
        }
        registry.removeAll()
        readFailures = ReadFailures()
        changes.unposted = PendingObjectsChange()
        changes.unposted.invalidatedAll = true
        postObjectsDidChange()
    }

    /// Reloads an object. With `mergeChanges` false it becomes a fault and its unsaved changes are
    /// discarded; with true it reads the store's values and keeps its own unsaved changes on top.
    ///
    /// In a child context, an object its parent holds changed is read from the parent instead:
    /// the child sees the parent's unsaved changes of it as they are now.
    ///
    /// - Parameters:
    ///   - object: An object of this context.
    ///   - mergeChanges: Whether its unsaved changes are kept on top of the store's values.
    public func refresh<T: Entity>(_ object: T, mergeChanges: Bool) {
        let use = beginUse()
        defer { use.end() }
        let state = object._$state
        guard state.context === self else { return }
        do {
            if try refreshFromParent(state, keepingChanges: mergeChanges) {
                recordRefresh(of: state, object, keys: [])
                return
            }
        } catch {
            // The object keeps what it had; the failure makes the next save fail.
            recordReadFailure(error, of: state, property: nil)
            return
        }
        guard !state.isInserted else { return }
        changes.unposted.updated[StateKey(state)] = nil
        recordRefresh(of: state, object, keys: [])
        reload(state, keepingChanges: mergeChanges)
    }

    /// Gives an object the store's values again: it becomes a fault, or, with `keepingChanges` and
    /// unsaved changes, reads its row now and keeps those changes on top.
    func reload(_ state: ObjectState, keepingChanges: Bool) {
        if state.isFault && !state.isUpdated {
            // Nothing read, nothing changed: what a merge meets for most objects a context holds.
            // What a partial fetch read of it may be stale now.
            state.toMany = state.entity.layout.faultedToMany
            state.forgetPartialValues()
            return
        }
        if !keepingChanges || !state.isUpdated {
            changes.updated[StateKey(state)] = nil
            state.isUpdated = false
            state.unstorableValues = [:]
            state.isFault = true
            state.replaceValues(with: ContiguousArray(repeating: .null, count: state.valueCount))
            state.changedToMany = [:]
            state.toMany = state.entity.layout.faultedToMany
            return
        }
        let local = state.values
        let old = state.committedValues ?? local
        let row: (ContiguousArray<StoredValue>, Int64)?
        do {
            row = try readRow(of: state, { ($0.values, $0.version) })
            forgetReadFailure(of: state)
        } catch {
            // The object keeps what it had, stale: the failure makes the next save fail, before
            // anything is written over values this context could not see.
            recordReadFailure(error, of: state, property: nil)
            return
        }
        guard let row else { return }
        state.load(row.0, version: row.1)
        for position in local.indices where local[position] != old[position] {
            state.write(local[position], atPosition: position)
        }
        // To-many relationships read the store again when next used, with this context's changes
        // on top: the save may have added or removed members (a member it deleted is gone).
        state.toMany = ContiguousArray(
            state.toMany.indices.map { slot in
                state.changedToMany[slot].map { .pending(added: $0.added, removed: $0.removed) } ?? .fault
            })
    }
}

/// A context describes itself in a few words: reflected field by field, it would list every object
/// it tracks (a failing test's message, a debugger's summary).
extension ObjectContext: CustomStringConvertible, CustomReflectable {
    public var description: String {
        "ObjectContext(\(name.map { "\"\($0)\"" } ?? "unnamed")\(parent == nil ? "" : ", child")\(changes.hasChanges ? ", changed" : ""))"
    }

    /// The context's name, whether it is a child, and whether it has changes: not its objects.
    public var customMirror: Mirror {
        Mirror(self, children: ["name": name as Any, "isChild": parent != nil, "hasChanges": hasChanges], displayStyle: .class)
    }
}

extension ObjectContext {
    /// Marks the start of an operation on this context; call ``ExclusiveUse/Use/end()`` when it ends.
    @inline(__always) package func beginUse() -> ExclusiveUse.Use {
        #if DEBUG
            exclusiveUse.enter(contextName: name)
        #else
            ExclusiveUse.Use()
        #endif
    }
}

extension ObjectContext {
    /// The host of the states of a mapping's entity.
    @inline(__always)
    func host(for mapping: EntityMapping) -> EntityHost { hosts[mapping.index] }
}
