extension Sequence<ObjectState> {
    /// The states grouped by entity, each group in the states' order, the groups in the order their
    /// entities first appear. Saves, fault loads and deletion passes work an entity at a time over
    /// thousands of states of a few entities: a linear search among the groups costs a comparison
    /// or two per state, where `Dictionary(grouping:)` hashed each one with SipHash (and ordered the
    /// groups differently in every process).
    @inlinable package func groupedByEntity() -> [[ObjectState]] {
        var entities: [EntityDeclaration] = []
        var groups: [[ObjectState]] = []
        for state in self {
            let entity = state.entity
            if let index = entities.firstIndex(where: { $0 === entity }) {
                groups[index].append(state)
            } else {
                entities.append(entity)
                groups.append([state])
            }
        }
        return groups
    }
}
