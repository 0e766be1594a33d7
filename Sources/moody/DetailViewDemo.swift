import MoodyModel
import ObjectGraph

/// The part of `moody demo` with a detail view that closes when its object goes: the view, on the
/// main actor, observes its mood, and a background sync, an actor that owns its context, renames it,
/// then deletes it. The view context merges each save by itself.
enum DetailViewDemo {
    /// A stand-in for a sync engine: its context is its own, and the compiler keeps it on the actor.
    @ObjectActor fileprivate actor Sync {
        func rename(_ id: ObjectID, to text: String) throws {
            try existingObject(with: id, as: Mood.self).text = text
            print("  sync (an actor, off the main thread): renames the mood and saves")
            try objectContext.save()
        }

        func delete(_ id: ObjectID) throws {
            objectContext.delete(try existingObject(with: id, as: Mood.self))
            print("  sync (an actor, off the main thread): deletes the mood and saves")
            try objectContext.save()
        }
    }

    /// A stand-in for a detail screen: it shows one mood and closes when the mood goes.
    @MainActor private final class DetailView {
        private(set) var isOpen = true
        private var observer: ObjectObserver<Mood>?

        init(showing mood: Mood) {
            print("  detail view: showing '\(mood.text)'")
            observer = ObjectObserver(mood) { [weak self] change in
                switch change {
                case .update(let keys):
                    print("  detail view: '\(mood.text)' changed (\(keys.sorted().joined(separator: ", "))), redrawn")
                case .delete:
                    print("  detail view: its mood was deleted, closing")
                    self?.isOpen = false
                    self?.observer = nil
                }
            }
        }
    }

    @MainActor static func run() async throws {
        print("\nA detail view and a background sync (a store in memory):")
        let container = try ObjectContainer(for: Mood.self, configuration: .inMemory)
        let viewContext = container.viewContext
        let mood = Mood(text: "Picnic", rating: 5, country: Country(name: "Italy"))
        viewContext.insert(mood)
        try viewContext.save()
        let detail = DetailView(showing: mood)
        let id = mood.objectID

        let sync = Sync(objectContainer: container)
        let renamed = viewContext.objectsDidChangeNotifications
        try await sync.rename(id, to: "Picnic in the park")
        for await _ in renamed { break }  // the view context merged it on the main actor, by itself

        let deleted = viewContext.objectsDidChangeNotifications
        try await sync.delete(id)
        for await _ in deleted { break }
        print(
            "  detail view open: \(detail.isOpen); the mood reads as deleted: \(mood.isDeleted), "
                + "with its last text '\(mood.text)'")
    }
}
