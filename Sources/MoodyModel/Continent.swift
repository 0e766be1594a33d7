public import Foundation
public import ObjectGraph

/// A continent, grouping countries.
@Entity public final class Continent: DelayedDeletable {
    @Attribute(.unique) public var name: String
    /// Deleting a continent deletes its countries (a cascade).
    @Relationship(deleteRule: .cascade) public var countries: Set<Country> = []
    /// Two-step deletion: set when its last country is marked.
    public var markedForDeletionDate: Date?

    public init(name: String) {
        self.name = name
    }
}
