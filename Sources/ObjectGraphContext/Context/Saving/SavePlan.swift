import ObjectGraphModel
import ObjectGraphStore
import OrderedCollections

/// What a save writes: the objects to insert, update and delete, in the order they changed.
struct SavePlan {
    var inserts: [ObjectState] = []
    var updates: [ObjectState] = []
    var deletes: [ObjectState] = []
    /// Objects whose to-many relationships changed.
    var relationshipChanges: [ObjectState] = []
    /// Every object the save concerns, for the steps after the commit.
    var all: [any Entity] = []

    /// The plan for a unit of work whose delete rules ran: an object inserted and deleted is not
    /// written, nor is an updated object whose changes a merge took back.
    init(_ changes: ChangeTracker) {
        for object in changes.inserted.values where !object._$state.isDeleted {
            inserts.append(object._$state)
            all.append(object)
        }
        for object in changes.updated.values where !object._$state.isDeleted && !object._$state.isInserted {
            let state = object._$state
            if state.hasColumnChanges || state.changesManyToMany { updates.append(state) }
            all.append(object)
        }
        for object in changes.deleted.values where !object._$state.isInserted {
            deletes.append(object._$state)
            all.append(object)
        }
        relationshipChanges = (inserts + changes.updated.values.map(\._$state))
            .filter { !$0.isDeleted && !$0.changedToMany.isEmpty }
    }
}

extension ObjectState {
    /// Whether a save of the object changes join-table rows: a versioned change of the object, since
    /// the rows carry no version of their own.
    var changesManyToMany: Bool {
        guard !changedToMany.isEmpty, let mapping else { return false }
        return changedToMany.keys.contains { mapping.toManyRelationships[$0].isManyToMany }
    }
}

extension ObjectState {
    /// Makes the to-many relationships that were never loaded, and changed only through inverses,
    /// faults again once a save wrote their changes: the store holds them now, and keeping them
    /// would mean remapping every new member's key (a country given 100 new moods rebuilt its sets).
    func forgetSavedPendingMembers() {
        for slot in toMany.indices {
            if case .pending = toMany[slot] { toMany[slot] = .fault }
        }
    }

    /// Replaces the temporary keys of saved objects among the object's links with their keys.
    func remapTemporaryKeys(_ newKeys: AllocatedKeys) {
        replaceTemporaryKeys(newKeys)
        guard let store = context?.store.identity else { return }
        func remap(_ id: ObjectID) -> ObjectID {
            guard id.isTemporary, let key = newKeys[id.key] else { return id }
            return ObjectID(entity: id.entity, key: key, store: store)
        }
        for slot in toMany.indices {
            if case .loaded(let members) = toMany[slot], members.contains(where: \.isTemporary) {
                toMany[slot] = .loaded(OrderedSet(members.map(remap)))
            } else if case let .pending(added, removed) = toMany[slot] {
                toMany[slot] = .pending(added: OrderedSet(added.map(remap)), removed: Set(removed.map(remap)))
            }
        }
    }
}
