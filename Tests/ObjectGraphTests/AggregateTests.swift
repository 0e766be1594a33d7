import Foundation
import MoodyModel
import ObjectGraph
import Testing

/// Aggregates computed by SQL, with a context's unsaved changes counted as fetches count them.
@Suite struct AggregateTests {
    private func saved(_ moods: [(String, Int, String?)], in container: ObjectContainer) throws {
        let context = container.newBackgroundContext()
        var countries: [String: Country] = [:]
        for (index, (text, rating, country)) in moods.enumerated() {
            let mood = Mood(text: text, rating: rating, date: Date(timeIntervalSince1970: Double(index) * 3_600))
            if let country { mood.country = countries[country] ?? Country(name: country) }
            countries[country ?? ""] = mood.country
            context.insert(mood)
        }
        try context.save()
    }

    @Test func countsSumsAveragesMinimumsAndMaximumsAreTyped() throws {
        let container = try makeContainer()
        try saved([("Calm", 4, "France"), ("Busy", 2, "France"), ("Tapas", 5, "Spain"), ("Alone", 1, nil)], in: container)
        let context = container.newBackgroundContext()
        let count: Int = try context.aggregate(.count, of: Mood.self)
        let sum: Int = try context.aggregate(.sum(\Mood.rating))
        let average: Double? = try context.aggregate(.average(\Mood.rating))
        let earliest: Date? = try context.aggregate(.minimum(\Mood.date))
        let last: String? = try context.aggregate(.maximum(\Mood.text))
        #expect(count == 4 && sum == 12 && average == 3)
        #expect(earliest == Date(timeIntervalSince1970: 0))
        #expect(last == "Tapas")
        #expect(try context.aggregate(.count(\Mood.remoteIdentifier)) == 0)  // nil values are not counted
        #expect(try context.aggregate(.maximum(\Mood.country?.name)) == "Spain")  // through a to-one
        #expect(try context.aggregate(.average(\Mood.rating), where: #Predicate { $0.rating > 1 }) == 11.0 / 3)
        #expect(try context.aggregate(.average(\Mood.rating), where: #Predicate { $0.rating > 5 }) == nil)
        #expect(try context.aggregate(.sum(\Mood.rating), where: #Predicate { $0.rating > 5 }) == 0)

        let byCountry = try context.aggregate(.average(\Mood.rating), groupedBy: \.country?.name)
        #expect(byCountry == ["France": 3, "Spain": 5, nil: 1])
        let counted = try context.aggregate(.count, groupedBy: \Mood.rating, where: #Predicate { $0.rating >= 2 })
        #expect(counted == [2: 1, 4: 1, 5: 1])
        let pairs = try context.aggregate(.count, of: Mood.self, groupedBy: \.country?.name, \.rating)
        #expect(
            pairs == [
                AggregateGroup("France", 4): 1, AggregateGroup("France", 2): 1, AggregateGroup("Spain", 5): 1, AggregateGroup(nil, 1): 1
            ])
    }

    @Test func unsavedChangesCountAsAFetchWouldSeeThem() throws {
        let container = try makeContainer()
        try saved([("Calm", 4, "France"), ("Busy", 2, "France"), ("Tapas", 5, "Spain")], in: container)
        let context = container.newBackgroundContext()
        context.insert(Mood(text: "New", rating: 1))
        let busy = try #require(try context.fetch(FetchDescriptor<Mood>(predicate: #Predicate { $0.text == "Busy" })).first)
        busy.rating = 3
        let tapas = try #require(try context.fetch(FetchDescriptor<Mood>(predicate: #Predicate { $0.text == "Tapas" })).first)
        tapas.country?.name = "España"  // a related object's change moves the mood to another group
        let calm = try #require(try context.fetch(FetchDescriptor<Mood>(predicate: #Predicate { $0.text == "Calm" })).first)
        context.delete(calm)
        #expect(try context.aggregate(.sum(\Mood.rating)) == 9)
        #expect(try context.aggregate(.sum(\Mood.rating), groupedBy: \.country?.name) == ["France": 3, "España": 5, nil: 1])
        #expect(try container.newBackgroundContext().aggregate(.sum(\Mood.rating)) == 11)  // the store as saved
    }

    @Test func anAggregateThatCannotApplyIsATypedError() throws {
        let context = try makeContainer().newBackgroundContext()
        let text = #expect(throws: ObjectGraphError.self) { try context.aggregate(.count, groupedBy: \Mood.objectGlobalID) }
        #expect(text?.code == .unsupportedPredicate && text?.entity == "Mood")
    }

    @Test(arguments: 0..<6) func sqlAndMemoryAgreeSavedOrNot(seed: UInt64) throws {
        var random = SeededGenerator(state: seed)
        let container = try makeContainer()
        let names = ["France", "Spain", "Andorra"]
        try saved(
            (0..<40).map {
                ("m\($0)", Int.random(in: 1...5, using: &random), Bool.random(using: &random) ? names.randomElement(using: &random) : nil)
            },
            in: container)
        let context = container.newBackgroundContext()
        // Unsaved changes of every kind; the context holds only the objects it changed.
        for index in 0..<8 {
            context.insert(
                Mood(text: "n\(index)", rating: Int.random(in: 1...5, using: &random), date: Date(timeIntervalSince1970: -Double(index))))
        }
        for index in (0..<40).shuffled(using: &random).prefix(14) {
            let text = "m\(index)"
            guard let mood = try context.fetch(FetchDescriptor<Mood>(predicate: #Predicate { $0.text == text })).first else { continue }
            switch Int.random(in: 0..<5, using: &random) {
            case 0: mood.rating = Int.random(in: 1...5, using: &random)
            case 1: mood.text = "z\(index)"
            case 2: context.delete(mood)
            case 3: mood.markForLocalDeletion()
            default: mood.country?.name = (mood.country?.name ?? "") + "!"
            }
        }
        func all() throws -> [Mood] { try context.fetch(FetchDescriptor<Mood>()).map { $0 } }
        let moods = try all()
        let byCountry = Dictionary(grouping: moods, by: { $0.country?.name })
        let predicate = #Predicate<Mood> { $0.rating >= 3 }

        struct Figures: Equatable {
            var count: Int, sum: Int, average: Double?, minimumText: String?, maximumDate: Date?
            var sumByCountry: [String?: Int], countByRating: [Int: Int], filteredSum: Int
            var countByCountryAndRating: [AggregateGroup<String?, Int>: Int]
        }
        func figures(_ context: ObjectContext) throws -> Figures {
            Figures(
                count: try context.aggregate(.count, of: Mood.self), sum: try context.aggregate(.sum(\Mood.rating)),
                average: try context.aggregate(.average(\Mood.rating)), minimumText: try context.aggregate(.minimum(\Mood.text)),
                maximumDate: try context.aggregate(.maximum(\Mood.date)),
                sumByCountry: try context.aggregate(.sum(\Mood.rating), groupedBy: \.country?.name),
                countByRating: try context.aggregate(.count, groupedBy: \Mood.rating),
                filteredSum: try context.aggregate(.sum(\Mood.rating), where: predicate),
                countByCountryAndRating: try context.aggregate(.count, of: Mood.self, groupedBy: \.country?.name, \.rating))
        }
        let expected = Figures(
            count: moods.count, sum: moods.map(\.rating).reduce(0, +),
            average: moods.isEmpty ? nil : Double(moods.map(\.rating).reduce(0, +)) / Double(moods.count),
            minimumText: moods.map(\.text).min { $0.utf8.lexicographicallyPrecedes($1.utf8) }, maximumDate: moods.map(\.date).max(),
            sumByCountry: byCountry.mapValues { $0.map(\.rating).reduce(0, +) },
            countByRating: Dictionary(grouping: moods, by: \.rating).mapValues(\.count),
            filteredSum: try moods.filter { try predicate.evaluate($0) }.map(\.rating).reduce(0, +),
            countByCountryAndRating: Dictionary(grouping: moods, by: { AggregateGroup($0.country?.name, $0.rating) }).mapValues(\.count))
        let unsaved = try figures(context)
        #expect(unsaved == expected, "seed \(seed), unsaved")
        try context.save()
        #expect(try figures(container.newBackgroundContext()) == expected, "seed \(seed), saved")
    }
}
