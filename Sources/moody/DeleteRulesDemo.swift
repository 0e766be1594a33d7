import MoodyModel
import ObjectGraph

/// The part of `moody demo` that shows each delete rule on Europe / France / Spain, in a store in
/// memory so that the user's file keeps only moods.
enum DeleteRulesDemo {
    static func run() throws {
        print("\nDelete rules, on Europe, France and Spain (a store in memory):")
        let container = try ObjectContainer(
            for: Mood.self, CascadingContinent.self, DenyingContinent.self, LooseContinent.self, configuration: .inMemory)
        try nullify(container)
        try cascade(container)
        try deny(container)
        try noAction(container)
        try customRules(container)
    }

    private static func list<T: Entity>(_ objects: some Sequence<T>, _ name: (T) -> String) -> String {
        "[" + objects.map(name).sorted().joined(separator: ", ") + "]"
    }

    /// Nullify (the default): the country goes, its continent stays without it.
    private static func nullify(_ container: ObjectContainer) throws {
        let context = container.newBackgroundContext()
        let europe = Continent(name: "Europe")
        let france = Country(name: "France", continent: europe)
        context.insert(france)
        context.insert(Country(name: "Spain", continent: europe))
        try context.save()
        print("  nullify:   Europe → \(list(europe.countries, \.name)); delete France")
        context.delete(france)
        try context.save()
        print("             Europe → \(list(europe.countries, \.name)), Europe deleted: \(europe.isDeleted)")
    }

    /// Cascade: the continent takes its countries, and they take their cities.
    private static func cascade(_ container: ObjectContainer) throws {
        let context = container.newBackgroundContext()
        let europe = CascadingContinent(name: "Europe")
        let france = CascadingCountry(name: "France", continent: europe)
        let spain = CascadingCountry(name: "Spain", continent: europe)
        for (city, country) in [("Paris", france), ("Lyon", france), ("Madrid", spain)] {
            context.insert(CascadingCity(name: city, country: country))
        }
        try context.save()
        let graph = europe.countries.map { "\($0.name) \(list($0.cities, \.name))" }.sorted().joined(separator: ", ")
        print("  cascade:   Europe → [\(graph)]; delete Europe")
        context.delete(europe)
        print("             deleted at once: \(context.deletedObjects.count) objects")
        try context.save()
        let reader = container.newBackgroundContext()
        print(
            "             saved; the store holds \(try reader.fetchCount(FetchDescriptor<CascadingCountry>())) countries, "
                + "\(try reader.fetchCount(FetchDescriptor<CascadingCity>())) cities")
    }

    /// Deny: the continent cannot go while it has countries.
    private static func deny(_ container: ObjectContainer) throws {
        let context = container.newBackgroundContext()
        let europe = DenyingContinent(name: "Europe")
        let countries = ["France", "Spain"].map { DeniedCountry(name: $0, continent: europe) }
        for country in countries { context.insert(country) }
        try context.save()
        print("  deny:      Europe → \(list(europe.countries, \.name)); delete Europe and save")
        context.delete(europe)
        do {
            try context.save()
        } catch {
            print("             refused: \(error)")
        }
        for country in countries { context.delete(country) }
        try context.save()
        print("             France and Spain deleted first, then Europe: saved")
    }

    /// No action: the countries keep pointing to the deleted continent.
    private static func noAction(_ container: ObjectContainer) throws {
        let context = container.newBackgroundContext()
        let europe = LooseContinent(name: "Europe")
        let france = LooseCountry(name: "France", continent: europe)
        context.insert(france)
        try context.save()
        print("  no action: Europe → \(list(europe.countries, \.name)); delete Europe and save")
        context.delete(europe)
        try context.save()
        let reader = container.newBackgroundContext()
        let stored = try reader.fetch(FetchDescriptor<LooseCountry>())[0]
        let dangling = stored.continent
        let name = dangling?.name ?? "?"  // reading it finds the row gone
        print(
            "             France.continent still names Europe's row: it reads as deleted "
                + "(\(dangling?.isDeleted ?? false)), name \"\(name)\"")
    }

    /// Moody's custom rules, in `prepareForDeletion()`.
    private static func customRules(_ container: ObjectContainer) throws {
        let context = container.newBackgroundContext()
        let asia = Continent(name: "Asia")
        let japan = Country(name: "Japan", continent: asia)
        let mood = Mood(text: "Sakura", rating: 5, country: japan)
        context.insert(mood)
        try context.save()
        print("  custom:    Asia → [Japan], Japan → [Sakura]; delete the mood")
        context.delete(mood)
        print("             Japan deleted: \(japan.isDeleted), Asia deleted: \(asia.isDeleted) (last of each)")
        try context.save()
    }
}
