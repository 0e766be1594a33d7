import Algorithms
import ObjectGraphModel
import ObjectGraphStore

/// One run of the delete rules over a context's pending deletions, and over every object they
/// delete in turn.
///
/// Deletions propagate in waves: every object deleted since the last wave gets its row loaded (one
/// query per entity and chunk of keys, not one per object), its `prepareForDeletion()` called, the
/// members of its to-many relationships loaded (again set-wise), and its delete rules applied, which
/// may delete more objects for the next wave. A cascade through 100,000 objects is a few dozen
/// queries. Each object's rules run once however many paths reach it, and a cycle of cascades ends
/// when it comes back to an object already deleted.
///
/// The other side of a deleted object's to-one relationship (the moods of a deleted mood's
/// country) is not read: nullifying records the removal on the country's relationship, loaded or
/// not, and rules that count several countries' moods read their keys from the store in one read,
/// corrected for the context's changes (``ObjectContext/countUnloadedMembers(of:slot:property:)``).
///
/// The pass reads and changes the context's objects through the context; what it owns is its
/// ``Memory``. The context knows the pass under way (``ObjectContext/deletionPass``), so that what
/// its objects read during the pass is kept there.
final class DeletionPass {
    /// Unretained: a pass runs within a call on its context, which holds it meanwhile.
    unowned(unsafe) let context: ObjectContext
    /// What the pass keeps at hand while it runs (see `DeletionPass+Memory.swift`).
    var memory = Memory()

    init(context: ObjectContext) {
        self.context = context
    }

    /// Runs the rules of every pending deletion, and of the objects they delete; objects whose rules
    /// cannot read what they need wait in ``ChangeTracker/rulesAwaitingRetry``.
    func run() {
        // Objects whose rules could not read what they needed last time try again, without being
        // prepared for deletion a second time.
        var retried = context.changes.rulesAwaitingRetry.map(\.object)
        guard !context.changes.pendingDeletions.isEmpty || !retried.isEmpty else { return }
        context.processing.isRunning = true
        context.deletionPass = self
        defer {
            context.processing.isRunning = false
            context.deletionPass = nil
        }
        context.changes.rulesAwaitingRetry = []
        while !context.changes.pendingDeletions.isEmpty || !retried.isEmpty {
            let wave = context.changes.pendingDeletions
            context.changes.pendingDeletions = []
            let states = (wave + retried).map(\._$state)
            context.loadFaults(states)
            memory.deletedWaves.append(states)
            for object in wave { object.prepareForDeletion() }
            loadMembersForDeleteRules(of: states)
            for object in wave + retried {
                do {
                    try applyDeleteRules(to: object._$state)
                    // Never saved, its rules run: nothing of it is left to save (as when an undo
                    // deletes it; an undo brings it back). A child keeps an object its parent
                    // inserted: the deletion is a change for the parent.
                    let state = object._$state
                    if state.isInserted, context.parent?.registry.state(for: state.id) == nil { context.changes.forget(object) }
                } catch let failure as ObjectGraphError {
                    context.changes.rulesAwaitingRetry.append((object, failure))
                } catch {
                    context.changes.rulesAwaitingRetry.append((object, .store(StoreError(error))))
                }
            }
            retried = []
        }
    }

    // MARK: Delete rules

    /// Applies each relationship's delete rule to a deleted object. Throws, having applied at most
    /// some of them, when the object or the members a rule needs cannot be read; applying them again
    /// later completes the work (a nullified or cascaded object is not touched twice).
    private func applyDeleteRules(to state: ObjectState) throws {
        guard let mapping = state.mapping else { return }
        try context.loadFault(state)
        for (slot, rule) in mapping.toOneDeleteRules.enumerated() where rule.touchesRelatedObjects {
            guard let id = state.relatedID(at: slot), let related = context.object(with: id) else { continue }
            try apply(rule, of: state, to: related, through: mapping.toOneRelationships[slot])
        }
        for (slot, rule) in mapping.toManyDeleteRules.enumerated() where rule.touchesRelatedObjects {
            for id in try context.loadedMembers(of: state, slot: slot) {
                guard let related = context.object(with: id) else { continue }
                try apply(rule, of: state, to: related, through: mapping.toManyRelationships[slot])
            }
        }
    }

    private func apply(
        _ rule: DeleteRule, of state: ObjectState, to related: any Entity,
        through relationship: @autoclosure () -> RelationshipMapping
    ) throws {
        // A deleted object's own links are left as they are: they go with its row, and `rollback()`
        // finds them intact. Only objects that stay are unlinked.
        guard !related._$state.isDeleted else { return }
        switch rule {
        case .nullify:
            let relationship = relationship()
            // A to-one pointing back is a column of the related row, which must be read to be cleared.
            if !relationship.inverseIsToMany { try context.loadFault(related._$state) }
            context.removeInverse(of: state, relationship: relationship, from: related._$state)
        case .cascade:
            context.deleteObject(related)
        case .deny, .noAction:
            break  // deny is checked at save, where the count of related objects is final
        }
    }

    // MARK: Loading set-wise

    /// The owners of the one-to-many `relationship` that the objects deleted since the last call
    /// for it point to through its inverse (the country of each deleted mood), which a rule may
    /// count: the first count then asks the store for all of them in one read. Owners deleted
    /// already are left out: a rule rarely counts them.
    func countableOwners(of relationship: RelationshipMapping) -> Set<Int64> {
        let id = ObjectIdentifier(relationship)
        let first = memory.wavesGathered[id] ?? 0
        memory.wavesGathered[id] = memory.deletedWaves.count
        var owners = Set<Int64>()
        for wave in memory.deletedWaves[first...] {
            for group in wave.groupedByEntity() {
                guard let mapping = group.first?.mapping else { continue }
                for (slot, toOne) in mapping.toOneRelationships.enumerated() where toOne.inverseIsToMany {
                    guard context.store.mappings[toOne.destination].toManyRelationships[toOne.inverseSlot] === relationship else {
                        continue
                    }
                    let destination = mapping.toOneDestinations[slot]
                    for state in group {
                        guard let key = state.relatedKey(at: slot), key >= 0,
                            !context.isDeletedHere(ObjectID(entity: destination, key: key, store: context.store.identity))
                        else { continue }
                        owners.insert(key)
                    }
                }
            }
        }
        return owners
    }

    /// Loads the members of the to-many relationships whose delete rule needs them, for every state of
    /// `states` that has not loaded them yet, a chunk of owners per query.
    private func loadMembersForDeleteRules(of states: [ObjectState]) {
        for group in states.groupedByEntity() {
            guard let mapping = group.first?.mapping else { continue }
            for (slot, rule) in mapping.toManyDeleteRules.enumerated() where rule.touchesRelatedObjects {
                let owners = group.filter { !$0.id.isTemporary && $0.toMany[slot].needsLoading }
                guard owners.count > 1 else { continue }  // one owner loads on demand as cheaply
                preload { try context.loadMembers(of: owners, slot: slot, relationship: mapping.toManyRelationships[slot]) }
            }
        }
    }

    /// Runs a set-wise load made ahead of the rules. Its failure is no failure of the pass: what it
    /// left unloaded is read again, one object at a time, where it is needed, and a failure there
    /// keeps the deletion pending (see ``applyDeleteRules(to:)``).
    private func preload(_ load: () throws -> Void) {
        do { try load() } catch {}
    }
}

extension DeleteRule {
    /// Whether applying the rule changes or deletes related objects.
    var touchesRelatedObjects: Bool {
        self == .nullify || self == .cascade
    }
}
