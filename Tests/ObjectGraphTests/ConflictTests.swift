import Foundation
import MoodyModel
import ObjectGraph
import Testing

/// Two contexts edit the same mood; the second to save meets a conflict, settled by its merge policy
/// (issue 4, point 5).
@Suite struct ConflictTests {
    static let early = Date(timeIntervalSince1970: 1_000_000)
    static let late = Date(timeIntervalSince1970: 2_000_000)

    /// A saved mood loaded in two contexts that do not merge by themselves, so that neither learns
    /// of the other's save before its own.
    private struct TwoEditors {
        let container: ObjectContainer
        let first: ObjectContext
        let second: ObjectContext
        let firstCopy: Mood
        let secondCopy: Mood

        init(policy: MergePolicy) throws {
            container = try makeContainer()
            let setUp = container.newBackgroundContext()
            let (_, france, _) = try makeEurope(in: setUp)
            let mood = Mood(text: "Sunny", rating: 3, date: ConflictTests.early, country: france)
            setUp.insert(mood)
            try setUp.save()
            first = container.newBackgroundContext()
            second = container.newBackgroundContext()
            for context in [first, second] { context.automaticallyMergesChanges = false }
            second.mergePolicy = policy
            firstCopy = try first.existingObject(with: mood.objectID, as: Mood.self)
            secondCopy = try second.existingObject(with: mood.objectID, as: Mood.self)
        }

        /// The first editor changes text and rating and saves; the second changes text and date.
        func editBoth() throws {
            firstCopy.text = "From the first"
            firstCopy.rating = 1
            try first.save()
            secondCopy.text = "From the second"
            secondCopy.date = ConflictTests.late
        }

        /// The mood as stored, read by a fresh context.
        func stored() throws -> (text: String, rating: Int, date: Date, country: String?) {
            let context = container.newBackgroundContext()
            let mood = try context.existingObject(with: firstCopy.objectID, as: Mood.self)
            return (mood.text, mood.rating, mood.date, mood.country?.name)
        }
    }

    @Test func errorFailsListingTheConflictAndWritesNothing() throws {
        let editors = try TwoEditors(policy: .error)
        #expect(editors.second.mergePolicy == .error)
        let other = Mood(text: "Another", rating: 2)
        editors.second.insert(other)
        try editors.editBoth()
        let conflict = try #require(try conflicts(savingIn: editors.second).first)
        #expect(conflict.objectID == editors.secondCopy.objectID)
        #expect(conflict.staleVersion == 1 && conflict.currentVersion == 2)
        #expect(conflict.description == "\(conflict.objectID) was read at version 1 but the store has version 2")
        // A conflict can be built, to compare with in a test (issue 26, point 5).
        #expect(conflict == SaveConflict(objectID: editors.secondCopy.objectID, staleVersion: 1, currentVersion: 2))

        let stored = try editors.stored()
        #expect(stored.text == "From the first" && stored.rating == 1 && stored.date == Self.early)
        #expect(try editors.container.newBackgroundContext().fetchCount(FetchDescriptor<Mood>()) == 1)
        // The second context keeps its changes, to resolve by hand.
        #expect(editors.secondCopy.text == "From the second" && editors.second.hasChanges)
        editors.second.refresh(editors.secondCopy, mergeChanges: true)
        try editors.second.save()
        let resolved = try editors.stored()
        #expect(resolved.text == "From the second" && resolved.rating == 1 && resolved.date == Self.late)
    }

    /// For each policy: what the store and the second context's mood hold after the second save.
    @Test(arguments: [
        (MergePolicy.storeTrumps, "From the first", 1, late),
        (MergePolicy.objectTrumps, "From the second", 1, late),
        (MergePolicy.overwrite, "From the second", 3, late),
        (MergePolicy.rollback, "From the first", 1, early)
    ])
    func aPolicySettlesTheConflict(policy: MergePolicy, text: String, rating: Int, date: Date) throws {
        let editors = try TwoEditors(policy: policy)
        try editors.editBoth()
        var changes: [ObjectsDidChange] = []
        let token = editors.second.observeObjectsDidChange { changes.append($0) }
        var saves: [DidSave] = []
        let saveToken = editors.second.observeDidSave { saves.append($0) }
        try editors.second.save()

        let stored = try editors.stored()
        #expect((stored.text, stored.rating, stored.date) == (text, rating, date))
        let mood = editors.secondCopy
        #expect((mood.text, mood.rating, mood.date) == (text, rating, date))
        #expect(!mood.hasChanges && !editors.second.hasChanges)
        #expect(mood.objectVersion == (policy == .rollback ? 2 : 3))

        // What the store decided against this context is posted as a refresh of those properties.
        let fromStore: Set<String> =
            switch policy {
            case .storeTrumps: ["text", "rating"]
            case .objectTrumps: ["rating"]
            case .rollback: ["text", "rating", "date"]
            default: []
            }
        let refreshed = changes.flatMap(\.refreshedObjects).filter { $0.object === mood }
        #expect(refreshed.map(\.changedKeys) == (fromStore.isEmpty ? [] : [fromStore]))
        // And the save reports only what it wrote.
        let written: Set<String>? =
            switch policy {
            case .storeTrumps: ["date"]
            case .objectTrumps: ["text", "date"]
            case .overwrite: ["text", "date"]
            default: nil
            }
        #expect(saves.first?.updatedObjectIDs[mood.objectID] == written)

        // The first context, merging that save, sees the same mood.
        editors.first.mergeChanges(from: try #require(saves.first))
        let first = editors.firstCopy
        #expect((first.text, first.rating, first.date) == (text, rating, date))
        withExtendedLifetime((token, saveToken)) {}
    }

    @Test func theStoreRelinkingAnObjectUpdatesTheRelationshipsHere() throws {
        let editors = try TwoEditors(policy: .objectTrumps)
        let france = try #require(editors.secondCopy.country)
        let spain = try #require(try editors.second.fetch(FetchDescriptor<Country>(predicate: #Predicate { $0.name == "Spain" })).first)
        #expect(france.moods.count == 1 && spain.moods.isEmpty)  // loaded here

        let firstSpain = try #require(try editors.first.fetch(FetchDescriptor<Country>(predicate: #Predicate { $0.name == "Spain" })).first)
        editors.firstCopy.country = firstSpain
        try editors.first.save()
        editors.secondCopy.text = "Moved"
        try editors.second.save()

        #expect(editors.secondCopy.country === spain)
        #expect(france.moods.isEmpty)
        #expect(spain.moods.map(\.text) == ["Moved"])
        let stored = try editors.stored()
        #expect(stored.text == "Moved" && stored.country == "Spain")
    }

    @Test(arguments: [MergePolicy.storeTrumps, .objectTrumps, .overwrite, .rollback])
    func aRowDeletedElsewhereStaysDeleted(policy: MergePolicy) throws {
        let editors = try TwoEditors(policy: policy)
        editors.first.delete(editors.firstCopy)
        try editors.first.save()
        let other = Mood(text: "Saved anyway", rating: 4)
        editors.second.insert(other)
        editors.secondCopy.text = "Edited"
        var deleted: [any Entity] = []
        let token = editors.second.observeObjectsDidChange { deleted += $0.deletedObjects }
        try editors.second.save()

        #expect(editors.secondCopy.isDeleted)
        #expect(deleted.count == 1 && deleted.first === editors.secondCopy)
        let moods = try editors.container.newBackgroundContext().fetch(FetchDescriptor<Mood>()).map(\.text)
        #expect(moods == ["Saved anyway"])
        withExtendedLifetime(token) {}
    }

    @Test func underErrorADeletedRowIsAConflictWithoutCurrentVersion() throws {
        let editors = try TwoEditors(policy: .error)
        editors.first.delete(editors.firstCopy)
        try editors.first.save()
        editors.secondCopy.rating = 5
        let conflicts = try conflicts(savingIn: editors.second)
        #expect(conflicts.count == 1)
        #expect(conflicts.first?.objectID == editors.secondCopy.objectID)
        #expect(conflicts.first?.staleVersion == 1 && conflicts.first?.currentVersion == nil)
        #expect(conflicts.first?.description.hasSuffix("but the store has deleted it") == true)
    }

    /// The conflicts a save fails with (none if it does not fail with conflicts).
    private func conflicts(savingIn context: ObjectContext) throws -> [SaveConflict] {
        let error = #expect(throws: ObjectGraphError.self) { try context.save() }
        guard let error, error.code == .conflict else { return [] }
        return error.conflicts
    }
}
