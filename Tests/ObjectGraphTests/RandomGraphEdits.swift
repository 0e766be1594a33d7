import Foundation
import MoodyModel
import ObjectGraph

/// Random edits of the moods model, for the tests that compare graphs: renames, attribute edits,
/// moves between countries, insertions, and deletions (cascades included). Names are unique, so
/// a step never breaks the countries' unique constraint, and every step changes the graph.
struct RandomGraphEdits {
    var random: SeededGenerator
    private var counter = 0

    init(seed: UInt64) {
        random = SeededGenerator(state: seed)
    }

    private mutating func newName(_ prefix: String) -> String {
        counter += 1
        return "\(prefix)\(counter)"
    }

    /// Makes one random change in `context` and describes it; nil when the step drawn could not
    /// apply (no mood to edit, say).
    mutating func step(in context: ObjectContext) throws -> String? {
        let moods = try context.fetch(FetchDescriptor<Mood>(sortBy: [SortDescriptor(\.text)])).map { $0 }
        let countries = try context.fetch(FetchDescriptor<Country>(sortBy: [SortDescriptor(\.name)])).map { $0 }
        switch Int.random(in: 0..<7, using: &random) {
        case 0:
            guard let country = countries.randomElement(using: &random) else { return nil }
            defer { country.name = newName("C") }
            return "rename \(country.name)"
        case 1:
            guard let mood = moods.randomElement(using: &random) else { return nil }
            defer {
                mood.rating = Int.random(in: 1...5, using: &random)
                mood.text = newName("m")
            }
            return "edit \(mood.text)"
        case 2:
            // Elsewhere: a move to where the mood is changes nothing.
            guard let mood = moods.randomElement(using: &random),
                let country = countries.filter({ $0 !== mood.country }).randomElement(using: &random)
            else { return nil }
            defer { mood.country = country }
            return "move \(mood.text) to \(country.name)"
        case 3:
            let country = countries.randomElement(using: &random)
            context.insert(Mood(text: newName("m"), rating: Int.random(in: 1...5, using: &random), country: country))
            return "insert a mood in \(country?.name ?? "nil")"
        case 4:
            guard let mood = moods.randomElement(using: &random) else { return nil }
            context.delete(mood)
            return "delete \(mood.text)"
        case 5:
            guard let country = countries.randomElement(using: &random) else { return nil }
            context.delete(country)
            return "delete \(country.name) and its moods"
        default:
            let continent = try context.fetch(FetchDescriptor<Continent>()).first
            context.insert(Country(name: newName("C"), continent: continent))
            return "insert a country"
        }
    }

    /// Every object a context shows, with its attributes and both sides of its relationships.
    static func graph(in context: ObjectContext) throws -> [String] {
        let moods = try context.fetch(FetchDescriptor<Mood>()).map {
            "mood \($0.text) \($0.rating) in \($0.country?.name ?? "nil")"
        }
        let countries = try context.fetch(FetchDescriptor<Country>()).map {
            "country \($0.name) of \($0.continent?.name ?? "nil"): \($0.moods.map(\.text).sorted())"
        }
        let continents = try context.fetch(FetchDescriptor<Continent>()).map {
            "continent \($0.name): \($0.countries.map(\.name).sorted())"
        }
        return (moods + countries + continents).sorted()
    }
}
