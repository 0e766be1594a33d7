public import ObjectGraph

/// A country moods were recorded in.
@Entity public final class Country {
    @Attribute(.unique) public var name: String
    /// Deleting a country deletes its moods.
    @Relationship(deleteRule: .cascade) public var moods: Set<Mood> = []
    @Relationship(inverse: \Continent.countries) public var continent: Continent?

    public init(name: String, continent: Continent? = nil) {
        self.name = name
        self.continent = continent
    }

    /// The seeds' custom rule: the last remaining country of a continent takes the continent with it.
    public func prepareForDeletion() {
        guard let continent, !continent.isDeleted else { return }
        if continent.count(of: \.countries) == 0 {
            objectContext?.delete(continent)
        }
    }
}
