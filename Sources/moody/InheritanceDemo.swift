import Foundation
import ObjectGraph

// Entity inheritance, for the demo: a journal's moments, some of them on the road, one of those a
// business trip. One table holds them all; a fetch of `Moment` returns each as its own class.

/// A moment worth remembering: the root of a hierarchy (not final).
@Entity class Moment {
    var text: String
    var stars: Int = 3
    var journal: Journal?
    init(text: String, stars: Int = 3) {
        self.text = text
        self.stars = stars
    }
}

/// A moment on the road.
@Entity class TravelMoment: Moment {
    var city: String
    init(text: String, stars: Int = 3, city: String) {
        self.city = city
        super.init(text: text, stars: stars)
    }
}

/// A moment on the road, for work: three levels down.
@Entity final class BusinessMoment: TravelMoment {
    var client: String
    init(text: String, city: String, client: String) {
        self.client = client
        super.init(text: text, stars: 2, city: city)
    }
}

/// A journal, whose moments are of every class.
@Entity final class Journal {
    var title: String
    @Relationship(deleteRule: .cascade, inverse: \Moment.journal) var moments: [Moment] = []
    init(title: String) { self.title = title }
}

/// The part of `moody demo` that shows entity inheritance, in a store in memory.
enum InheritanceDemo {
    static func run() throws {
        print("\nEntity inheritance: moments, travel moments and business moments (a store in memory):")
        let container = try ObjectContainer(
            for: Journal.self, Moment.self, TravelMoment.self, BusinessMoment.self, configuration: .inMemory)
        let context = container.newBackgroundContext()
        let journal = Journal(title: "2026")
        context.insert(journal)
        journal.moments = [
            Moment(text: "First snow", stars: 5), TravelMoment(text: "Night train", stars: 4, city: "Vienna"),
            BusinessMoment(text: "Pitch", city: "Lyon", client: "ACME")
        ]
        try context.save()

        let reader = container.newBackgroundContext()
        let moments = try reader.fetch(FetchDescriptor<Moment>(sortBy: [SortDescriptor(\.text)]))
        print("  fetched as Moment, each of its own class: " + moments.map { "\($0.text) (\(type(of: $0)))" }.joined(separator: ", "))
        let onTheRoad = try reader.fetch(FetchDescriptor<TravelMoment>()).map { "\($0.text) in \($0.city)" }.sorted()
        print("  fetched as TravelMoment: \(onTheRoad.joined(separator: ", "))")
        let forWork = try reader.fetch(
            FetchDescriptor<Moment>(predicate: #Predicate { $0 is BusinessMoment || (($0 as? TravelMoment)?.city ?? "") == "Vienna" }))
        print("  where $0 is BusinessMoment or ($0 as? TravelMoment)?.city == \"Vienna\", by SQL: \(forWork.map(\.text).sorted())")
        guard let readJournal = try reader.fetch(FetchDescriptor<Journal>()).first else { return }
        print("  the journal's moments, through its relationship: " + readJournal.moments.map { "\(type(of: $0))" }.joined(separator: ", "))
    }
}
