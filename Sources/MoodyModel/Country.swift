public import Foundation
public import ObjectGraph

/// A country moods were recorded in.
@Entity public final class Country: DelayedDeletable {
    @Attribute(.unique) public var name: String
    /// Deleting a country deletes its moods.
    @Relationship(deleteRule: .cascade) public var moods: Set<Mood> = []
    @Relationship(inverse: \Continent.countries) public var continent: Continent?
    /// Two-step deletion: set when its last mood is marked.
    public var markedForDeletionDate: Date?

    public init(name: String, continent: Continent? = nil) {
        self.name = name
        self.continent = continent
    }

    /// Marking leaves the continent: the continent's last visible country being marked
    /// marks the continent too.
    public func willSave() {
        guard changedForDelayedDeletion, let continent, let date = markedForDeletionDate else { return }
        if continent.count(of: \.countries) == 0 { continent.markForLocalDeletion(at: date) }
    }

    /// A custom rule: the last remaining country of a continent takes the continent with it.
    public func prepareForDeletion() {
        guard let continent, !continent.isDeleted else { return }
        if continent.count(of: \.countries) == 0 {
            objectContext?.delete(continent)
        }
    }
}
