public import Foundation
public import ObjectGraph

/// A mood a user recorded: the running example of the documentation and the demo.
@Entity public final class Mood: DelayedDeletable {
    /// What the user wrote; never empty. Kept in the full-text index: `moody search sunny` finds it.
    @Attribute(.length(1...), .searchable) public var text: String
    /// From one to five stars.
    @Attribute(.range(1...5)) public var rating: Int = 3
    public var date: Date
    /// Set once the backend accepted the mood (sync).
    @Attribute(.unique, .preserveValueOnDeletion) public var remoteIdentifier: String?
    /// Two-step deletion: set when the user deletes the mood, the row goes later.
    public var markedForDeletionDate: Date?
    @Relationship(inverse: \Country.moods) public var country: Country?

    public init(text: String, rating: Int = 3, date: Date = Date(), country: Country? = nil) {
        self.text = text
        self.rating = rating
        self.date = date
        self.country = country
    }

    /// Two-step deletion's version of the rule below, by hand: a mood being marked
    /// that was its country's last visible one marks the country too.
    public func willSave() {
        guard changedForDelayedDeletion, let country, let date = markedForDeletionDate else { return }
        if country.count(of: \.moods) == 0 { country.markForLocalDeletion(at: date) }
    }

    /// A custom rule: the last remaining mood of a country takes the country with it.
    public func prepareForDeletion() {
        // A country already being deleted (a cascade from its continent) needs no check; counting
        // its moods that stay does not make an object for each.
        guard let country, !country.isDeleted else { return }
        if country.count(of: \.moods) == 0 {
            objectContext?.delete(country)
        }
    }
}
