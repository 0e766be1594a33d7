/// What happens to related objects when an object is deleted.
public enum DeleteRule: String, Sendable, Hashable, Codable {
    /// The related objects stay; their inverse relationship forgets the deleted object. The default.
    case nullify
    /// The related objects are deleted too, and their own delete rules run in turn.
    case cascade
    /// Saving fails while the relationship still holds objects.
    case deny
    /// Nothing is done: the related objects keep pointing at the deleted object.
    case noAction
}
