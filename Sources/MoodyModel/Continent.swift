public import ObjectGraph

/// A continent, grouping countries.
@Entity public final class Continent {
    @Attribute(.unique) public var name: String
    public var countries: Set<Country> = []

    public init(name: String) {
        self.name = name
    }
}
