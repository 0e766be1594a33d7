import Foundation
import MoodyModel
import Testing

@testable import ObjectGraph
@testable import ObjectGraphContext

/// The parts a context is made of, each on its own: its unit of work, the plan of a save, a
/// deletion pass and the batch operations.
@Suite struct ContextPartsTests {
    @Test func aChangeTrackerPostsAnInsertionAndForgetsADeletionNobodyWasToldOf() {
        var changes = ChangeTracker()
        #expect(!changes.hasChanges)
        let kept = Sample(), dropped = Sample()
        changes.recordInsertion(of: kept, key: StateKey(kept._$state))
        changes.recordInsertion(of: dropped, key: StateKey(dropped._$state))
        changes.recordDeletion(of: dropped, key: StateKey(dropped._$state))
        #expect(changes.hasChanges)
        #expect(changes.pendingDeletions.count == 1)
        let unposted = changes.takeUnposted()
        #expect(unposted.inserted.keys == [StateKey(kept._$state)])
        #expect(unposted.deleted.isEmpty)  // inserted and deleted before anyone was told: never there
        #expect(changes.unposted.isEmpty)
    }

    @Test func aStateMapKeepsTheOrderKeysWereAddedInThroughReplacementsAndRemovals() {
        let states = (0..<5).map { _ in Sample()._$state }
        let keys = states.map(StateKey.init)
        var map: StateMap<Int> = [:]
        for (offset, key) in keys.enumerated() { map[key] = offset }
        map[keys[1]] = 10  // replaced in place
        #expect(map.removeValue(forKey: keys[2]) == 2)
        #expect(map.removeValue(forKey: keys[2]) == nil)
        map[keys[0]] = nil
        map[keys[2], default: 0] += 20  // back, at the end
        map[keys[3], default: 0] += 30
        #expect(map.keys == [keys[1], keys[3], keys[4], keys[2]])
        #expect(map.values == [10, 33, 4, 20])
        #expect(map[keys[4]] == 4 && map[keys[0]] == nil && map.count == 4)
        #expect(map.map(\.value) == map.values)
        map.removeAll { $0.value > 15 }
        #expect(map.keys == [keys[1], keys[4]] && map.values == [10, 4])
        #expect(map[keys[4]] == 4 && map[keys[3]] == nil)
        map[keys[3]] = 3
        #expect(map.keys == [keys[1], keys[4], keys[3]] && map[keys[3]] == 3)
        withExtendedLifetime(states) {}
    }

    @Test func clearingAChangeTrackerEndsTheUnitOfWorkButKeepsWhatIsStillToBePosted() {
        var changes = ChangeTracker()
        let object = Sample()
        changes.recordInsertion(of: object, key: StateKey(object._$state))
        changes.recordDeletion(of: Sample(), key: StateKey(Sample()._$state))
        changes.unsavedMarks[0] = [1]
        changes.deferredErrors = [.unknownEntity("First"), .unknownEntity("Second")]
        #expect(changes.takeDeferredError()?.entity == "First")
        changes.clear()
        #expect(!changes.hasChanges)
        #expect(changes.inserted.isEmpty && changes.deleted.isEmpty && changes.pendingDeletions.isEmpty)
        #expect(changes.unsavedMarks.isEmpty && changes.deferredErrors.isEmpty && changes.rulesAwaitingRetry.isEmpty)
        #expect(changes.takeDeferredError() == nil)
        #expect(changes.unposted.inserted.count == 1 && changes.unposted.deleted.count == 1)
    }

    @Test func aSavePlanLeavesOutObjectsInsertedAndDeletedAndWritesTheRestInOrder() {
        var changes = ChangeTracker()
        let first = Sample(), second = Sample(), gone = Sample(), removed = Sample()
        for object in [first, gone, second] {
            object._$state.isInserted = true
            changes.recordInsertion(of: object, key: StateKey(object._$state))
        }
        gone._$state.isDeleted = true
        changes.deleted[StateKey(gone._$state)] = gone
        removed._$state.isDeleted = true
        changes.deleted[StateKey(removed._$state)] = removed
        let plan = SavePlan(changes)
        #expect(plan.inserts.map(ObjectIdentifier.init) == [first, second].map { ObjectIdentifier($0._$state) })
        #expect(plan.deletes.map(ObjectIdentifier.init) == [ObjectIdentifier(removed._$state)])
        #expect(plan.updates.isEmpty)
        #expect(plan.all.count == 3)
    }

    @Test func aDeletionPassRunsTheRulesOfPendingDeletionsAndOfWhatTheyDeleteInTurn() throws {
        let container = try ObjectContainer(for: Continent.self, configuration: .inMemory)
        let context = container.newBackgroundContext()
        let europe = Continent(name: "Europe")
        let france = Country(name: "France", continent: europe)
        let mood = Mood(text: "Calm", country: france)
        context.insert(mood)
        try context.save()

        // Recorded without running the rules, as `delete` does before its pass.
        europe._$state.isDeleted = true
        context.changes.recordDeletion(of: europe, key: StateKey(europe._$state))
        #expect(!france.isDeleted)
        DeletionPass(context: context).run()
        #expect(france.isDeleted && mood.isDeleted)
        #expect(context.changes.pendingDeletions.isEmpty && context.changes.rulesAwaitingRetry.isEmpty)
        #expect(context.deletionPass == nil && !context.processing.isRunning)

        // With nothing pending, a pass does nothing and keeps nothing.
        DeletionPass(context: context).run()
        #expect(context.deletionPass == nil)
    }

    @Test func batchOperationsNeedOnlyTheStoreTheCoordinatorAndAMerge() throws {
        let container = try ObjectContainer(for: Mood.self, configuration: .inMemory)
        let other = container.newBackgroundContext()
        let coordinator = container.coordinator
        let mapping = try #require(coordinator.store.mapping(for: Mood._$entity))
        var merged: [DidSave] = []
        let batches = BatchOperations(store: coordinator.store, coordinator: coordinator, author: "import") { merged.append($0) }

        let rows = try [["text": "Calm", "rating": 4, "date": Date()] as [String: any AttributeValue]].enumerated().map {
            try BatchRow(values: $1, row: $0, mapping: mapping)
        }
        let ids = try batches.insertRows(rows, mapping: mapping)
        #expect(ids.count == 1)
        #expect(merged.map(\.insertedObjectIDs) == [Set(ids)])
        #expect(merged.first?.author == "import")
        // The commit reached the container's other contexts too.
        #expect(try other.fetch(FetchDescriptor<Mood>()).map(\.text) == ["Calm"])
        #expect(try container.fetchHistory().last?.author == "import")

        // A batch that finds nothing to do commits nothing and merges nothing.
        let select = try SelectQuery(FetchDescriptor<Mood>(predicate: #Predicate { $0.rating > 10 }), store: coordinator.store)
        #expect(try batches.updateRows(select, setting: [(name: "rating", slot: 1, value: .integer(5))]).isEmpty)
        #expect(try batches.deleteRows([mapping.index: DeletionSeed(condition: select.condition, isRepeatable: true)]).isEmpty)
        #expect(merged.count == 1)
        #expect(try container.fetchHistory().count == 1)
    }
}
