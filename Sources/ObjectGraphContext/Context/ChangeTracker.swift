import ObjectGraphModel

/// A context's unit of work: the objects changed since the last save, the deletions whose rules are
/// still to run, the problems the next save must report, and the changes not yet posted in
/// ``ObjectsDidChange``.
///
/// One value, owned by its context, so that ending a unit of work (a save that committed, a rollback,
/// a reset) is one call, ``clear()``, and cannot forget a field. The changed properties of each
/// object are its state's (`ObjectState.committedValues` against its values); the tracker says
/// which objects to look at.
struct ChangeTracker {
    /// Objects inserted since the last save, retained until saved or rolled back. Keyed by state
    /// identity, which unlike the ID does not change at save.
    var inserted: StateMap<any Entity> = [:]
    /// Saved objects changed since the last save (some of them deleted since).
    var updated: StateMap<any Entity> = [:]
    /// Objects deleted since the last save.
    var deleted: StateMap<any Entity> = [:]
    /// Deleted objects whose delete rules have not run yet.
    var pendingDeletions: [any Entity] = []
    /// Deleted objects whose delete rules could not read what they needed; retried at every pass,
    /// and a save fails while any is left.
    var rulesAwaitingRetry: [(object: any Entity, failure: ObjectGraphError)] = []
    /// The keys of objects whose mark for deletion was set or cleared since the last save, by
    /// mapping index: for these, the object's own value counts, not the store's.
    var unsavedMarks: [Int: Set<Int64>] = [:]
    /// Problems found outside a throwing call (such as inserting an object of an unknown entity),
    /// reported by the next save.
    var deferredErrors: [ObjectGraphError] = []
    /// Changes not posted yet in ``ObjectsDidChange``. They outlive the unit of work: a save's
    /// resolved conflicts, or what a rollback did, are posted after it ends.
    var unposted = PendingObjectsChange()
    /// Whether anything changed since the last save: what tells a child context's changes from
    /// those it holds as its parent does (see ``ObjectContext/newChildContext()``). Kept by the
    /// context's saves, not by ``clear()``.
    var hasChangesSinceSave = false

    /// Whether anything is left to save: changed objects, or deletions whose rules are to run.
    var hasChanges: Bool {
        !inserted.isEmpty || !updated.isEmpty || !deleted.isEmpty || !pendingDeletions.isEmpty
    }

    /// Every object the unit of work holds, inserted ones first (an object can be in two lists).
    /// A view of the three lists as they are now, not a copy of their elements: a save walks it
    /// several times. Changing the tracker while walking it leaves the walk's lists as they were.
    var changedObjects: FlattenSequence<[[any Entity]]> {
        [inserted.values, updated.values, deleted.values].joined()
    }

    /// Ends the unit of work, after its save committed or when its changes are taken back: every
    /// list is emptied except the changes not posted yet, which the caller posts.
    mutating func clear() {
        let unposted = unposted
        self = ChangeTracker()
        self.unposted = unposted
    }

    /// Records an object's insertion, to be saved and posted.
    mutating func recordInsertion(of object: any Entity, key: StateKey) {
        inserted[key] = object
        unposted.inserted[key] = object
    }

    /// Records the insertion of an object that was never in this context (so in none of its
    /// lists), without looking it up.
    mutating func recordInsertion(ofNew object: any Entity, key: StateKey) {
        inserted.appendNew(key, object)
        unposted.inserted.appendNew(key, object)
    }

    /// Records an object's deletion: saved as such, its rules run at the next pass, and posted as
    /// deleted unless its insertion was not posted yet (then it was never there for observers).
    mutating func recordDeletion(of object: any Entity, key: StateKey) {
        deleted[key] = object
        if unposted.inserted.removeValue(forKey: key) == nil {
            unposted.deleted[key] = object
        }
        pendingDeletions.append(object)
    }

    /// Takes an object out of the unit of work: one inserted and deleted since the last save, whose
    /// delete rules ran, has nothing to save.
    mutating func forget(_ object: any Entity) {
        let key = StateKey(object._$state)
        inserted[key] = nil
        updated[key] = nil
        deleted[key] = nil
    }

    /// Takes the changes to post, leaving none.
    mutating func takeUnposted() -> PendingObjectsChange {
        let change = unposted
        unposted = PendingObjectsChange()
        return change
    }

    /// Takes the first problem recorded outside a throwing call, if any.
    mutating func takeDeferredError() -> ObjectGraphError? {
        deferredErrors.isEmpty ? nil : deferredErrors.removeFirst()
    }
}
