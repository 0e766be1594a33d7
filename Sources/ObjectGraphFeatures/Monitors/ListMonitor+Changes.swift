import Foundation
import ObjectGraphContext
import ObjectGraphModel

/// Following the context's changes: which objects an ``ObjectsDidChange`` makes leave the list or
/// enter it. Where they go, and what that did, is the ``SectionedList``'s to say.
extension ListMonitor {

    func process(_ change: ObjectsDidChange) {
        if change.invalidatedAllObjects {
            do { try reloadAsAWhole() } catch { lastError = error }
            return
        }
        var seen = Set<ObjectIdentifier>()
        var candidates: [Object] = []
        func consider(_ entity: any Entity) {
            guard let object = entity as? Object, seen.insert(ObjectIdentifier(object)).inserted else { return }
            candidates.append(object)
        }
        for object in change.insertedObjects { consider(object) }
        for update in change.updatedObjects { consider(update.object) }
        for update in change.refreshedObjects { consider(update.object) }
        for object in change.deletedObjects { consider(object) }
        for object in change.invalidatedObjects { consider(object) }
        // Rows updated elsewhere that the context holds no object for (none is in the list, which
        // holds its objects) may belong in it now: those whose changes the request reads.
        for case let object as Object in unheldObjects(of: Object._$entity, in: change.unheldUpdates).map(\.object) {
            consider(object)
        }
        if reads.followsRelationships {
            do {
                // Objects whose related objects changed what the request reads of them, the related
                // objects being held or not.
                var changed =
                    [change.updatedObjects, change.refreshedObjects].joined().map { ($0.object, $0.changedKeys) }
                    + change.deletedObjects.map { ($0, Set<String>()) }
                if !change.unheldUpdates.isEmpty {
                    for entity in reads.followedDestinations {
                        changed += unheldObjects(of: entity, in: change.unheldUpdates)
                    }
                }
                for case let object as Object in try context.objects(
                    readingChangesOf: changed, reads: reads, root: Object._$entity)
                { consider(object) }
            } catch {
                lastError = error
            }
        }
        guard !candidates.isEmpty else { return }
        let invalidated = Set(change.invalidatedObjects.map { ObjectIdentifier($0) })
        // Objects merged in as faults are read set-wise, not one query each.
        context.loadFaults(candidates.map(\._$state).filter { $0.isFault && !$0.isDeleted })

        // A window (fetchLimit) depends on objects outside it too: a fetch says what is in it now.
        var window: Set<ObjectIdentifier>?
        if request.fetchLimit != nil {
            do {
                let inWindow = try fetchAll()
                window = Set(inWindow.lazy.map { ObjectIdentifier($0) })
                for object in inWindow { consider(object) }
                for object in shown.objects.all { consider(unsafeDowncast(object, to: Object.self)) }
            } catch {
                lastError = error
                return
            }
        }

        holdRelatedObjects(of: candidates)
        var leaving: [Object] = []
        var entering: [Object] = []
        for object in candidates {
            let isIn = shown.contains(object)
            let belongs =
                !invalidated.contains(ObjectIdentifier(object)) && matches(object)
                && window?.contains(ObjectIdentifier(object)) != false
            if isIn { leaving.append(object) }
            if belongs { entering.append(object) }
        }
        guard !leaving.isEmpty || !entering.isEmpty else { return }
        post(shown.apply(leaving: leaving, entering: entering))
    }

    /// The rows of `entity` updated elsewhere and held by no object of the context whose changed
    /// properties the request reads, as faults made together (loaded set-wise by the caller), with
    /// their changed keys. A save of rows the request does not read costs a look at each ID, no
    /// query.
    private func unheldObjects(of entity: EntityDeclaration, in updates: UnheldUpdates) -> [(object: any Entity, changedKeys: Set<String>)]
    {
        // Decided once per set of changed properties: the rows of a save mostly share one.
        var decided: (keys: Set<String>, isAffected: Bool)?
        let rows = updates.rows(of: entity).filter { row in
            if let decided, decided.keys == row.changedKeys { return decided.isAffected }
            let isAffected = reads.isAffected(by: row.changedKeys, of: entity)
            decided = (row.changedKeys, isAffected)
            return isAffected
        }
        guard !rows.isEmpty else { return [] }
        let keys = Dictionary(rows.map { ($0.id, $0.changedKeys) }, uniquingKeysWith: { $0.union($1) })
        return context.objects(with: Array(keys.keys), of: entity).compactMap { object in
            keys[object.objectID].map { (object, $0) }
        }
    }

    /// Keeps alive, and loads set-wise, the objects that `objects` reach through the to-one
    /// relationships the request follows, and those they reach in turn.
    func holdRelatedObjects(of objects: [AnyObject]) {
        guard reads.followsRelationships else { return }
        var frontier: [(entity: EntityDeclaration, states: [ObjectState])] = [
            (Object._$entity, objects.map { unsafeDowncast($0, to: Object.self)._$state })
        ]
        while let (entity, states) = frontier.popLast() {
            for followed in reads.followedToOne(from: entity) {
                guard case .toOne(let slot) = entity.layout.slots[followed.propertyIndex] else { continue }
                var ids = Set<ObjectID>()
                for state in states where !state.isFault { if let id = state.relatedID(at: slot) { ids.insert(id) } }
                let destination = followed.destination
                var reached: [ObjectState] = []
                for related in context.objects(with: Array(ids), of: destination)
                where heldRelated.updateValue(related, forKey: ObjectIdentifier(related)) == nil {
                    reached.append(related._$state)
                }
                guard !reached.isEmpty else { continue }
                context.loadFaults(reached)
                frontier.append((destination, reached))
            }
        }
    }

    private func matches(_ object: Object) -> Bool {
        let state = object._$state
        guard !state.isDeleted, state.context === context else { return false }
        // A fault whose row is gone (deleted elsewhere, reached through a relationship) is no object.
        do {
            try context.loadFault(state)
        } catch {
            lastError = error
            return false
        }
        guard !state.isDeleted, !state.isInaccessible else { return false }
        if !request.includesMarkedForDeletion, let deletable = object as? any DelayedDeletable,
            deletable.markedForDeletionDate != nil
        {
            return false
        }
        guard let predicate else { return true }
        do {
            return try predicate.evaluate(object)
        } catch {
            lastError = error
            return false
        }
    }
}
