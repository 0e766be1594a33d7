public import Foundation

/// An entity deleted in two steps: first marked (``markForLocalDeletion(at:)``), which hides it from
/// fetches and relationship reads at once, then deleted for real, in bulk, once every context had time
/// to let go of it (``batchDeleteMarkedObjects(in:markedBefore:)``).
///
/// Deleting an object another context still holds as a fault is what makes deletion hard (see
/// <doc:DeletingObjects>); a marked object's row stays until the delay has passed, so every context
/// can still read it. The entity declares the attribute as a stored optional date:
///
/// ```swift
/// @Entity final class Mood: DelayedDeletable {
///     var text: String
///     var markedForDeletionDate: Date?
/// }
///
/// mood.markForLocalDeletion()
/// try context.save()                                   // hidden from every fetch from now on
/// try Mood.batchDeleteMarkedObjects(in: context)       // later: rows marked over two minutes ago go
/// ```
///
/// Delete rules do not run when an object is marked: an entity keeps its graph consistent by hand
/// in `willSave()`, testing ``changedForDelayedDeletion``, or sets ``propagatesDeleteRulesWhenMarked``
/// to have its rules applied to the marks (see <doc:TwoStepDeletion>).
public protocol DelayedDeletable: Entity {
    /// When the object was marked for deletion; nil while it is not.
    var markedForDeletionDate: Date? { get set }

    /// Whether marking an object applies its delete rules to the marks: a cascade marks the related
    /// objects that are themselves ``DelayedDeletable`` (others go when the batch deletion runs), a
    /// deny makes the save fail while related objects are left, and a nullify needs nothing, since
    /// relationship reads already leave marked objects out. False unless the entity says otherwise.
    static var propagatesDeleteRulesWhenMarked: Bool { get }
}

/// The property's name, as the store knows it.
package enum DelayedDeletableKey {
    package static let markedForDeletionDate = "markedForDeletionDate"
}

/// What an object of a ``DelayedDeletable`` entity says of its mark, from its own state.
extension DelayedDeletable {
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
}
