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
        /// The keys of the rows that name each owner of a one-to-many relationship in the store,
        /// read for counts (see ``ObjectContext/countUnloadedMembers(of:slot:property:)``): the
        /// members as saved, which this context's changes then correct.
        var storedMembers: [StoredMembersKey: [Int64]] = [:]
        /// The objects deleted in the pass, wave by wave, whose to-one relationships point to the
        /// owners a rule may count: the first count asked of one of a relationship's owners reads
        /// the members of those of every object deleted since, in one read (a rule such as
        /// Moody's counts the country of each deleted mood). Gathered only when a count is asked: a
        /// cascade counts nothing.
        var deletedWaves: [[ObjectState]] = []
        /// By one-to-many relationship, how many of `deletedWaves` its owners were gathered from.
        var wavesGathered: [ObjectIdentifier: Int] = [:]

        /// Whether any to-many value or count is kept, which a change must then forget.
        var keepsMembers: Bool { !toManyValues.isEmpty || !memberCounts.isEmpty }
    }

    /// One owner of one one-to-many relationship, whose members the store holds.
    struct StoredMembersKey: Hashable {
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

    /// Forgets every member count kept: an object was deleted or undeleted, which any relationship
    /// holding it counts.
    func forgetMemberCounts() {
        guard !memory.memberCounts.isEmpty else { return }
        memory.memberCounts = [:]
    }

    /// Forgets the members read from the store: the context's view of the store changed.
    func forgetStoredMembers() {
        memory.storedMembers = [:]
    }

    /// Forgets every to-many value and count kept: an object's mark changed, or the store's marks
    /// are to be read again, and relationships hide marked objects.
    func forgetAllCachedMembers() {
        guard memory.keepsMembers else { return }
        memory.toManyValues = [:]
        memory.memberCounts = [:]
    }
}
