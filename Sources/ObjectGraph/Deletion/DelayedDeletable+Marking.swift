public import Foundation

extension DelayedDeletable {
    public static var propagatesDeleteRulesWhenMarked: Bool { false }

    /// Marks the object for deletion, once: an object already marked keeps its first date, so the
    /// delay counts from the first request.
    ///
    /// - Parameter date: When the object counts as marked; now by default.
    public func markForLocalDeletion(at date: Date = Date()) {
        guard markedForDeletionDate == nil else { return }
        markedForDeletionDate = date
        if Self.propagatesDeleteRulesWhenMarked { objectContext?.propagateMark(of: self, date: date) }
    }

    /// Whether the object is marked for deletion.
    public var isMarkedForDeletion: Bool { markedForDeletionDate != nil }

    /// Whether this save marks the object: true in `willSave()` when the mark is among its unsaved
    /// changes and the saved object had none. An entity propagates its own deletion by hand with it:
    ///
    /// ```swift
    /// func willSave() {
    ///     if changedForDelayedDeletion { continent = nil }   // a marked country leaves its continent
    /// }
    /// ```
    public var changedForDelayedDeletion: Bool {
        // A fault holds no unsaved value, so its mark is the saved one: no need to load it.
        guard !_$state.isFault, markedForDeletionDate != nil else { return false }
        // The saved value differs from the current one only while the change is unsaved.
        return _$state.isInserted || committedValue(forKey: DelayedDeletableKey.markedForDeletionDate) == .null
    }

    /// Matches the objects that are not marked: what fetches of the entity already apply unless
    /// ``FetchDescriptor/includesMarkedForDeletion`` is set, for predicates built by hand.
    public static var notMarkedForLocalDeletionPredicate: Predicate<Self> {
        #Predicate<Self> { $0.markedForDeletionDate == nil }
    }

    /// Deletes, as SQL, the objects of this entity marked before `cutoff`, with their delete rules
    /// applied (see ``ObjectContext/batchDelete(_:where:)``); every live context of the container
    /// learns of it.
    ///
    /// - Parameters:
    ///   - context: The context that runs the deletion; its name is the history's author.
    ///   - cutoff: Objects marked before this date go; by default two minutes ago.
    /// - Returns: The IDs of every object deleted, cascades included.
    /// - Throws: The errors of ``ObjectContext/batchDelete(_:where:)``.
    @discardableResult
    public static func batchDeleteMarkedObjects(
        in context: ObjectContext, markedBefore cutoff: Date = Date(timeIntervalSinceNow: -120)
    ) throws -> Set<ObjectID> {
        try context.batchDelete(
            Self.self,
            where: #Predicate<Self> { object in
                object.markedForDeletionDate.flatMap { $0 < cutoff } ?? false
            })
    }
}

extension ObjectContext {
    /// Applies a marked object's delete rules to the marks (see
    /// ``DelayedDeletable/propagatesDeleteRulesWhenMarked``): related objects reached by a cascade are
    /// marked with the same date, and so on through theirs. A deny rule is checked at save.
    func propagateMark(of object: some DelayedDeletable, date: Date) {
        let state = object._$state
        guard let mapping = state.mapping else { return }
        for (slot, relationship) in mapping.toManyRelationships.enumerated() where relationship.description.deleteRule == .cascade {
            for related in objects(with: members(of: state, slot: slot), of: mapping.toManyDestinations[slot]) {
                mark(related, date: date)
            }
        }
        for (slot, relationship) in mapping.toOneRelationships.enumerated() where relationship.description.deleteRule == .cascade {
            if let id = state.relatedID(at: slot), let related = self.object(with: id) { mark(related, date: date) }
        }
    }

    private func mark(_ object: AnyObject, date: Date) {
        guard let deletable = object as? any DelayedDeletable else { return }
        deletable.markForLocalDeletion(at: date)
    }
}
