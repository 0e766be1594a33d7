import Foundation
import ObjectGraph

// The seeds' Europe / France / Spain graph once per delete rule, as the tests' fixtures (the moody
// demo has its own). A rule belongs to a relationship, so each rule has its own entities.

/// A continent whose deletion deletes its countries, which delete their cities.
@Entity final class CascadingContinent {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \CascadingCountry.continent) var countries: Set<CascadingCountry> = []
    init(name: String) { self.name = name }
}

@Entity final class CascadingCountry {
    var name: String
    var continent: CascadingContinent?
    @Relationship(deleteRule: .cascade, inverse: \CascadingCity.country) var cities: Set<CascadingCity> = []
    /// How many times `prepareForDeletion()` ran: once per deletion, however the deletion came.
    @Transient var timesPreparedForDeletion = 0
    init(name: String, continent: CascadingContinent? = nil) {
        self.name = name
        self.continent = continent
    }
    func prepareForDeletion() { timesPreparedForDeletion += 1 }
}

@Entity final class CascadingCity {
    var name: String
    var country: CascadingCountry?
    init(name: String, country: CascadingCountry? = nil) {
        self.name = name
        self.country = country
    }
}

/// A continent that cannot be deleted while it has countries.
@Entity final class DenyingContinent {
    var name: String
    @Relationship(deleteRule: .deny, inverse: \DeniedCountry.continent) var countries: Set<DeniedCountry> = []
    init(name: String) { self.name = name }
}

@Entity final class DeniedCountry {
    var name: String
    var continent: DenyingContinent?
    init(name: String, continent: DenyingContinent? = nil) {
        self.name = name
        self.continent = continent
    }
}

/// A continent whose deletion leaves its countries pointing at it.
@Entity final class LooseContinent {
    var name: String
    @Relationship(deleteRule: .noAction, inverse: \LooseCountry.continent) var countries: Set<LooseCountry> = []
    init(name: String) { self.name = name }
}

@Entity final class LooseCountry {
    var name: String
    @Relationship(deleteRule: .noAction) var continent: LooseContinent?
    init(name: String, continent: LooseContinent? = nil) {
        self.name = name
        self.continent = continent
    }
}

/// A team whose players count their teammates when deleted, as Moody's moods count their country's,
/// and between two counts may delete, mark or sign another player: each count is recorded, to check
/// that counts read during one deletion pass follow the changes made in it.
@Entity final class CountedTeam {
    var name: String
    @Relationship(inverse: \CountingPlayer.team) var players: Set<CountingPlayer> = []
    init(name: String) { self.name = name }
}

@Entity final class CountingPlayer: DelayedDeletable {
    var name: String
    var team: CountedTeam?
    var markedForDeletionDate: Date?
    /// What `team.count(of: \.players)` read in `prepareForDeletion()`, in order.
    @Transient var countsSeen: [Int] = []
    /// The player this one's `prepareForDeletion()` deletes between its two counts.
    @Transient var deletes: CountingPlayer?
    /// The player it marks for deletion (hidden from the team from then on).
    @Transient var marks: CountingPlayer?
    /// The player it adds to the team.
    @Transient var signs: CountingPlayer?

    init(name: String, team: CountedTeam? = nil) {
        self.name = name
        self.team = team
    }

    func prepareForDeletion() {
        guard let team else { return }
        countsSeen.append(team.count(of: \.players))
        if let deletes { objectContext?.delete(deletes) }
        if let marks { marks.markForLocalDeletion() }
        if let signs { signs.team = team }
        countsSeen.append(team.count(of: \.players))
    }
}
