import ObjectGraphModel

extension DeletionPass {
    /// What a pass keeps at hand while it runs, dropped with the pass. The faults its context makes
    /// meanwhile, whoever asks for them, join `keptObjects`.
    struct Memory {
        /// The objects made for related rows during the pass: rules and `prepareForDeletion()` of
        /// many deleted objects often look at the same related objects, which would otherwise be
        /// loaded again each time.
        var keptObjects: [any Entity] = []
        /// To-many values read, by state and property index (see ``ObjectState/cachedMembers(at:)``).
        var toManyValues: [StateKey: [Int: Any]] = [:]
        /// Live member counts read, by state and to-many slot (see
        /// ``ObjectState/liveMemberCount(of:)``): a rule such as Moody's counts a country's moods
        /// once for each of its deleted moods, and counting tests every member.
        var memberCounts: [MemberSlot: Int] = [:]
        /// The store's member counts read, by one-to-many relationship and owner, before this
        /// context's changes correct them (see ``ObjectContext/countUnloadedMembers(of:slot:property:)``):
        /// the store does not change while the pass runs, though the objects it deletes do.
        var storedMemberCounts: [StoredCountKey: Int] = [:]
        /// The objects deleted in the pass, wave by wave, whose to-one relationships point to the
        /// owners a rule may count: the first count asked of one of a relationship's owners counts
        /// those of every object deleted since, in one read (a rule such as Moody's counts the
        /// country of each deleted mood). Gathered only when a count is asked: a cascade counts
        /// nothing.
        var deletedWaves: [[ObjectState]] = []
        /// By one-to-many relationship, how many of `deletedWaves` its owners were gathered from.
        var wavesGathered: [ObjectIdentifier: Int] = [:]
        /// By one-to-many relationship, the objects of its destination (by mapping index) this
        /// context deleted or marked, under the owner their row names in the store.
        var hiddenMembers: [ObjectIdentifier: (destination: Int, byOwner: [Int64: [Int64]])] = [:]

        /// Whether any to-many value or count is kept, which a change must then forget.
        var keepsMembers: Bool { !toManyValues.isEmpty || !memberCounts.isEmpty || !hiddenMembers.isEmpty }
    }

    /// One owner of one one-to-many relationship, as the store counts its members.
    struct StoredCountKey: Hashable {
        let relationship: ObjectIdentifier
        let owner: Int64
    }

    /// One to-many relationship of one object, as a key hashed by one multiplication: kept for
    /// every owner a pass counts, where a dictionary per owner would cost an allocation each.
    struct MemberSlot: Hashable {
        let state: StateKey
        let slot: Int

        func _rawHashValue(seed: Int) -> Int {
            CheapHash.identity(state.identifier, seed: seed ^ slot)
        }
    }
}

/// The pass keeps what its rules read of to-many relationships, and forgets it when they change.
extension DeletionPass {
    /// The to-many value a deletion pass under way read for this object's property `index`.
    func cachedMembers(of state: ObjectState, index: Int) -> Any? {
        memory.toManyValues[StateKey(state)]?[index]
    }

    /// Keeps a to-many value read, while a deletion pass runs.
    func cacheMembers(_ members: Any, of state: ObjectState, index: Int) {
        memory.toManyValues[StateKey(state), default: [:]][index] = members
    }

    /// The live member count of this object's to-many `slot` a deletion pass under way read.
    func cachedMemberCount(of state: ObjectState, slot: Int) -> Int? {
        memory.memberCounts[MemberSlot(state: StateKey(state), slot: slot)]
    }

    /// Keeps a live member count read, while a deletion pass runs.
    func cacheMemberCount(_ count: Int, of state: ObjectState, slot: Int) {
        memory.memberCounts[MemberSlot(state: StateKey(state), slot: slot)] = count
    }

    /// Forgets the to-many values and counts kept for an object whose relationships changed.
    func forgetCachedMembers(of state: ObjectState) {
        guard memory.keepsMembers else { return }
        let key = StateKey(state)
        memory.toManyValues[key] = nil
        guard !memory.memberCounts.isEmpty else { return }
        for slot in state.entity.layout.toManyProperties.indices {
            memory.memberCounts[MemberSlot(state: key, slot: slot)] = nil
        }
    }

    /// Forgets every member count kept: an object of the entity of mapping `index` was deleted or
    /// undeleted, which any relationship holding it counts. What was gathered of the deleted
    /// objects of other entities stays: Moody's rule deletes a country for each country whose
    /// last mood goes, and the moods deleted need not be gathered again each time.
    func forgetMemberCounts(deletedObjectOf index: Int) {
        if !memory.memberCounts.isEmpty { memory.memberCounts = [:] }
        if !memory.hiddenMembers.isEmpty { memory.hiddenMembers = memory.hiddenMembers.filter { $0.value.destination != index } }
    }

    /// Forgets the store's member counts read: the context's view of the store changed.
    func forgetStoredMemberCounts() {
        memory.storedMemberCounts = [:]
    }

    /// Forgets every to-many value and count kept: an object's mark changed, or the store's marks
    /// are to be read again, and relationships hide marked objects.
    func forgetAllCachedMembers() {
        guard memory.keepsMembers else { return }
        memory.toManyValues = [:]
        memory.memberCounts = [:]
        memory.hiddenMembers = [:]
    }
}
