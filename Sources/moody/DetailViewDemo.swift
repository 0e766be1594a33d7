import MoodyModel
import ObjectGraph

/// The part of `moody demo` that plays seeds 000 and 001: a detail view observes its mood, and a
/// background context (a sync, say) deletes that mood.
enum DetailViewDemo {
    /// A stand-in for a detail screen: it shows one mood and closes when the mood goes.
    private final class DetailView {
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

    static func run() throws {
        print("\nA detail view and a background deletion (a store in memory):")
        let container = try ObjectContainer(for: Mood.self, configuration: .inMemory)
        let viewContext = container.newBackgroundContext()
        let mood = Mood(text: "Picnic", rating: 5, country: Country(name: "Italy"))
        viewContext.insert(mood)
        try viewContext.save()
        let detail = DetailView(showing: mood)

        let sync = container.newBackgroundContext()
        sync.name = "sync"
        var saves: [DidSave] = []
        let token = sync.observeDidSave { saves.append($0) }
        let copy = try sync.existingObject(with: mood.objectID, as: Mood.self)
        copy.text = "Picnic in the park"
        try sync.save()
        print("  sync: renamed the mood and saved (transaction \(saves.last?.sequence ?? 0))")
        if let save = saves.last { viewContext.mergeChanges(from: save) }

        sync.delete(copy)
        try sync.save()
        print("  sync: deleted the mood and saved (transaction \(saves.last?.sequence ?? 0))")
        if let save = saves.last { viewContext.mergeChanges(from: save) }
        print("  detail view open: \(detail.isOpen); the mood reads as deleted: \(mood.isDeleted)")
        withExtendedLifetime(token) {}
    }
}
