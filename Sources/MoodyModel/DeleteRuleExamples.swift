public import ObjectGraph

// The seeds' Europe / France / Spain graph once per delete rule, for the demo and the tests. A rule
// belongs to a relationship, so each rule has its own entities: the continent's `countries` carries
// the rule shown, and the country's `continent` nullifies, as in the seeds.

/// A continent whose deletion deletes its countries, which delete their cities.
@Entity public final class CascadingContinent {
    public var name: String
    @Relationship(deleteRule: .cascade, inverse: \CascadingCountry.continent) public var countries: Set<CascadingCountry> = []
    public init(name: String) { self.name = name }
}

@Entity public final class CascadingCountry {
    public var name: String
    public var continent: CascadingContinent?
    @Relationship(deleteRule: .cascade, inverse: \CascadingCity.country) public var cities: Set<CascadingCity> = []
    /// How many times `prepareForDeletion()` ran: once per deletion, however the deletion came.
    @Transient public var timesPreparedForDeletion = 0
    public init(name: String, continent: CascadingContinent? = nil) {
        self.name = name
        self.continent = continent
    }
    public func prepareForDeletion() { timesPreparedForDeletion += 1 }
}

@Entity public final class CascadingCity {
    public var name: String
    public var country: CascadingCountry?
    public init(name: String, country: CascadingCountry? = nil) {
        self.name = name
        self.country = country
    }
}

/// A continent that cannot be deleted while it has countries.
@Entity public final class DenyingContinent {
    public var name: String
    @Relationship(deleteRule: .deny, inverse: \DeniedCountry.continent) public var countries: Set<DeniedCountry> = []
    public init(name: String) { self.name = name }
}

@Entity public final class DeniedCountry {
    public var name: String
    public var continent: DenyingContinent?
    public init(name: String, continent: DenyingContinent? = nil) {
        self.name = name
        self.continent = continent
    }
}

/// A continent whose deletion leaves its countries pointing at it.
@Entity public final class LooseContinent {
    public var name: String
    @Relationship(deleteRule: .noAction, inverse: \LooseCountry.continent) public var countries: Set<LooseCountry> = []
    public init(name: String) { self.name = name }
}

@Entity public final class LooseCountry {
    public var name: String
    @Relationship(deleteRule: .noAction) public var continent: LooseContinent?
    public init(name: String, continent: LooseContinent? = nil) {
        self.name = name
        self.continent = continent
    }
}
