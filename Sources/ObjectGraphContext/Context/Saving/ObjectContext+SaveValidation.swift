import ObjectGraphModel
import ObjectGraphStore

/// A save's validation: every failure found, before anything is written.
extension ObjectContext {
    /// Checks required values, unstorable values, links to deleted objects, relationship counts,
    /// deny rules (of deleted objects, and of objects being marked for deletion) and the objects'
    /// own `validateFor…` hooks; throws every failure found, causes first.
    func validateForSave() throws {
        var failures: [ValidationFailure] = []
        // Making the ID of each to-one to look it up cost an update of one attribute about 400
        // instructions an object; only deletions here can make such a link.
        let checksLinksToDeleted = registry.mayHoldDeletedObjects
        for object in changes.changedObjects {
            let state = object._$state
            guard let mapping = state.mapping else { continue }
            func fail(_ property: String?, _ reason: ValidationFailure.Reason) {
                failures.append(ValidationFailure(entity: mapping.name, objectID: state.id, property: property, reason: reason))
            }
            if state.isDeleted {
                guard !state.isInserted else { continue }
                for (slot, relationship) in mapping.toManyRelationships.enumerated()
                where relationship.description.deleteRule == .deny {
                    let remaining = try loadedMembers(of: state, slot: slot).filter { !isDeletedHere($0) }.count
                    if remaining > 0 { fail(relationship.name, .deleteDenied(count: remaining)) }
                }
                for (slot, relationship) in mapping.toOneRelationships.enumerated()
                where relationship.description.deleteRule == .deny {
                    if let id = state.relatedID(at: slot), !isDeletedHere(id) { fail(relationship.name, .deleteDenied(count: 1)) }
                }
                do { try object.validateForDelete() } catch { fail(nil, .custom("\(error)")) }
                continue
            }
            if state.isFault { continue }
            if mapping.propagatesDeleteRulesWhenMarked, let deletable = object as? any DelayedDeletable,
                deletable.changedForDelayedDeletion
            {
                // The deny rules of an object being marked, as its deletion would meet them later.
                for (slot, relationship) in mapping.toManyRelationships.enumerated() where relationship.description.deleteRule == .deny {
                    let members = unmarked(
                        try loadedMembers(of: state, slot: slot), destination: mapping.toManyDestinations[slot],
                        owner: state, property: relationship.name)
                    let remaining = members.count { !isDeletedHere($0) }
                    if remaining > 0 { fail(relationship.name, .deleteDenied(count: remaining)) }
                }
                for (slot, relationship) in mapping.toOneRelationships.enumerated() where relationship.description.deleteRule == .deny {
                    if let id = state.relatedID(at: slot), !isDeletedHere(id),
                        !isHiddenAsMarked(id, owner: state, property: relationship.name)
                    {
                        fail(relationship.name, .deleteDenied(count: 1))
                    }
                }
            }
            // A value that could not be encoded was not written: named as such, not as missing.
            let unstorable = state.unstorableValues
            if !unstorable.isEmpty {
                for (index, reason) in unstorable.sorted(by: { $0.key < $1.key }) {
                    fail(state.entity.propertyNames[index], .unstorableValue(reason: reason))
                }
            }
            for slot in mapping.requiredAttributeSlots
            where state.value(atPosition: slot).isNull
                && (unstorable.isEmpty || unstorable[state.entity.layout.attributeProperties[slot]] == nil)
            {
                fail(mapping.attributeColumns[slot], .missingValue)
            }
            // A plain loop: `fail` captured by a closure would cost every object dynamic
            // exclusivity checks on `failures`.
            let rules = mapping.ruleChecks
            for index in rules.checks.indices {
                let slot = rules.checks[index].slot
                let value = state.value(atPosition: slot)
                if !rules.isFollowed(check: index, by: value) {
                    fail(mapping.description.attributes[slot].name, .violatesRule(rules.rule(ofCheck: index), value: value))
                }
            }
            // A link to an object deleted here would outlive its row. The loops go by slot and read
            // a relationship only where it is checked: enumerating them retained and released each
            // relationship of every object saved.
            for slot in mapping.toOneRelationships.indices where checksLinksToDeleted {
                if let id = state.relatedID(at: slot), isDeletedHere(id) {
                    fail(mapping.toOneRelationships[slot].name, .relatedObjectDeleted(id))
                }
            }
            for slot in mapping.toManyRelationships.indices where state.isInserted || state.changedToMany[slot] != nil {
                let description = mapping.toManyRelationships[slot].description
                guard description.minimumCount != nil || description.maximumCount != nil else { continue }
                let count = try loadedMembers(of: state, slot: slot).filter { !isDeletedHere($0) }.count
                if let minimum = description.minimumCount, count < minimum {
                    fail(description.name, .tooFewObjects(count: count, minimum: minimum))
                }
                if let maximum = description.maximumCount, count > maximum {
                    fail(description.name, .tooManyObjects(count: count, maximum: maximum))
                }
            }
            do {
                if state.isInserted { try object.validateForInsert() } else { try object.validateForUpdate() }
            } catch {
                fail(nil, .custom("\(error)"))
            }
        }
        failures += checkSaveRules()
        if !failures.isEmpty { throw ObjectGraphError.validationFailed(causesFirst(failures)) }
    }

    /// The refusals of the container's save rules, which see the save as proposed.
    private func checkSaveRules() -> [ValidationFailure] {
        guard let rules = saveRules, rules.isObserved else { return [] }
        let proposal = ProposedSave(
            context: self,
            insertedObjects: changes.inserted.values.filter { !$0._$state.isDeleted },
            updatedObjects: Array(updatedObjects),
            deletedObjects: changes.deleted.values.filter { !$0._$state.isInserted })
        rules.post(proposal)
        return proposal.refusals
    }

    /// The failures with refused deletions first, as the cause: an object of the save that still
    /// points to an object whose deletion a deny rule refused is a consequence of that deletion, not
    /// reported apart.
    private func causesFirst(_ failures: [ValidationFailure]) -> [ValidationFailure] {
        func isDenial(_ failure: ValidationFailure) -> Bool {
            if case .deleteDenied = failure.reason { true } else { false }
        }
        let denied = Set(failures.lazy.filter(isDenial).map(\.objectID))
        guard !denied.isEmpty else { return failures }
        let others = failures.filter { failure in
            if case .relatedObjectDeleted(let id) = failure.reason { return !denied.contains(id) }
            return !isDenial(failure)
        }
        return failures.filter(isDenial) + others
    }
}
