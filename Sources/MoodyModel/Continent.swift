public import ObjectGraph

/// A continent, grouping countries.
@Entity public final class Continent {
    @Attribute(.unique) public var name: String
    /// Deleting a continent deletes its countries (seed 002's cascade).
    @Relationship(deleteRule: .cascade) public var countries: Set<Country> = []

    public init(name: String) {
        self.name = name
    }
}
