public import Foundation
public import ObjectGraphModel
import ObjectGraphStore

/// Objects by their global IDs: the identity that holds across stores, processes and devices (what a
/// sync layer, an importer or a deep link names an object by), where an ``ObjectID`` holds within
/// one store.
extension ObjectContext {
    /// The objects of `type` whose global IDs are among `globalIDs`, by global ID.
    ///
    /// New objects of this context count (they are not in the store yet); objects deleted in this
    /// context do not. The others are read set-wise, a query per 500 IDs through the global IDs'
    /// unique index, with their values, and come back as the context's registered objects (a fault
    /// among them is loaded; the others keep their values, as for a fetch). IDs that name
    /// no object of `type` are missing from the result.
    ///
    /// - Throws: ``ObjectGraphError/unknownEntity(_:)`` for an entity outside the container's schema,
    ///   ``ObjectGraphError/store(_:)`` when the store cannot be read.
    public func objects<T: Entity>(withGlobalIDs globalIDs: some Sequence<UUID>, as type: T.Type = T.self) throws -> [UUID: T] {
        let use = beginUse()
        defer { use.end() }
        mergeIncomingChanges()
        guard let mapping = store.mapping(for: T._$entity) else { throw ObjectGraphError.unknownEntity(T._$entity.name) }
        var wanted = Set(globalIDs)
        var found: [UUID: T] = [:]
        for object in changes.inserted.values where !object._$state.isDeleted {
            guard let typed = object as? T, let globalID = object._$state.globalID, wanted.remove(globalID) != nil else { continue }
            found[globalID] = typed
        }
        guard !wanted.isEmpty else { return found }
        // Read with their values, as a fetch reads them: whoever asks for objects by global ID
        // uses them next (a sync applying a page, an importer updating what it finds).
        var unregistered: [Unmanaged<ObjectState>] = []
        defer { registry.register(unregistered, of: mapping.declaration) }
        do {
            try store.reader.forEachRow(globalIDs: Array(wanted), mapping: mapping) { row, globalID in
                guard let typed = object(for: row, mapping: mapping, unregistered: &unregistered) as? T else { return }
                let state = typed._$state
                guard !state.isDeleted else { return }
                if state.globalID == nil { state.globalID = globalID }  // read now: spares the object a query
                found[globalID] = typed
            }
        } catch {
            throw ObjectGraphError.store(StoreError(error))
        }
        return found
    }

    /// The object of `type` whose global ID is `globalID`; nil when there is none (or it was
    /// deleted in this context).
    ///
    /// - Throws: The errors of ``objects(withGlobalIDs:as:)``.
    public func object<T: Entity>(withGlobalID globalID: UUID, as type: T.Type = T.self) throws -> T? {
        try objects(withGlobalIDs: [globalID], as: type)[globalID]
    }

    /// Inserts a new object of `type` made without its initializer, as Core Data's
    /// `insertNewObject(forEntityName:into:)` does: its attributes hold their declared defaults (the
    /// others nothing yet, so a required one must be set before the next save), its relationships
    /// are empty. For code that makes objects of types it knows only at run time (an importer, a
    /// sync layer), with ``Entity/setStoredValue(_:forKey:)`` to fill them.
    ///
    /// - Parameters:
    ///   - type: The entity.
    ///   - globalID: The object's global ID; nil for a new one.
    /// - Returns: The object, inserted.
    @discardableResult
    public func insertNewObject<T: Entity>(of type: T.Type, globalID: UUID? = nil) -> T {
        let use = beginUse()
        defer { use.end() }
        let state = ObjectState.makeNew(of: T._$entity)
        if let globalID { state.globalID = globalID }
        // The placeholders the materializing initializer assigns are not values: refused, as for a
        // fetched object, then the new object takes values again.
        state.acceptsInitialValues = false
        let object = MaterializationSlot.materialize(type, with: state)
        state.acceptsInitialValues = true
        state.object = object
        insertObject(object)
        // `materialize` makes an object of the type it is given (and checks it claimed the state).
        return unsafeDowncast(object as AnyObject, to: T.self)
    }

    /// Inserts a new object under a global ID of the caller's instead of a new one: an object made
    /// elsewhere (another device, an export) keeps its identity here.
    ///
    /// The ID is unique in the store: a save that would give a second object the same one fails with
    /// ``ObjectGraphError/validationFailed(_:)`` (``ValidationFailure/Reason/notUnique(_:)`` of
    /// `objectGlobalID`) and writes nothing.
    ///
    /// - Throws: ``ObjectGraphError/wrongContext(_:action:)`` when `object` is not new (it was
    ///   inserted before, here or in another context): its global ID cannot change.
    public func insert<T: Entity>(_ object: T, globalID: UUID) throws {
        let state = object._$state
        guard state.context == nil, state.acceptsInitialValues else {
            throw ObjectGraphError.wrongContext(state.id, action: "given a global ID (only a new object can be)")
        }
        state.globalID = globalID
        insert(object)
    }
}
