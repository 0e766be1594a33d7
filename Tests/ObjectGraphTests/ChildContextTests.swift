import Foundation
import MoodyModel
import ObjectGraph
import Testing

/// Child contexts as scratchpads: the edit-sheet flow (edit in a child, cancel or commit), fetches
/// that see the parent's unsaved changes, saves that go into the parent and reach the store only
/// with the parent's save.
@Suite struct ChildContextTests {
    private struct Scene {
        let container: ObjectContainer
        let context: ObjectContext
        let europe: Continent, france: Country, spain: Country
        let mood: Mood

        init() throws {
            container = try makeContainer()
            context = container.newBackgroundContext()
            (europe, france, spain) = try makeEurope(in: context)
            mood = Mood(text: "Sunny", rating: 4, country: france)
            context.insert(mood)
            try context.save()
        }

        /// A mood as the store has it, read by a fresh context.
        func stored(_ id: ObjectID) throws -> (text: String, rating: Int, country: String?) {
            let reader = container.newBackgroundContext()
            let mood = try reader.existingObject(with: id, as: Mood.self)
            return (mood.text, mood.rating, mood.country?.name)
        }
    }

    @Test func anEditSheetCancelledLeavesTheParentUntouched() throws {
        let scene = try Scene()
        var sheet: ObjectContext? = scene.context.newChildContext()
        let draft = try #require(try sheet?.existingObject(with: scene.mood.objectID, as: Mood.self))
        #expect(draft !== scene.mood)
        draft.text = "Rain"
        draft.country = try sheet?.existingObject(with: scene.spain.objectID, as: Country.self)
        #expect(sheet?.hasChanges == true)
        sheet = nil  // cancelled

        #expect(scene.mood.text == "Sunny" && scene.mood.country === scene.france)
        #expect(!scene.context.hasChanges)
    }

    @Test func anEditSheetCommittedChangesTheParentThenTheStore() throws {
        let scene = try Scene()
        let sheet = scene.context.newChildContext()
        let draft = try sheet.existingObject(with: scene.mood.objectID, as: Mood.self)
        draft.text = "Rain"
        draft.rating = 2
        draft.country = try sheet.existingObject(with: scene.spain.objectID, as: Country.self)
        try sheet.save()
        #expect(!sheet.hasChanges)

        // In the parent, unsaved, with both sides of the relationship.
        #expect(scene.mood.text == "Rain" && scene.mood.rating == 2)
        #expect(scene.mood.country === scene.spain)
        #expect(scene.spain.moods == [scene.mood] && scene.france.moods.isEmpty)
        #expect(scene.context.hasChanges)
        #expect(try scene.stored(scene.mood.objectID).text == "Sunny")

        try scene.context.save()
        let stored = try scene.stored(scene.mood.objectID)
        #expect(stored.text == "Rain" && stored.rating == 2 && stored.country == "Spain")
    }

    @Test func aChildSeesItsParentsUnsavedChanges() throws {
        let scene = try Scene()
        scene.mood.rating = 1
        let hail = Mood(text: "Hail", rating: 2, country: scene.spain)
        scene.context.insert(hail)
        scene.context.delete(scene.france)  // cascades to the saved mood

        let sheet = scene.context.newChildContext()
        #expect(!sheet.hasChanges)  // what it holds is its parent's
        let moods = try sheet.fetch(FetchDescriptor<Mood>(sortBy: [SortDescriptor(\.text)]))
        #expect(moods.map(\.text) == ["Hail"])
        let low = try sheet.fetchCount(FetchDescriptor<Mood>(predicate: #Predicate { $0.rating < 3 }))
        #expect(low == 1)
        let countries = try sheet.fetch(FetchDescriptor<Country>()).map(\.name)
        #expect(countries == ["Spain"])
        let spain = try sheet.existingObject(with: scene.spain.objectID, as: Country.self)
        #expect(spain.moods.map(\.text) == ["Hail"])
        let copy = try #require(moods.first)
        #expect(copy.objectID == hail.objectID && copy.country === spain)
    }

    @Test func objectsMadeInAChildAreInsertedInTheParent() throws {
        let scene = try Scene()
        let portugal = Country(name: "Portugal")
        scene.context.insert(portugal)  // unsaved in the parent

        let sheet = scene.context.newChildContext()
        let childPortugal = try #require(sheet.object(with: portugal.objectID) as? Country)
        let mood = Mood(text: "Breeze", rating: 5, country: childPortugal)
        sheet.insert(mood)
        try sheet.save()

        let inParent = try #require(scene.context.registeredObject(for: mood.objectID) as? Mood)
        #expect(inParent !== mood && inParent.text == "Breeze" && inParent.country === portugal)
        #expect(portugal.moods == [inParent])
        try scene.context.save()
        let stored = try scene.stored(inParent.objectID)
        #expect(stored.text == "Breeze" && stored.country == "Portugal")
    }

    @Test func aDeletionInAChildReachesTheParentWithItsRulesEffects() throws {
        let scene = try Scene()
        let sheet = scene.context.newChildContext()
        let france = try sheet.existingObject(with: scene.france.objectID, as: Country.self)
        sheet.delete(france)
        #expect(!scene.france.isDeleted)
        try sheet.save()
        #expect(scene.france.isDeleted && scene.mood.isDeleted)
        #expect(scene.europe.countries == [scene.spain])
        try scene.context.save()
        let reader = scene.container.newBackgroundContext()
        #expect(try reader.fetchCount(FetchDescriptor<Mood>()) == 0)
        #expect(try reader.fetch(FetchDescriptor<Country>()).map(\.name) == ["Spain"])
    }

    @Test func aChildKeepsWorkingAfterItsParentSaves() throws {
        let scene = try Scene()
        let portugal = Country(name: "Portugal")
        scene.context.insert(portugal)
        let sheet = scene.context.newChildContext()
        let childPortugal = try #require(sheet.object(with: portugal.objectID) as? Country)
        try scene.context.save()  // Portugal gets its key, in the child too
        #expect(childPortugal.objectID == portugal.objectID && !sheet.hasChanges)

        childPortugal.name = "Portugália"
        try sheet.save()
        #expect(portugal.name == "Portugália")
        try scene.context.save()
        let reader = scene.container.newBackgroundContext()
        #expect(
            try reader.fetch(FetchDescriptor<Country>(sortBy: [SortDescriptor(\.name)])).map(\.name) == ["France", "Portugália", "Spain"])
    }

    @Test func aChildsLinkToAParentsNewObjectSurvivesTheParentsSave() throws {
        let scene = try Scene()
        let portugal = Country(name: "Portugal")
        scene.context.insert(portugal)
        let sheet = scene.context.newChildContext()
        let childMood = try #require(sheet.object(with: scene.mood.objectID) as? Mood)
        let childPortugal = try #require(sheet.object(with: portugal.objectID) as? Country)
        childMood.country = childPortugal  // a saved mood moved to a country the parent has not saved
        try scene.context.save()  // Portugal gets its key; the child's move is still unsaved

        #expect(sheet.hasChanges && childMood.hasChanges)
        #expect(childMood.country?.objectID == portugal.objectID)
        try sheet.save()
        #expect(scene.mood.country === portugal)
        try scene.context.save()
        #expect(try scene.stored(scene.mood.objectID).country == "Portugal")
    }

    @Test func theParentsMonitorsAndUndoManagerSeeAChildsSave() throws {
        let scene = try Scene()
        let undoManager = ObjectUndoManager()
        scene.context.undoManager = undoManager
        let monitor = try scene.context.monitorList(Mood.self, sortBy: [SortDescriptor(\.text)])
        let hail = Mood(text: "Hail", rating: 1, country: scene.spain)
        scene.context.insert(hail)
        try scene.context.save()
        undoManager.removeAllActions()

        let sheet = scene.context.newChildContext()
        sheet.insert(Mood(text: "Another", rating: 3))
        try sheet.existingObject(with: scene.mood.objectID, as: Mood.self).text = "Rain"
        sheet.delete(try sheet.existingObject(with: hail.objectID, as: Mood.self))
        try sheet.save()
        #expect(monitor.objects.map(\.text) == ["Another", "Rain"])

        scene.context.processPendingChanges()
        undoManager.undo()
        #expect(monitor.objects.map(\.text) == ["Hail", "Sunny"])
        #expect(scene.spain.moods == [hail])
        #expect(!scene.context.hasChanges)
    }
}

/// Random unsaved edits in a parent, then in a child made from it, which is either dropped or
/// saved: dropped, the parent shows what it showed; saved, the parent shows what the child
/// showed; and the parent's save stores exactly that. The child starts out showing its parent.
/// The parent's undo manager records each round as a group: undoing them all walks back through
/// the same graphs.
@Suite struct RandomChildContextTests {
    @Test(arguments: UInt64(0)..<24)
    func aChildSavedOrDroppedLeavesItsParentShowingTheRightGraph(seed: UInt64) throws {
        var edits = RandomGraphEdits(seed: seed)
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        _ = try makeEurope(in: context)
        let undoManager = ObjectUndoManager()
        context.undoManager = undoManager
        var graphs = [try RandomGraphEdits.graph(in: context)]  // at the end of each round that changed it
        for round in 0..<6 {
            for _ in 0..<Int.random(in: 0..<5, using: &edits.random) { _ = try edits.step(in: context) }
            let parentGraph = try RandomGraphEdits.graph(in: context)
            var child: ObjectContext? = context.newChildContext()
            let sheet = try #require(child)
            #expect(try RandomGraphEdits.graph(in: sheet) == parentGraph, "seed \(seed), round \(round): the child starts as its parent")
            var steps: [String] = []
            for _ in 0..<Int.random(in: 1..<8, using: &edits.random) {
                if let step = try edits.step(in: sheet) { steps.append(step) }
            }
            let childGraph = try RandomGraphEdits.graph(in: sheet)
            if Bool.random(using: &edits.random) {
                try sheet.save()
                let isClean = !sheet.hasChanges  // not the context itself in the message: it does not describe
                #expect(isClean, "seed \(seed), round \(round): \(steps)")
                #expect(try RandomGraphEdits.graph(in: context) == childGraph, "seed \(seed), round \(round): saved \(steps)")
            } else {
                child = nil
                #expect(try RandomGraphEdits.graph(in: context) == parentGraph, "seed \(seed), round \(round): dropped")
            }
            _ = child
            let expected = try RandomGraphEdits.graph(in: context)
            if Bool.random(using: &edits.random) {
                try context.save()
                #expect(
                    try RandomGraphEdits.graph(in: container.newBackgroundContext()) == expected, "seed \(seed), round \(round): stored")
            }
            context.processPendingChanges()  // the round ends: one undo group
            if expected != graphs[graphs.count - 1] { graphs.append(expected) }
        }
        // A round whose changes cancel out (a child that inserts a country and deletes it) can be a
        // group that shows no change: each undo must show a graph of an earlier round, in order.
        var shown = graphs.count - 1
        while undoManager.canUndo {
            undoManager.undo()
            let now = try RandomGraphEdits.graph(in: context)
            while shown > 0, graphs[shown] != now { shown -= 1 }
            #expect(graphs[shown] == now, "seed \(seed): an undo shows a graph no earlier round showed")
        }
        #expect(try RandomGraphEdits.graph(in: context) == graphs[0], "seed \(seed): undoing all")
        try context.save()
        #expect(try RandomGraphEdits.graph(in: container.newBackgroundContext()) == graphs[0], "seed \(seed): stored after undoing all")
    }
}

extension ChildContextTests {
    @Test func aChildRolledBackShowsItsParentAgain() throws {
        let scene = try Scene()
        scene.mood.text = "Parent's edit"
        let sheet = scene.context.newChildContext()
        let draft = try sheet.existingObject(with: scene.mood.objectID, as: Mood.self)
        draft.text = "Child's edit"
        sheet.insert(Mood(text: "New", rating: 2))
        sheet.rollback()
        #expect(draft.text == "Parent's edit")
        #expect(try sheet.fetch(FetchDescriptor<Mood>()).map(\.text) == ["Parent's edit"])
        let isClean = !sheet.hasChanges
        #expect(isClean)
    }

    @Test func aChildOfAChildSavesIntoItsParentOnly() throws {
        let scene = try Scene()
        let sheet = scene.context.newChildContext()
        let nested = sheet.newChildContext()
        try nested.existingObject(with: scene.mood.objectID, as: Mood.self).text = "Nested"
        try nested.save()
        #expect(try sheet.existingObject(with: scene.mood.objectID, as: Mood.self).text == "Nested")
        #expect(scene.mood.text == "Sunny")
        try sheet.save()
        #expect(scene.mood.text == "Nested")
    }
}

extension ChildContextTests {
    /// A child's save that cannot read what its parent holds of a changed object fails before the
    /// parent changes at all; once the store reads again, it goes through.
    @Test func aChildsSaveThatCannotReadItsParentsRowsLeavesTheParentAsItWas() throws {
        let sabotage = ReadFailureTests.Sabotage()
        let container = try ObjectContainer(for: Mood.self, configuration: .file(sabotage.path))
        let writer = container.newBackgroundContext()
        let (_, france, _) = try makeEurope(in: writer)
        let mood = Mood(text: "Sunny", rating: 4, country: france)
        writer.insert(mood)
        try writer.save()

        let parent = container.newBackgroundContext()  // holds neither object
        let sheet = parent.newChildContext()
        try sheet.existingObject(with: mood.objectID, as: Mood.self).text = "Rain"
        try sheet.existingObject(with: france.objectID, as: Country.self).name = "Francia"
        try sabotage.hide("Country")
        let error = #expect(throws: ObjectGraphError.self) { try sheet.save() }
        #expect(error.map(ReadFailureTests.isReadFailure) == true)
        #expect(!parent.hasChanges)
        #expect(parent.registeredObject(for: mood.objectID)?.hasChanges != true)

        try sabotage.restore("Country")
        try sheet.save()
        try parent.save()
        let reader = container.newBackgroundContext()
        let stored = try reader.existingObject(with: mood.objectID, as: Mood.self)
        #expect(stored.text == "Rain" && stored.country?.name == "Francia")
    }
}

extension ChildContextTests {
    /// A child's save writes what the child changed, property by property: an edit its parent made
    /// after the child was made, of an object or a property the child did not change, survives
    /// (issue 43, defect 8).
    @Test func aChildsSaveLeavesWhatItDidNotChangeAsItsParentHasItNow() throws {
        let scene = try Scene()
        let rainy = Mood(text: "Rainy", rating: 2, country: scene.spain)
        scene.context.insert(rainy)
        try scene.context.save()

        scene.mood.text = "Sunny, first edit"
        let sheet = scene.context.newChildContext()
        scene.mood.text = "Sunny, second edit"  // after the child was made
        scene.mood.rating = 5
        try sheet.existingObject(with: rainy.objectID, as: Mood.self).rating = 1
        try sheet.save()
        #expect(scene.mood.text == "Sunny, second edit" && scene.mood.rating == 5)
        #expect(rainy.rating == 1)

        // A property the child changed takes the child's value; another keeps the parent's.
        let second = scene.context.newChildContext()
        scene.mood.rating = 3
        try second.existingObject(with: scene.mood.objectID, as: Mood.self).text = "Child's text"
        try second.save()
        #expect(scene.mood.text == "Child's text" && scene.mood.rating == 3)
    }
}

extension ChildContextTests {
    /// What a child sees of its parent's later edits (issue 43, point 5): an unsaved change the
    /// parent makes after the child was made reaches the child when the parent saves it, or when the
    /// child refreshes the object, which then reads it from the parent, as a child of Core Data does.
    @Test func aChildSeesItsParentsLaterEditsWhenTheParentSavesThemOrWhenItRefreshes() throws {
        let scene = try Scene()
        let sheet = scene.context.newChildContext()
        let draft = try sheet.existingObject(with: scene.mood.objectID, as: Mood.self)
        scene.mood.text = "Later"
        #expect(draft.text == "Sunny", "an edit the parent has not saved is not seen")

        sheet.refresh(draft, mergeChanges: false)
        #expect(draft.text == "Later", "a refresh reads the object from the parent")
        #expect(!sheet.hasChanges)

        draft.rating = 1
        scene.mood.text = "Later still"
        sheet.refresh(draft, mergeChanges: true)
        #expect(draft.text == "Later still" && draft.rating == 1, "keeping the child's own change")
        try sheet.save()
        #expect(scene.mood.text == "Later still" && scene.mood.rating == 1)

        let other = scene.context.newChildContext()
        let copy = try other.existingObject(with: scene.spain.objectID, as: Country.self)
        scene.spain.name = "España"
        try scene.context.save()
        other.processPendingChanges()  // the parent's save merges into the child as any save does
        #expect(copy.name == "España")
    }

    /// A child's save gives the parent the members it added and removed and the order it set, not
    /// its whole list: members the parent added meanwhile stay.
    @Test func aChildsSaveGivesTheParentItsMemberChangesOnly() throws {
        let container = try ObjectContainer(for: Album.self, configuration: .inMemory)
        let context = container.newBackgroundContext()
        let album = Album(title: "Blue")
        context.insert(album)
        album.tracks = ["a", "b", "c"].map(Track.init(title:))
        try context.save()

        let sheet = context.newChildContext()
        let draft = try sheet.existingObject(with: album.objectID, as: Album.self)
        draft.tracks.insert(Track(title: "x"), at: 1)
        draft.tracks.removeLast()
        album.tracks.append(Track(title: "parent's"))  // after the child was made
        try sheet.save()
        #expect(album.tracks.map(\.title) == ["a", "x", "b", "parent's"])
    }
}

extension ChildContextTests {
    /// An object a child reads for the first time after its parent changed it, or holds as a fault
    /// not read yet, shows the parent's state, as a child of Core Data faults objects in through its
    /// parent: by ID, in a fetch, through a relationship. The parent's later insertions and deletions
    /// show in the child's fetches. None of it is a change of the child's.
    @Test func anObjectAChildFirstReadsAfterItsParentChangedItShowsTheParentsState() throws {
        let scene = try Scene()
        let rainy = Mood(text: "Rainy", rating: 2, country: scene.spain)
        let foggy = Mood(text: "Foggy", rating: 3, country: scene.france)
        scene.context.insert(rainy)
        scene.context.insert(foggy)
        try scene.context.save()

        let sheet = scene.context.newChildContext()
        let france = try sheet.existingObject(with: scene.france.objectID, as: Country.self)
        let foggyFault = try #require(france.moods.first { $0.objectID == foggy.objectID })
        // After the child was made, before it read any of these moods:
        scene.mood.text = "Later"
        foggy.rating = 5
        scene.context.delete(rainy)
        let cloudy = Mood(text: "Cloudy", rating: 1, country: scene.france)
        scene.context.insert(cloudy)

        #expect(try sheet.existingObject(with: scene.mood.objectID, as: Mood.self).text == "Later")
        #expect(foggyFault.rating == 5, "a fault not read yet is read from the parent")
        let fetched = try sheet.fetch(FetchDescriptor<Mood>(sortBy: [SortDescriptor(\.text)]))
        #expect(fetched.map(\.text) == ["Cloudy", "Foggy", "Later"])
        #expect(try sheet.fetchCount(FetchDescriptor<Mood>(predicate: #Predicate { $0.rating == 5 })) == 1)
        #expect(throws: ObjectGraphError.self) { try sheet.existingObject(with: rainy.objectID) }
        #expect(!sheet.hasChanges, "what the child got from its parent is no change of its own")

        // Once read, an object keeps what the child read until a refresh or the parent's save.
        scene.mood.text = "Later still"
        #expect(try sheet.existingObject(with: scene.mood.objectID, as: Mood.self).text == "Later")

        try sheet.save()
        #expect(scene.mood.text == "Later still" && foggy.rating == 5 && cloudy.isInserted && rainy.isDeleted)
    }

    /// A grandchild faults an object in through its parent and grandparent: the nearest one that
    /// changed it gives its state.
    @Test func aGrandchildFaultsObjectsInThroughItsAncestors() throws {
        let scene = try Scene()
        let sheet = scene.context.newChildContext()
        let nested = sheet.newChildContext()
        scene.mood.text = "Grandparent's"
        scene.spain.name = "España"
        try sheet.existingObject(with: scene.spain.objectID, as: Country.self).name = "Spagna"

        #expect(try nested.existingObject(with: scene.mood.objectID, as: Mood.self).text == "Grandparent's")
        #expect(try nested.existingObject(with: scene.spain.objectID, as: Country.self).name == "Spagna")
        #expect(!nested.hasChanges)
    }
}
