import ObjectGraphModel
import ObjectGraphStore

/// Applying what the merge policy decided, once the save committed.
extension ObjectContext {
    /// Gives resolved objects what the store decided, once the save committed, and records them for
    /// the next ``ObjectsDidChange``: refreshed with the properties that took the store's value, or
    /// deleted.
    func applyResolutions(_ resolutions: [SaveTransaction.ConflictResolution]) {
        for resolution in resolutions {
            let state = resolution.state
            guard let object = state.object else { continue }
            if resolution.isDeletedInStore {
                markDeletedElsewhere(state, object)
                continue
            }
            guard !resolution.storeValues.isEmpty else {
                state.version = resolution.version  // its values were written as they are
                continue
            }
            var values = state.values
            for (position, value) in resolution.storeValues { values[position] = value }
            let relinked = resolution.storeValues.map(\.position).filter { $0 >= state.entity.layout.attributeCount }
            forgetInverseMembersAfterConflict(of: state, at: relinked)
            state.load(values, version: resolution.version)
            forgetInverseMembersAfterConflict(of: state, at: relinked)
            recordRefresh(of: state, object, keys: resolution.keysFromStore)
        }
    }

    /// Turns back into faults the to-many relationships that list (or should list) an object through
    /// the to-one relationships at these positions, unless changed here: the store's link replaced
    /// this context's one, and the members are read again when next used.
    private func forgetInverseMembersAfterConflict(of state: ObjectState, at positions: [Int]) {
        guard let mapping = state.mapping else { return }
        let attributeCount = state.entity.layout.attributeCount
        for position in positions {
            let relationship = mapping.toOneRelationships[position - attributeCount]
            guard relationship.inverseIsToMany, let id = state.relatedID(at: position - attributeCount),
                let related = registry.state(for: id),
                related.changedToMany[relationship.inverseSlot] == nil
            else { continue }
            related.toMany[relationship.inverseSlot] = .fault
            deletionPass?.forgetCachedMembers(of: related)
        }
    }
}
