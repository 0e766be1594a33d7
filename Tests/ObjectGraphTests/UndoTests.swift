import Foundation
import MoodyModel
import ObjectGraph
import Testing

/// Undo and redo through an ``ObjectUndoManager``: attribute edits, both sides of relationships,
/// insertions, deletions with their delete rules' effects, before and after a save, grouped by
/// event or explicitly, seen by monitors as ordinary changes.
@Suite struct UndoTests {
    private struct Scene {
        let container: ObjectContainer
        let context: ObjectContext
        let undoManager = ObjectUndoManager()
        let europe: Continent, france: Country, spain: Country

        init() throws {
            container = try makeContainer()
            context = container.newBackgroundContext()
            (europe, france, spain) = try makeEurope(in: context)
            context.undoManager = undoManager
        }

        /// The moods a fresh context reads from the store, by text.
        func storedMoods() throws -> [String: (rating: Int, country: String?)] {
            let reader = container.newBackgroundContext()
            var moods: [String: (Int, String?)] = [:]
            for mood in try reader.fetch(FetchDescriptor<Mood>()) { moods[mood.text] = (mood.rating, mood.country?.name) }
            return moods
        }
    }

    @Test func anAttributeEditIsUndoneAndRedone() throws {
        let scene = try Scene()
        let mood = Mood(text: "Sunny", rating: 4, country: scene.france)
        scene.context.insert(mood)
        try scene.context.save()
        scene.undoManager.removeAllActions()

        mood.rating = 2
        mood.text = "Rain"
        scene.context.processPendingChanges()  // the event ends
        #expect(scene.undoManager.canUndo)
        scene.undoManager.undo()
        #expect(mood.rating == 4 && mood.text == "Sunny")
        #expect(!scene.context.hasChanges)  // back to what is saved
        #expect(scene.undoManager.canRedo)
        scene.undoManager.redo()
        #expect(mood.rating == 2 && mood.text == "Rain")
        #expect(scene.context.hasChanges)
    }

    @Test func eachEventIsAGroupUnlessGroupsAreExplicit() throws {
        let scene = try Scene()
        scene.france.name = "Francia"
        scene.context.processPendingChanges()
        scene.spain.name = "España"
        scene.context.processPendingChanges()
        scene.undoManager.undo()
        #expect(scene.france.name == "Francia" && scene.spain.name == "Spain")

        scene.undoManager.beginUndoGrouping()
        scene.spain.name = "Espagne"
        scene.context.processPendingChanges()  // no end of group while one is open
        scene.europe.name = "Europa"
        scene.undoManager.endUndoGrouping()
        scene.undoManager.setActionName("Rename")
        #expect(scene.undoManager.undoActionName == "Rename")
        scene.undoManager.undo()
        #expect(scene.spain.name == "Spain" && scene.europe.name == "Europe" && scene.france.name == "Francia")
        #expect(scene.undoManager.redoActionName == "Rename")

        scene.undoManager.undo()
        #expect(scene.france.name == "France")
        #expect(!scene.undoManager.canUndo)
    }

    @Test func aRelationshipChangeIsUndoneOnBothSides() throws {
        let scene = try Scene()
        let mood = Mood(text: "Sunny", country: scene.france)
        scene.context.insert(mood)
        try scene.context.save()
        scene.undoManager.removeAllActions()

        mood.country = scene.spain
        scene.context.processPendingChanges()
        scene.undoManager.undo()
        #expect(mood.country === scene.france)
        #expect(scene.france.moods == [mood] && scene.spain.moods.isEmpty)
        scene.undoManager.redo()
        #expect(mood.country === scene.spain)
        #expect(scene.spain.moods == [mood] && scene.france.moods.isEmpty)
        try scene.context.save()
        #expect(try scene.storedMoods()["Sunny"]?.country == "Spain")
    }

    @Test func anInsertionIsUndoneAndRedoneBeforeAndAfterASave() throws {
        let scene = try Scene()
        let mood = Mood(text: "Sunny", country: scene.france)
        scene.context.insert(mood)
        scene.context.processPendingChanges()

        scene.undoManager.undo()
        #expect(mood.isDeleted && scene.france.moods.isEmpty)
        #expect(try scene.context.fetchCount(FetchDescriptor<Mood>()) == 0)
        scene.undoManager.redo()
        #expect(!mood.isDeleted && scene.france.moods == [mood])
        try scene.context.save()
        #expect(try scene.storedMoods().keys.sorted() == ["Sunny"])

        scene.undoManager.undo()  // after the save: the saved mood is deleted
        #expect(mood.isDeleted && scene.france.moods.isEmpty)
        try scene.context.save()
        #expect(try scene.storedMoods().isEmpty)
    }

    @Test func aCascadeDeletionIsUndoneBeforeASave() throws {
        let scene = try Scene()
        let moods = ["a", "b"].map { Mood(text: $0, country: scene.france) }
        for mood in moods { scene.context.insert(mood) }
        try scene.context.save()
        scene.undoManager.removeAllActions()

        scene.context.delete(scene.france)
        #expect(moods.allSatisfy { $0.isDeleted })
        scene.undoManager.undo()
        #expect(!scene.france.isDeleted && moods.allSatisfy { !$0.isDeleted })
        #expect(scene.europe.countries == [scene.france, scene.spain])
        #expect(scene.france.moods == Set(moods))
        #expect(!scene.context.hasChanges)
        try scene.context.save()
        #expect(try scene.storedMoods().keys.sorted() == ["a", "b"])
    }

    @Test func aSavedCascadeDeletionIsUndoneWithItsIDsAndGlobalIDs() throws {
        let scene = try Scene()
        let moods = ["a", "b"].map { Mood(text: $0, rating: 5, country: scene.france) }
        for mood in moods { scene.context.insert(mood) }
        try scene.context.save()
        scene.undoManager.removeAllActions()
        let ids = [scene.france.objectID] + moods.map(\.objectID)
        let globalIDs = [scene.france.objectGlobalID] + moods.map(\.objectGlobalID)

        scene.context.delete(scene.france)
        try scene.context.save()
        #expect(try scene.storedMoods().isEmpty)

        scene.undoManager.undo()
        #expect(!scene.france.isDeleted && scene.france.moods == Set(moods))
        #expect(scene.europe.countries.contains(scene.france))
        try scene.context.save()

        let reader = scene.container.newBackgroundContext()
        let france = try reader.existingObject(with: ids[0], as: Country.self)
        #expect(france.name == "France" && france.continent?.name == "Europe")
        #expect(Set(france.moods.map(\.objectID)) == Set(ids.dropFirst()))
        #expect(Set([france.objectGlobalID] + france.moods.map(\.objectGlobalID)) == Set(globalIDs))
        #expect(france.moods.allSatisfy { $0.rating == 5 })

        scene.undoManager.redo()  // deleted again
        try scene.context.save()
        #expect(try scene.storedMoods().isEmpty)
        #expect(try scene.container.newBackgroundContext().fetchCount(FetchDescriptor<Country>()) == 1)
    }

    @Test func anEditUndoneAfterASaveIsSavedAsAChange() throws {
        let scene = try Scene()
        let mood = Mood(text: "Sunny", rating: 4)
        scene.context.insert(mood)
        try scene.context.save()
        scene.undoManager.removeAllActions()

        mood.rating = 1
        try scene.context.save()  // a save ends the event
        scene.undoManager.undo()
        #expect(mood.rating == 4 && scene.context.hasChanges)
        try scene.context.save()
        #expect(try scene.storedMoods()["Sunny"]?.rating == 4)
    }

    /// An album with tracks a, b, c and a mixtape with tunes x, y, z, saved, in a context with an
    /// undo manager that holds nothing yet.
    private static func savedPlaylists() throws -> (
        ObjectContainer, ObjectContext, ObjectUndoManager, album: Album, mixtape: Mixtape
    ) {
        let container = try ObjectContainer(for: Album.self, Mixtape.self, configuration: .inMemory)
        let context = container.newBackgroundContext()
        let undoManager = ObjectUndoManager()
        context.undoManager = undoManager
        let album = Album(title: "Blue"), mixtape = Mixtape(name: "Summer")
        context.insert(album)
        context.insert(mixtape)
        album.tracks = ["a", "b", "c"].map(Track.init(title:))
        mixtape.tunes = ["x", "y", "z"].map(Tune.init(title:))
        try context.save()
        undoManager.removeAllActions()
        return (container, context, undoManager, album, mixtape)
    }

    @Test func anOrderedRelationshipGetsItsOrderBack() throws {
        let (container, context, undoManager, album, mixtape) = try Self.savedPlaylists()

        album.tracks.reverse()
        album.tracks.removeLast()
        mixtape.tunes = [mixtape.tunes[2], mixtape.tunes[0]]
        try context.save()
        undoManager.undo()
        #expect(album.tracks.map(\.title) == ["a", "b", "c"])
        #expect(mixtape.tunes.map(\.title) == ["x", "y", "z"])
        try context.save()

        let reader = container.newBackgroundContext()
        #expect(try reader.existingObject(with: album.objectID, as: Album.self).tracks.map(\.title) == ["a", "b", "c"])
        #expect(try reader.existingObject(with: mixtape.objectID, as: Mixtape.self).tunes.map(\.title) == ["x", "y", "z"])
    }

    /// Undoing a reorder of a saved ordered relationship leaves nothing to save (issue 43, defect 9).
    @Test func undoingAReorderLeavesNothingToSave() throws {
        let (_, context, undoManager, album, mixtape) = try Self.savedPlaylists()

        album.tracks.reverse()
        mixtape.tunes.swapAt(0, 2)
        context.processPendingChanges()
        #expect(context.hasChanges)
        undoManager.undo()
        #expect(album.tracks.map(\.title) == ["a", "b", "c"] && mixtape.tunes.map(\.title) == ["x", "y", "z"])
        #expect(!context.hasChanges && !album.hasChanges && !mixtape.hasChanges)
    }

    /// Undoing the deletion of a member of an ordered relationship puts it back where it was, and a
    /// save stores that order (issue 43, defect 10).
    @Test func undoingTheDeletionOfAnOrderedMemberPutsItBackInItsPlace() throws {
        let (container, context, undoManager, album, _) = try Self.savedPlaylists()

        context.delete(album.tracks[0])
        context.processPendingChanges()
        #expect(album.tracks.map(\.title) == ["b", "c"])
        undoManager.undo()
        #expect(album.tracks.map(\.title) == ["a", "b", "c"])
        try context.save()
        let reader = container.newBackgroundContext()
        #expect(try reader.existingObject(with: album.objectID, as: Album.self).tracks.map(\.title) == ["a", "b", "c"])
    }

    @Test func levelsOfUndoKeepTheLatestGroups() throws {
        let scene = try Scene()
        scene.undoManager.levelsOfUndo = 2
        for name in ["A", "B", "C"] {
            scene.spain.name = name
            scene.context.processPendingChanges()
        }
        scene.undoManager.undo()
        scene.undoManager.undo()
        #expect(scene.spain.name == "A")
        #expect(!scene.undoManager.canUndo)
        scene.undoManager.undo()
        #expect(scene.spain.name == "A")
    }

    @Test func aNewChangeEndsWhatCouldBeRedone() throws {
        let scene = try Scene()
        scene.spain.name = "A"
        scene.context.processPendingChanges()
        scene.undoManager.undo()
        #expect(scene.undoManager.canRedo)
        scene.france.name = "B"
        #expect(!scene.undoManager.canRedo)
    }

    @Test func changesMadeWithRegistrationDisabledAreNotUndone() throws {
        let scene = try Scene()
        scene.undoManager.disableUndoRegistration()
        scene.spain.name = "Imported"
        scene.context.processPendingChanges()
        scene.undoManager.enableUndoRegistration()
        #expect(!scene.undoManager.canUndo)
        scene.france.name = "Edited"
        scene.undoManager.undo()
        #expect(scene.france.name == "France" && scene.spain.name == "Imported")
    }

    @Test func rollbackAndResetForgetEveryGroup() throws {
        let scene = try Scene()
        scene.spain.name = "A"
        scene.context.processPendingChanges()
        scene.context.rollback()
        #expect(!scene.undoManager.canUndo)
        scene.spain.name = "B"
        scene.context.reset()
        #expect(!scene.undoManager.canUndo)
    }

    @Test func anUndoManagerServesOneContext() throws {
        let scene = try Scene()
        let other = scene.container.newBackgroundContext()
        other.undoManager = scene.undoManager
        #expect(scene.context.undoManager == nil)
        scene.spain.name = "Not recorded"
        #expect(!scene.undoManager.canUndo)
    }

    @Test func monitorsSeeUndoAsOrdinaryChanges() throws {
        let scene = try Scene()
        let monitor = try scene.context.monitorList(Mood.self, sortBy: [SortDescriptor(\.text)])
        var changes: [ListChangeset<Mood>] = []
        let token = monitor.observeChanges { changes.append($0) }
        defer { token.cancel() }
        let mood = Mood(text: "Sunny")
        scene.context.insert(mood)
        scene.context.processPendingChanges()
        #expect(monitor.objects == [mood])

        scene.undoManager.undo()
        #expect(monitor.objects.isEmpty)
        scene.undoManager.redo()
        #expect(monitor.objects == [mood])
        #expect(changes.count == 3)

        var observed: [String] = []
        let objectObserver = scene.context.observeObjectsDidChange { change in
            observed += change.updatedObjects.compactMap { ($0.object as? Mood)?.text }
        }
        defer { objectObserver.cancel() }
        mood.text = "Rain"
        scene.context.processPendingChanges()
        scene.undoManager.undo()
        #expect(observed == ["Rain", "Sunny"])
        #expect(monitor.objects.map(\.text) == ["Sunny"])
    }

    /// The view context's event ends when the main actor is free: what one turn changed is one group.
    @MainActor @Test(.timeLimit(.minutes(1))) func theViewContextGroupsTheChangesOfOneTurn() async throws {
        let container = try makeContainer()
        let view = container.viewContext
        let undoManager = ObjectUndoManager()
        view.undoManager = undoManager
        let (_, france, spain) = try makeEurope(in: view)
        undoManager.removeAllActions()

        let processed = view.objectsDidChangeNotifications
        france.name = "Francia"
        spain.name = "España"
        for await _ in processed { break }  // the turn ended: the view context processed its changes
        spain.name = "Espagne"
        for await _ in processed { break }
        undoManager.undo()
        #expect(spain.name == "España" && france.name == "Francia")
        undoManager.undo()
        #expect(spain.name == "Spain" && france.name == "France")
    }
}

/// Random edits, insertions, moves and deletions (cascades included), one group each, with saves
/// at random points; then every group is undone, and redone, with saves at random points again.
/// After each step the graph the context shows must be the one recorded at that point, and after
/// each save a fresh context must read the same from the store.
@Suite struct RandomUndoTests {
    @Test(arguments: UInt64(0)..<12)
    func undoingAndRedoingEveryGroupWalksBackAndForthThroughTheSameGraphs(seed: UInt64) throws {
        var edits = RandomGraphEdits(seed: seed)
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        _ = try makeEurope(in: context)
        let undoManager = ObjectUndoManager()
        context.undoManager = undoManager
        func saveAndCompare(_ expected: [String], _ step: String) throws {
            try context.save()
            #expect(try RandomGraphEdits.graph(in: container.newBackgroundContext()) == expected, "seed \(seed), store after \(step)")
        }

        var graphs = [try RandomGraphEdits.graph(in: context)]
        var steps: [String] = []
        for _ in 0..<50 {
            if Int.random(in: 0..<8, using: &edits.random) == 0 {
                try saveAndCompare(graphs[graphs.count - 1], "save")
                continue
            }
            guard let step = try edits.step(in: context) else { continue }
            context.processPendingChanges()
            steps.append(step)
            graphs.append(try RandomGraphEdits.graph(in: context))
        }

        for index in stride(from: steps.count, to: 0, by: -1) {
            undoManager.undo()
            #expect(try RandomGraphEdits.graph(in: context) == graphs[index - 1], "seed \(seed), undoing \(steps[index - 1])")
            if Bool.random(using: &edits.random) { try saveAndCompare(graphs[index - 1], "undoing \(steps[index - 1])") }
        }
        #expect(!undoManager.canUndo)
        for index in steps.indices {
            undoManager.redo()
            #expect(try RandomGraphEdits.graph(in: context) == graphs[index + 1], "seed \(seed), redoing \(steps[index])")
            if Bool.random(using: &edits.random) { try saveAndCompare(graphs[index + 1], "redoing \(steps[index])") }
        }
        #expect(!undoManager.canRedo)
        try saveAndCompare(graphs[graphs.count - 1], "the last redo")
    }
}

/// Ordered relationships through undo and redo (issue 43, point 6): random reorders, insertions
/// at an index, removals and deletions of members of ordered one-to-many and many-to-many
/// relationships, a group each, saved at random points; then a random walk of undos and redos.
/// At each step the context shows the graph of that point, has changes exactly when that graph is
/// not the one saved last, and a save stores it.
@Suite struct RandomOrderedUndoTests {
    /// The albums' tracks and the mixtapes' tunes, in order, by title, and every track and tune
    /// (those in no album or mixtape too).
    static func graph(in context: ObjectContext) throws -> [String] {
        let albums = try context.fetch(FetchDescriptor<Album>(sortBy: [SortDescriptor(\.title)]))
        let mixtapes = try context.fetch(FetchDescriptor<Mixtape>(sortBy: [SortDescriptor(\.name)]))
        let tracks = try context.fetch(FetchDescriptor<Track>(sortBy: [SortDescriptor(\.title)])).map(\.title)
        let tunes = try context.fetch(FetchDescriptor<Tune>(sortBy: [SortDescriptor(\.title)])).map(\.title)
        return albums.map { "\($0.title): " + $0.tracks.map(\.title).joined(separator: ",") }
            + mixtapes.map { "\($0.name): " + $0.tunes.map(\.title).joined(separator: ",") }
            + ["tracks: " + tracks.joined(separator: ","), "tunes: " + tunes.joined(separator: ",")]
    }

    @Test(arguments: UInt64(0)..<64)
    func undoAndRedoOfOrderedRelationshipsInRandomOrderKeepOrderAndChanges(seed: UInt64) throws {
        var random = SeededGenerator(state: seed)
        let container = try ObjectContainer(for: Album.self, Mixtape.self, configuration: .inMemory)
        let context = container.newBackgroundContext()
        let undoManager = ObjectUndoManager()
        context.undoManager = undoManager
        let albums = ["Blue", "Red"].map(Album.init(title:)), mixtapes = ["Summer", "Winter"].map(Mixtape.init(name:))
        for album in albums { context.insert(album) }
        for mixtape in mixtapes { context.insert(mixtape) }
        albums[0].tracks = (1...4).map { Track(title: "a\($0)") }
        albums[1].tracks = (1...3).map { Track(title: "b\($0)") }
        let tunes = (1...5).map { Tune(title: "t\($0)") }
        mixtapes[0].tunes = Array(tunes[0..<3])
        mixtapes[1].tunes = Array(tunes[2..<5])
        try context.save()
        undoManager.removeAllActions()

        var saved = try Self.graph(in: context)
        var graphs = [saved]
        var steps: [String] = []
        var made = 0
        while steps.count < 30 {
            if Int.random(in: 0..<6, using: &random) == 0 {
                try context.save()
                saved = graphs[graphs.count - 1]
                continue
            }
            let album = albums.randomElement(using: &random)!, mixtape = mixtapes.randomElement(using: &random)!
            switch Int.random(in: 0..<7, using: &random) {
            case 0 where album.tracks.count > 1:
                var order = album.tracks
                order.shuffle(using: &random)
                album.tracks = order
                steps.append("reorder \(album.title)")
            case 1:
                made += 1
                let index = Int.random(in: 0...album.tracks.count, using: &random)
                album.tracks.insert(Track(title: "n\(made)"), at: index)
                steps.append("insert a new track into \(album.title) at \(index)")
            case 2 where !album.tracks.isEmpty:
                let index = Int.random(in: 0..<album.tracks.count, using: &random)
                album.tracks.remove(at: index)
                steps.append("remove track \(index) of \(album.title)")
            case 3 where !album.tracks.isEmpty:
                let track = album.tracks.randomElement(using: &random)!
                context.delete(track)
                steps.append("delete \(track.title)")
            case 4 where mixtape.tunes.count > 1:
                let from = Int.random(in: 0..<mixtape.tunes.count, using: &random)
                let to = Int.random(in: 0..<mixtape.tunes.count, using: &random)
                var order = mixtape.tunes
                order.insert(order.remove(at: from), at: to)
                mixtape.tunes = order
                steps.append("move tune \(from) of \(mixtape.name) to \(to)")
            case 5:
                let tune = tunes.filter { !$0.isDeleted && !mixtape.tunes.contains($0) }.randomElement(using: &random)
                guard let tune else { continue }
                let index = Int.random(in: 0...mixtape.tunes.count, using: &random)
                mixtape.tunes.insert(tune, at: index)
                steps.append("insert \(tune.title) into \(mixtape.name) at \(index)")
            case 6 where !mixtape.tunes.isEmpty:
                let index = Int.random(in: 0..<mixtape.tunes.count, using: &random)
                if Bool.random(using: &random) {
                    mixtape.tunes.remove(at: index)
                    steps.append("remove tune \(index) of \(mixtape.name)")
                } else {
                    context.delete(mixtape.tunes[index])
                    steps.append("delete tune \(index) of \(mixtape.name)")
                }
            default:
                continue
            }
            context.processPendingChanges()
            let graph = try Self.graph(in: context)
            if graph == graphs[graphs.count - 1] {
                steps.removeLast()  // no change, no group (a shuffle that kept the order)
            } else {
                graphs.append(graph)
            }
        }

        // A random walk back and forth through the groups, saving at random points.
        var position = graphs.count - 1
        for move in 0..<60 {
            let back = position > 0 && (position == graphs.count - 1 || Bool.random(using: &random))
            if back {
                undoManager.undo()
                position -= 1
            } else {
                undoManager.redo()
                position += 1
            }
            let step = "seed \(seed), move \(move): \(back ? "undoing" : "redoing") \(steps[back ? position : position - 1])"
            let shown = try Self.graph(in: context)
            #expect(shown == graphs[position], "\(step)")
            #expect(context.hasChanges == (shown != saved), "\(step): saved \(saved), shown \(shown)")
            if Int.random(in: 0..<5, using: &random) == 0 {
                try context.save()
                saved = shown
                #expect(try Self.graph(in: container.newBackgroundContext()) == shown, "\(step): stored")
            }
        }
    }
}
