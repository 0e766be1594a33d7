public import Foundation
public import ObjectGraphContext
public import ObjectGraphModel

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
        for related in cascadeTargets(of: object._$state) { mark(related, date: date) }
    }

    private func mark(_ object: AnyObject, date: Date) {
        guard let deletable = object as? any DelayedDeletable else { return }
        deletable.markForLocalDeletion(at: date)
    }
}
