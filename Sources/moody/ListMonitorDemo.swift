import Foundation
import MoodyModel
import ObjectGraph

/// The part of `moody demo` that shows a live list: a list of moods in sections by country, kept by a
/// list monitor on the view context, and a background context (a sync, say) that inserts, edits,
/// renames a country and deletes. Each change the monitor reports is printed; nothing is re-fetched.
enum ListMonitorDemo {
    @MainActor static func run() async throws {
        print("\nA live list of moods by country, changed by a background context:")
        let container = try ObjectContainer(for: Mood.self, configuration: .inMemory)
        let viewContext = container.viewContext
        let france = Country(name: "France")
        let spain = Country(name: "Spain")
        for (text, rating, country) in [("Croissant", 4, france), ("Rainy commute", 2, france), ("Tapas", 5, spain)] {
            viewContext.insert(Mood(text: text, rating: rating, country: country))
        }
        // Deleted in two steps, so hidden from the list: the view context lets it go.
        let snow = Mood(text: "Snow day", rating: 3, country: spain)
        snow.markedForDeletionDate = Date()
        viewContext.insert(snow)
        try viewContext.save()
        let screen = MoodListScreen(try MoodListScreen.monitor(in: viewContext), style: .changes)
        screen.draw(clearsScreen: false, footer: [])
        let detail = try viewContext.fetch(FetchDescriptor<Mood>(predicate: #Predicate { $0.text == "Tapas" }))[0]
        let detailMonitor = viewContext.monitorObject(detail, includingChangesOf: [.through(\.country)])
        let detailScreen = DetailScreen()
        detailMonitor?.addObserver(detailScreen)

        let steps: [(String, @Sendable (ObjectContext) throws -> Void)] = [
            (
                "inserts 'Beach' in Spain",
                { sync in
                    let spain = try sync.fetch(FetchDescriptor<Country>(predicate: #Predicate { $0.name == "Spain" }))[0]
                    sync.insert(Mood(text: "Beach", rating: 5, country: spain))
                }
            ),
            (
                "restores 'Snow day', marked for deletion, which the view context does not hold (it enters the list)",
                { sync in
                    try sync.fetch(
                        FetchDescriptor<Mood>(
                            predicate: #Predicate { $0.text == "Snow day" },
                            includesMarkedForDeletion: true))[0].markedForDeletionDate = nil
                }
            ),
            (
                "renames 'Rainy commute' to 'Commute in the rain' (a sort key: a move)",
                { sync in
                    try sync.fetch(FetchDescriptor<Mood>(predicate: #Predicate { $0.text == "Rainy commute" }))[0].text =
                        "Commute in the rain"
                }
            ),
            (
                "rates 'Croissant' 5 (not a sort key: an update)",
                { sync in
                    try sync.fetch(FetchDescriptor<Mood>(predicate: #Predicate { $0.text == "Croissant" }))[0].rating = 5
                }
            ),
            (
                "renames Spain to 'Andorra' (a related object: its moods move, section and all)",
                { sync in
                    try sync.fetch(FetchDescriptor<Country>(predicate: #Predicate { $0.name == "Spain" }))[0].name = "Andorra"
                }
            ),
            (
                "deletes the French moods (the last one takes France with it)",
                { sync in
                    for mood in try sync.fetch(FetchDescriptor<Mood>(predicate: #Predicate { $0.country?.name == "France" })) {
                        sync.delete(mood)
                    }
                }
            )
        ]
        for (description, change) in steps {
            print("  sync \(description); the view context merges it, the monitor reports:")
            let merged = viewContext.objectsDidChangeNotifications
            try await container.performBackgroundTask { sync in
                try change(sync)
                try sync.save()
            }
            for await _ in merged { break }  // merged on the main actor, by the view context itself
        }
        screen.draw(clearsScreen: false, footer: [])
        print("  the screen was drawn \(screen.redraws) times and fetched once, when it opened")
        withExtendedLifetime(detailMonitor) {}
    }

    /// A detail screen for one mood that also shows its country: its monitor reports the country's
    /// changes as the mood's.
    @MainActor private final class DetailScreen: @MainActor ObjectMonitorObserver {
        func objectMonitor(_ monitor: ObjectMonitor<Mood>, didUpdateObject object: Mood, changedPersistentKeys: Set<String>) {
            print("    detail screen of '\(object.text)': \(changedPersistentKeys.sorted().joined(separator: ", ")) changed, redrawn")
        }
    }
}
