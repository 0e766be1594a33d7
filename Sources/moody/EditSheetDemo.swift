import Foundation
import MoodyModel
import ObjectGraph

/// The part of `moody demo` with an edit sheet: edits are made in a child context (a scratchpad),
/// cancelled or saved into the view context, and the view context's undo manager takes a saved
/// sheet back, deleted mood included.
enum EditSheetDemo {
    @MainActor static func run() throws {
        print("\nAn edit sheet, and undo (a store in memory):")
        let container = try ObjectContainer(for: Mood.self, configuration: .inMemory)
        let viewContext = container.viewContext
        let italy = Country(name: "Italy")
        let picnic = Mood(text: "Picnic", rating: 5, country: italy)
        let rain = Mood(text: "Rain", rating: 2, country: italy)
        viewContext.insert(picnic)
        viewContext.insert(rain)
        try viewContext.save()
        let undoManager = ObjectUndoManager()
        viewContext.undoManager = undoManager
        func show() throws {
            let moods = try viewContext.fetch(FetchDescriptor<Mood>(sortBy: [SortDescriptor(\.text)]))
            print("  view: " + moods.map { "\($0.text) \($0.rating)★" }.joined(separator: ", "))
        }
        try show()

        var sheet: ObjectContext? = viewContext.newChildContext()
        if let draft = try sheet?.existingObject(with: picnic.objectID, as: Mood.self) {
            draft.text = "Picnic, then thunder"
            draft.rating = 1
        }
        print("  sheet: edits 'Picnic', then Cancel")
        sheet = nil
        try show()

        let editor = viewContext.newChildContext()
        let draft = try editor.existingObject(with: picnic.objectID, as: Mood.self)
        draft.rating = 4
        editor.delete(try editor.existingObject(with: rain.objectID, as: Mood.self))
        print("  sheet: rates 'Picnic' 4★, deletes 'Rain', then Done (saved into the view context)")
        try editor.save()
        undoManager.setActionName("Edit Moods")
        try viewContext.save()
        try show()

        print("  Undo \(undoManager.undoActionName), after the save:")
        undoManager.undo()
        try viewContext.save()
        try show()
    }
}
