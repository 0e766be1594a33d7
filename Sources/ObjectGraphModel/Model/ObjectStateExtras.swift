public import Foundation

/// The parts of an ``ObjectState`` that an object fetched and only read never has: its global ID
/// until asked for, its committed values until a first change, its to-many changes, the
/// relationships of an object not inserted yet, and values that could not be encoded.
///
/// Kept apart from the state's header, and made at the first need, so that a fetched object pays one
/// pointer for all of them instead of a field each: 100,000 fetched objects held 48 bytes each of
/// empty fields.
///
/// Its fields are not checked for exclusive access at run time, like the state's header (see
/// ``ObjectState``): the extras are reached only through their state, from its context's isolation
/// (checked in debug builds by ``ExclusiveUse``), and no access to one field starts while another
/// is being modified. The checks cost more than an insertion's own bookkeeping.
@usableFromInline package final class ObjectStateExtras {
    @exclusivity(unchecked) package var globalID: UUID?
    /// The values as last read or saved of the positions written since, in position order; nil
    /// until one of them is written (see ``ObjectState/committedValues``).
    @exclusivity(unchecked) @usableFromInline package var committed: [CommittedValue]?
    @exclusivity(unchecked) @usableFromInline package var changedToMany: [Int: MemberChanges] = [:]
    @exclusivity(unchecked) package var detachedRelatives = DetachedRelatives()
    /// Attributes whose last assigned value could not be encoded, by property index, with the
    /// encoder's error (see ``ObjectState/unstorableValues``).
    @exclusivity(unchecked) package var unstorableValues: [Int: String]?
    /// In a child context, what the object was when it came from the parent (see ``ParentBaseline``).
    @exclusivity(unchecked) @usableFromInline package var parentBaseline: ParentBaseline?
    /// For a fault, the value positions a partial fetch read (see
    /// `FetchDescriptor.propertiesToFetch`): reads of them are answered without loading the row.
    @exclusivity(unchecked) package var partiallyLoaded: Set<Int>?

    @usableFromInline package init(globalID: UUID? = nil) {
        self.globalID = globalID
    }

    /// Whether every part is empty: the state may drop it.
    @usableFromInline package var isEmpty: Bool {
        globalID == nil && committed == nil && changedToMany.isEmpty && detachedRelatives.isEmpty
            && unstorableValues == nil && parentBaseline == nil && partiallyLoaded == nil
    }
}

/// A value as last read or saved, kept when its position is first written since (see
/// ``ObjectState/committedValues``).
@usableFromInline package struct CommittedValue {
    /// The position in the row layout.
    @usableFromInline package let position: Int
    @usableFromInline package var value: StoredValue

    @inlinable package init(position: Int, value: StoredValue) {
        self.position = position
        self.value = value
    }
}

extension [CommittedValue] {
    /// Adds the committed value of `position`, in position order, unless one is kept already.
    /// Few entries: the positions written since the last save.
    @inlinable package mutating func keep(_ value: @autoclosure () -> StoredValue, at position: Int) {
        var index = endIndex
        while index > startIndex, self[index - 1].position >= position {
            if self[index - 1].position == position { return }
            index -= 1
        }
        insert(CommittedValue(position: position, value: value()), at: index)
    }
}

/// What an object of a child context was when it came from its parent (when the child was made,
/// when a refresh read it from the parent again, or at the child's last save): the base the
/// child's own changes are measured from, so that its save gives the parent those changes only,
/// property by property and member by member, and leaves what the parent changed meanwhile.
@usableFromInline package struct ParentBaseline {
    /// The values; nil when the object was a fault.
    package var values: ContiguousArray<StoredValue>?
    /// The to-many changes since the store.
    package var changedToMany: [Int: MemberChanges]
    /// The to-many relationships, for the order of ordered ones.
    package var toMany: ContiguousArray<ToManyValue>
    package var isDeleted: Bool

    /// What `state` is now.
    package init(_ state: ObjectState) {
        values = state.isFault ? nil : state.values
        changedToMany = state.changedToMany
        toMany = state.toMany
        isDeleted = state.isDeleted
    }
}
