import ArgumentParser
import Foundation
import MoodyModel
import ObjectGraph

@main
struct Moody: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Moods, countries and continents on an ObjectGraph store.",
        subcommands: [
            Demo.self, Add.self, List.self, Search.self, Watch.self, Delete.self, CleanUp.self, Sync.self, Share.self, Invitations.self,
            Members.self
        ],
        defaultSubcommand: Demo.self)
}

struct StoreOption: ParsableArguments {
    @Option(help: "The store file.") var store = "moody.sqlite"

    func open() throws -> ObjectContainer {
        // With the sync's entities, so that `moody sync` can sync any store.
        try ObjectContainer(schema: MoodyStore.schema(), configuration: .file(store))
    }
}

struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Walk through creating, relating, fetching and saving.")
    @OptionGroup var options: StoreOption

    @MainActor func run() async throws {
        try? FileManager.default.removeItem(atPath: options.store)
        let container = try options.open()
        let context = container.newBackgroundContext()
        print("Opened \(options.store): entities \(container.schema.entities.map(\.name).joined(separator: ", "))")

        let europe = Continent(name: "Europe")
        let france = Country(name: "France")
        let spain = Country(name: "Spain")
        for object in [france, spain] { context.insert(object) }
        context.insert(europe)
        france.continent = europe
        spain.continent = europe
        print("Related France and Spain to Europe: Europe.countries = \(europe.countries.map(\.name).sorted())")

        let moods = [("Sunny morning", 5, france), ("Rainy commute", 2, france), ("Tapas night", 4, spain)]
        for (text, rating, country) in moods {
            context.insert(Mood(text: text, rating: rating, country: country))
        }
        print("Inserted \(context.insertedObjects.count) objects; IDs are temporary until saved.")
        try context.save()
        print("Saved. France now has ID \(france.objectID.uriRepresentation)")

        let reader = container.newBackgroundContext()
        let request = FetchDescriptor<Mood>(
            predicate: #Predicate { $0.rating > 3 && $0.markedForDeletionDate == nil },
            sortBy: [SortDescriptor(\.rating, order: .reverse)])
        print("Fetched in a second context, rating > 3, best first:")
        for mood in try reader.fetch(request) {
            print("  \(mood.rating)★ \(mood.text) (\(mood.country?.name ?? "?"), \(mood.country?.continent?.name ?? "?"))")
        }

        let inFrance = try reader.fetchCount(FetchDescriptor<Mood>(predicate: #Predicate { $0.country?.name == "France" }))
        print("Moods in France, counted by SQL: \(inFrance)")
        let averages = try reader.aggregate(.average(\Mood.rating), groupedBy: \.country?.name)
        print(
            "Average rating by country, computed by SQL: "
                + averages.sorted { ($0.key ?? "") < ($1.key ?? "") }
                .map { "\($0.key ?? "none") \($0.value.map { String(format: "%.1f", $0) } ?? "-")" }.joined(separator: ", "))

        let byCountry = FetchDescriptor<Mood>(
            sortBy: [SortDescriptor(\.country?.name), SortDescriptor(\.text)],
            fetchBatchSize: 2)
        print("Sorted by country, then text, loaded two at a time:")
        for mood in try reader.fetch(byCountry) {
            print("  \(mood.country?.name ?? "?"): \(mood.text)")
        }

        // IDs travel as JSON (to another process, say) and come back to fetch the same objects.
        let json = try JSONEncoder().encode(
            try reader.fetchIdentifiers(
                FetchDescriptor<Mood>(
                    predicate: #Predicate { $0.rating >= 4 })))
        let ids = try JSONDecoder().decode([ObjectID].self, from: json)
        let picked = try reader.fetch(
            FetchDescriptor<Mood>(
                predicate: #Predicate { ids.contains($0.objectID) },
                sortBy: [SortDescriptor(\.text)]))
        print("Fetched by \(ids.count) IDs decoded from JSON: \(picked.map(\.text))")

        // Mood texts are `.searchable`: the full-text index finds words by their beginning, accents
        // and case aside, ranked, with the matching words marked, unsaved moods included.
        reader.insert(
            Mood(text: "Sunset over the Seine", rating: 5, country: try reader.existingObject(with: france.objectID, as: Country.self)))
        print("Searched the moods for \"sun\" (one unsaved), best first:")
        for result in try reader.search(Mood.self, matching: "sun") {
            print("  \(result.snippet) (\(result.object.isInserted ? "unsaved" : "saved"))")
        }
        try reader.save()

        let rainy = try reader.fetch(FetchDescriptor<Mood>(predicate: #Predicate { $0.text.starts(with: "Rainy") }))[0]
        rainy.rating = 3
        print("Changed '\(rainy.text)': changed keys \(rainy.changedPersistentKeys.sorted())")
        try reader.save()
        print("Saved the change; the row is now at version \(rainy.objectVersion)")

        let duplicate = Country(name: "France")
        reader.insert(duplicate)
        do {
            try reader.save()
        } catch {
            print("A second France is refused: \(error)")
            reader.rollback()
        }
        // The model's rules (`@Attribute(.length(1...))`, `.range(1...5)`) are checked at save.
        reader.insert(Mood(text: "", rating: 9))
        do {
            try reader.save()
        } catch {
            print("An empty mood rated 9 is refused: \(error)")
            reader.rollback()
        }
        print(
            "Done: \(try reader.fetchCount(FetchDescriptor<Mood>())) moods in \(try reader.fetchCount(FetchDescriptor<Country>())) countries."
        )
        try DeleteRulesDemo.run()
        try InheritanceDemo.run()
        try await DetailViewDemo.run()
        try EditSheetDemo.run()
        try TwoStepDeletionDemo.run()
        try await ListMonitorDemo.run()
    }
}

struct Add: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Record a mood.")
    @OptionGroup var options: StoreOption
    @Argument(help: "What the mood is.") var text: String
    @Option(help: "From 1 to 5.") var rating = 3
    @Option(help: "The country it was felt in.") var country: String?

    func run() throws {
        let context = try options.open().newBackgroundContext()
        let mood = Mood(text: text, rating: rating)
        context.insert(mood)
        if let country {
            let existing = try context.fetch(FetchDescriptor<Country>(predicate: #Predicate { $0.name == country })).first
            mood.country = existing ?? Country(name: country)
        }
        try context.save()
        print("Added \(mood.objectID.uriRepresentation)")
    }
}

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List moods, newest first.")
    @OptionGroup var options: StoreOption

    func run() throws {
        let context = try options.open().newBackgroundContext()
        let moods = try context.fetch(FetchDescriptor<Mood>(sortBy: [SortDescriptor(\.date, order: .reverse)]))
        for mood in moods {
            print("\(mood.objectID.uriRepresentation)  \(mood.rating)★  \(mood.text)  \(mood.country?.name ?? "")")
        }
        if moods.isEmpty { print("No moods yet: moody add \"Happy\" --rating 5") }
    }
}

struct Search: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Find moods by the words of their text (each word as the beginning of a word), best first.")
    @OptionGroup var options: StoreOption
    @Argument(help: "The words to look for.") var words: [String]
    @Option(help: "Only moods with at least this rating.") var rating = 1

    func run() throws {
        let context = try options.open().newBackgroundContext()
        let results = try context.search(
            Mood.self, matching: words.joined(separator: " "), where: #Predicate { $0.rating >= rating }, limit: 20)
        for result in results {
            print("\(result.object.objectID.uriRepresentation)  \(result.object.rating)★  \(result.snippet)")
        }
        if results.isEmpty { print("No mood matches \(words.joined(separator: " ").debugDescription).") }
    }
}

struct Delete: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Mark a mood for deletion by the ID that list prints (clean-up deletes it later).")
    @OptionGroup var options: StoreOption
    @Argument(help: "The mood's ID.") var id: String

    func run() throws {
        let container = try options.open()
        let context = container.newBackgroundContext()
        let mood = try context.existingObject(with: container.objectID(forURIRepresentation: id), as: Mood.self)
        let country = mood.country
        mood.markForLocalDeletion()
        try context.save()
        print(
            "Marked '\(mood.text)' for deletion; it is hidden now"
                + (country?.isMarkedForDeletion == true ? ", and so is \(country?.name ?? "its country"), now empty" : "")
                + ". `moody clean-up` deletes it for good.")
    }
}

struct CleanUp: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clean-up", abstract: "Delete for good what was marked for deletion long enough ago.")
    @OptionGroup var options: StoreOption
    @Option(help: "How many seconds a mark must be old.") var delay: Double = 120

    func run() throws {
        let context = try options.open().newBackgroundContext()
        context.name = "moody clean-up"
        let deleted = try context.deleteMarkedObjects(markedBefore: Date(timeIntervalSinceNow: -delay))
        let counts = Dictionary(grouping: deleted, by: \.entityName).mapValues(\.count)
        print(
            deleted.isEmpty
                ? "Nothing marked before the last \(Int(delay)) seconds."
                : "Deleted " + counts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", "))
    }
}
