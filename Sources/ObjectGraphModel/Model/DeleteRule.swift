/// What happens to related objects when an object is deleted. See <doc:DeletingObjects>.
public enum DeleteRule: String, Sendable, Hashable, Codable {
    /// The related objects stay; their inverse relationship forgets the deleted object. The default.
    case nullify
    /// The related objects are deleted too, and their own delete rules run in turn.
    case cascade
    /// Saving fails while the relationship still holds objects that are not deleted; the error names
    /// the object, the relationship and the count.
    case deny
    /// Nothing is done: the related objects keep pointing at the deleted object, which reads as
    /// deleted (once saved, with default values).
    case noAction
}
