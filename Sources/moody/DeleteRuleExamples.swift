import ObjectGraph

// The Europe / France / Spain graph once per delete rule, for the demo. A rule
// belongs to a relationship, so each rule has its own entities: the continent's `countries` carries
// the rule shown, and the country's `continent` nullifies.

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
