import Foundation
import ObjectGraph

// The benchmark's model: Moody's model as the benchmark's numbers were first measured with it
// (issue 31 onward), kept here rather than imported, so that the demo app's model can grow (its
// moods' text became searchable in issue 48) without moving every ratio to the raw side, which
// does exactly this work and no more. The same entity names, attributes, rules and delete rules.

/// A mood a user recorded.
@Entity final class Mood: DelayedDeletable {
    @Attribute(.length(1...)) var text: String
    @Attribute(.range(1...5)) var rating: Int = 3
    var date: Date
    @Attribute(.unique, .preserveValueOnDeletion) var remoteIdentifier: String?
    var markedForDeletionDate: Date?
    @Relationship(inverse: \Country.moods) var country: Country?

    init(text: String, rating: Int = 3, date: Date = Date(), country: Country? = nil) {
        self.text = text
        self.rating = rating
        self.date = date
        self.country = country
    }

    /// A mood being marked that was its country's last visible one marks the country too.
    func willSave() {
        guard changedForDelayedDeletion, let country, let date = markedForDeletionDate else { return }
        if country.count(of: \.moods) == 0 { country.markForLocalDeletion(at: date) }
    }

    /// The last remaining mood of a country takes the country with it.
    func prepareForDeletion() {
        guard let country, !country.isDeleted else { return }
        if country.count(of: \.moods) == 0 { objectContext?.delete(country) }
    }
}

/// A country moods were recorded in.
@Entity final class Country: DelayedDeletable {
    @Attribute(.unique) var name: String
    @Relationship(deleteRule: .cascade) var moods: Set<Mood> = []
    @Relationship(inverse: \Continent.countries) var continent: Continent?
    var markedForDeletionDate: Date?

    init(name: String, continent: Continent? = nil) {
        self.name = name
        self.continent = continent
    }

    /// The continent's last visible country being marked marks the continent too.
    func willSave() {
        guard changedForDelayedDeletion, let continent, let date = markedForDeletionDate else { return }
        if continent.count(of: \.countries) == 0 { continent.markForLocalDeletion(at: date) }
    }

    /// The last remaining country of a continent takes the continent with it.
    func prepareForDeletion() {
        guard let continent, !continent.isDeleted else { return }
        if continent.count(of: \.countries) == 0 { objectContext?.delete(continent) }
    }
}

/// A continent, grouping countries.
@Entity final class Continent: DelayedDeletable {
    @Attribute(.unique) var name: String
    @Relationship(deleteRule: .cascade) var countries: Set<Country> = []
    var markedForDeletionDate: Date?

    init(name: String) { self.name = name }
}
