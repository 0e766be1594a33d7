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
