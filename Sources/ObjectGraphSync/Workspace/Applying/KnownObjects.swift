import Foundation
import ObjectGraph

/// The synced objects the sync context was asked for since its last save, by entity and global ID,
/// and the IDs known to name none.
///
/// Applying a page of the feed looks up each record and the target of each of its references: one
/// set-wise read for the page (``SyncWorkspace/prefetch(_:of:)``) instead of a query per lookup.
/// The coordinator keeps it in step with what it inserts and deletes, and forgets it at each save
/// and rollback, so it never outlives the context's state it describes.
struct KnownObjects {
    enum Lookup {
        /// The object, deleted or not: the caller decides what a deleted one means.
        case found(any Entity)
        /// Looked up before and not there.
        case absent
        /// Never looked up.
        case unknown
    }

    // By global ID alone (hashing an entity's name with it would cost more than the lookup saves);
    // the entity is checked on the way out.
    private var objects: [UUID: any Entity] = [:]
    /// The global IDs looked up and not found, with the entity they were looked up as.
    private var absent: [UUID: String] = [:]

    func lookup(_ globalID: UUID, entity: String) -> Lookup {
        if let object = objects[globalID] {
            return object.objectID.entityName == entity ? .found(object) : .unknown
        }
        return absent[globalID] == entity ? .absent : .unknown
    }

    /// Notes an object found (or inserted); its entity is its own.
    mutating func found(_ object: any Entity, globalID: UUID) {
        objects[globalID] = object
        absent[globalID] = nil
    }

    mutating func gone(_ globalID: UUID, entity: String) {
        objects[globalID] = nil
        absent[globalID] = entity
    }
}

extension SyncWorkspace {
    /// The objects of `shape` whose global IDs are among `globalIDs`, from what is known and, for
    /// the rest, one set-wise read; objects deleted in the sync context are left out.
    func objects(withGlobalIDs globalIDs: some Sequence<UUID>, of shape: RecordShape) throws -> [UUID: any Entity] {
        var found: [UUID: any Entity] = [:]
        var unknown: [UUID] = []
        for globalID in globalIDs {
            switch unsaved.known.lookup(globalID, entity: shape.entityName) {
            case .found(let object): if !object.isDeleted { found[globalID] = object }
            case .absent: break
            case .unknown: unknown.append(globalID)
            }
        }
        guard !unknown.isEmpty else { return found }
        let read = try shape.objects(withGlobalIDs: unknown, in: context)
        for globalID in unknown {
            if let object = read[globalID] {
                unsaved.known.found(object, globalID: globalID)
                found[globalID] = object
            } else {
                unsaved.known.gone(globalID, entity: shape.entityName)
            }
        }
        return found
    }

    /// The object of `shape` whose global ID is `globalID`, if the sync context has it.
    func object(withGlobalID globalID: UUID, of shape: RecordShape) throws -> (any Entity)? {
        try objects(withGlobalIDs: [globalID], of: shape)[globalID]
    }

    /// Reads set-wise the objects of `shape` among `globalIDs` that are not known yet, so that the
    /// lookups that follow find them (or their absence) without a query, and loads their values
    /// now: the version of its row an object read is the one its save is checked against.
    func prefetch(_ globalIDs: some Sequence<UUID>, of shape: RecordShape) throws {
        for object in try objects(withGlobalIDs: globalIDs, of: shape).values where object.isFault {
            try shape.load(object)
        }
    }
}
