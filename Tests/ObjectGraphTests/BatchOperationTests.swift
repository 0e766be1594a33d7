import Foundation
import MoodyModel
import ObjectGraph
import Testing

/// Batch delete, update and insert (issue 12, points 4 and 5): SQL in one transaction, merged into
/// every live context like a save.
@Suite struct BatchOperationTests {
    @Test func aBatchDeleteCascadesAndReachesEveryContext() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let (europe, france, spain) = try makeEurope(in: context)
        let mood = Mood(text: "Sunny", country: france)
        context.insert(mood)
        try context.save()
        // Another context holds faults for all of them, and observes.
        let viewer = container.newBackgroundContext()
        let held = [europe.objectID, france.objectID, spain.objectID, mood.objectID].map { viewer.object(with: $0) }
        var deletedThere: [ObjectID] = []
        let token = viewer.observeObjectsDidChange { deletedThere += $0.deletedObjects.map(\.objectID) }
        var observed: [ObjectObserver<Mood>.Change] = []
        let observer = try ObjectObserver(viewer.existingObject(with: mood.objectID, as: Mood.self)) { observed.append($0) }

        let deleted = try context.batchDelete(Continent.self, where: #Predicate { $0.name == "Europe" })
        #expect(deleted == [europe.objectID, france.objectID, spain.objectID, mood.objectID])
        #expect(europe.isDeleted && france.isDeleted && mood.isDeleted)  // the running context, before it returns
        viewer.processPendingChanges()
        #expect(Set(deletedThere) == deleted)
        #expect(held.allSatisfy { $0?.isDeleted == true })
        #expect(observed == [.delete])
        #expect(try viewer.fetchCount(FetchDescriptor<Mood>(includesMarkedForDeletion: true)) == 0)
        withExtendedLifetime((token, observer)) {}
    }

    @Test func aBatchDeleteNullifiesTheOtherSide() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let (europe, france, _) = try makeEurope(in: context)
        let moods = ["a", "b"].map { Mood(text: $0, country: france) }
        for mood in moods { context.insert(mood) }
        try context.save()
        #expect(france.moods.count == 2)  // loaded before the batch

        let viewer = container.newBackgroundContext()
        let heldFrance = try viewer.existingObject(with: france.objectID, as: Country.self)
        #expect(heldFrance.moods.count == 2)
        var refreshedKeys: [Set<String>] = []
        let token = viewer.observeObjectsDidChange { change in
            refreshedKeys += change.refreshedObjects.filter { $0.object === heldFrance }.map(\.changedKeys)
        }

        try context.batchDelete(Mood.self, where: #Predicate { $0.text == "a" })
        #expect(france.moods.map(\.text) == ["b"])
        viewer.processPendingChanges()
        #expect(heldFrance.moods.map(\.text) == ["b"])
        #expect(refreshedKeys == [["moods"]])
        // A country deleted by batch nullifies its continent's side, and the mood's foreign key.
        try context.batchDelete(Country.self, where: #Predicate { $0.name == "Spain" })
        #expect(europe.countries == [france])
        withExtendedLifetime(token) {}
    }

    /// The rows a batch deletion selects carry their own links (read with them); rows of the same
    /// entity reached by a cascade are read apart. Both must reach the rules: a chore marked by
    /// itself, and through the cascade of a marked project, its other chores, all assigned to people
    /// who stay.
    @Test func aCleanUpAppliesTheRulesOfSelectedAndCascadedRowsAlike() throws {
        let container = try ObjectContainer(for: Project.self, Person.self, configuration: .inMemory)
        let context = container.newBackgroundContext()
        let (ann, bob) = (Person(name: "Ann"), Person(name: "Bob"))
        let (home, garden) = (Project(name: "Home"), Project(name: "Garden"))
        for object in [ann, bob] as [any Entity] + [home, garden] { context.insert(object) }
        let chores = [("dishes", home, ann), ("laundry", home, bob), ("weeding", garden, bob), ("mowing", garden, ann)]
            .map { Chore(title: $0, project: $1, assignee: $2) }
        for chore in chores { context.insert(chore) }
        try context.save()
        let viewer = container.newBackgroundContext()
        let held = try [ann, bob].map { try viewer.existingObject(with: $0.objectID, as: Person.self) }
        #expect(held.map(\.chores.count) == [2, 2])
        var refreshed: [String: Set<String>] = [:]
        let token = viewer.observeObjectsDidChange { change in
            for item in change.refreshedObjects {
                refreshed[(item.object as? Person)?.name ?? "other", default: []].formUnion(item.changedKeys)
            }
        }
        let longAgo = Date(timeIntervalSinceNow: -3600)
        try context.batchUpdate(Chore.self, where: #Predicate { $0.title == "dishes" }, set: [.set(\.markedForDeletionDate, to: longAgo)])
        try context.batchUpdate(Project.self, where: #Predicate { $0.name == "Garden" }, set: [.set(\.markedForDeletionDate, to: longAgo)])

        let deleted = try context.deleteMarkedObjects()
        #expect(deleted == Set([garden.objectID] + chores.filter { $0.title != "laundry" }.map(\.objectID)))
        viewer.processPendingChanges()
        #expect(refreshed == ["Ann": ["chores"], "Bob": ["chores"]])
        #expect(held.map { $0.chores.map(\.title) } == [[], ["laundry"]])
        let fresh = container.newBackgroundContext()
        let left = try fresh.fetch(FetchDescriptor<Person>(sortBy: [SortDescriptor(\.name)]))
        #expect(left.map { $0.chores.map(\.title) } == [[], ["laundry"]])
        // Every deleted row is in the history, with its global ID.
        let record = try #require(try container.fetchHistory().last)
        let recorded = record.changes.filter { $0.kind == .delete }
        #expect(Set(recorded.map(\.objectID)) == deleted)
        #expect(Set(recorded.map(\.globalID)).count == 4)
        withExtendedLifetime(token) {}
    }

    /// A batch deletion whose predicate reads a relationship selects its rows once: deleting the
    /// roots of a tree nullifies their children's parent, which makes them match the predicate too,
    /// and they must stay.
    @Test func aPredicateOverARelationshipDeletesOnlyTheRowsItFirstSelected() throws {
        let container = try ObjectContainer(for: Node.self, configuration: .inMemory)
        let context = container.newBackgroundContext()
        let root = Node(name: "root")
        let branch = Node(name: "branch", parent: root)
        for node in [root, branch, Node(name: "leaf", parent: root), Node(name: "twig", parent: branch)] {
            context.insert(node)
        }
        try context.save()

        let deleted = try context.batchDelete(Node.self, where: #Predicate { $0.parent == nil })
        #expect(deleted == [root.objectID])
        let fresh = container.newBackgroundContext()
        let left = try fresh.fetch(FetchDescriptor<Node>(sortBy: [SortDescriptor(\.name)]))
        #expect(left.map(\.name) == ["branch", "leaf", "twig"])
        #expect(left.map { $0.parent?.name } == [nil, nil, "branch"])
    }

    @Test func aDenyRuleRefusesTheWholeBatch() throws {
        let container = try ObjectContainer(for: DenyingContinent.self, configuration: .inMemory)
        let context = container.newBackgroundContext()
        let europe = DenyingContinent(name: "Europe")
        let asia = DenyingContinent(name: "Asia")
        let france = DeniedCountry(name: "France", continent: europe)
        for object in [europe, asia] { context.insert(object) }
        context.insert(france)
        try context.save()
        let error = #expect(throws: ObjectGraphError.self) { try context.batchDelete(DenyingContinent.self) }
        #expect(
            error
                == .validationFailed([
                    ValidationFailure(
                        entity: "DenyingContinent", objectID: europe.objectID, property: "countries", reason: .deleteDenied(count: 1))
                ]))
        #expect(try context.fetchCount(FetchDescriptor<DenyingContinent>()) == 2)  // Asia stayed too
        #expect(try container.fetchHistory().count == 1)  // the save only
        // Deleting the country with them is allowed.
        try context.batchDelete(DeniedCountry.self)
        #expect(try context.batchDelete(DenyingContinent.self).count == 2)
    }

    @Test func noActionLeavesTheLinks() throws {
        let container = try ObjectContainer(for: LooseContinent.self, configuration: .inMemory)
        let context = container.newBackgroundContext()
        let europe = LooseContinent(name: "Europe")
        let france = LooseCountry(name: "France", continent: europe)
        context.insert(france)
        context.insert(europe)
        try context.save()
        try context.batchDelete(LooseContinent.self)
        #expect(try context.fetchCount(FetchDescriptor<LooseCountry>()) == 1)
        let other = container.newBackgroundContext()
        let reread = try #require(try other.fetch(FetchDescriptor<LooseCountry>()).first)
        // A dangling link, as Core Data's no action leaves it: it names the row that is gone.
        let continent = try #require(reread.continent)
        #expect(continent.objectID == europe.objectID)
        #expect(throws: ObjectGraphError.inaccessibleFault(europe.objectID)) { try continent.checkedValue(\.name) }
    }

    @Test func aBatchUpdateSetsBumpsAndMerges() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let moods = [1, 2, 5].map { Mood(text: "r\($0)", rating: $0) }
        for mood in moods { context.insert(mood) }
        try context.save()
        let viewer = container.newBackgroundContext()
        let held = try viewer.existingObject(with: moods[0].objectID, as: Mood.self)
        #expect(held.rating == 1)
        let editor = container.newBackgroundContext()
        editor.automaticallyMergesChanges = false
        let stale = try editor.existingObject(with: moods[1].objectID, as: Mood.self)

        let updated = try context.batchUpdate(Mood.self, where: #Predicate { $0.rating < 3 }, set: [.set(\.rating, to: 3)])
        #expect(updated == [moods[0].objectID, moods[1].objectID])
        #expect(moods.map(\.rating) == [3, 3, 5])
        #expect(moods.map(\.objectVersion) == [2, 2, 1])
        viewer.processPendingChanges()
        #expect(held.rating == 3)
        // A context that did not merge meets the new version as a conflict.
        stale.text = "edited"
        #expect(throws: ObjectGraphError.self) { try editor.save() }
    }

    @Test func aBatchUpdateRefusesBadAssignments() throws {
        let context = try makeContainer().newBackgroundContext()
        for text in ["a", "b"] { context.insert(Mood(text: text)) }
        try context.save()
        // Relationships cannot be named (their values are not attribute values); a derived value can.
        let derived = #expect(throws: ObjectGraphError.self) {
            try context.batchUpdate(Mood.self, set: [.set(\.text.count, to: 1)])
        }
        guard let thrown = derived, thrown.code == .invalidBatchOperation, let entity = thrown.entity else {
            Issue.record("expected invalidBatchOperation, got \(String(describing: derived))")
            return
        }
        #expect(entity == "Mood")
        let unique = #expect(throws: ObjectGraphError.self) {
            try context.batchUpdate(Mood.self, set: [.set(\.remoteIdentifier, to: "same")])
        }
        guard let thrown = unique, thrown.code == .invalidBatchOperation, case let property = thrown.property else {
            Issue.record("expected invalidBatchOperation, got \(String(describing: unique))")
            return
        }
        #expect(property == "remoteIdentifier")
        #expect(try context.fetchCount(FetchDescriptor<Mood>(predicate: #Predicate { $0.remoteIdentifier != nil })) == 0)
    }

    @Test func aBatchInsertFromValuesReachesObservers() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let viewer = container.newBackgroundContext()
        var inserted: [ObjectID] = []
        let token = viewer.observeObjectsDidChange { inserted += $0.insertedObjects.map(\.objectID) }
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        let ids = try context.batchInsert(
            Mood.self,
            values: [
                ["text": "Calm", "rating": 4, "date": date],
                ["text": "Tired", "date": date]
            ])
        viewer.processPendingChanges()
        #expect(Set(inserted) == Set(ids))
        let moods = try ids.map { try viewer.existingObject(with: $0, as: Mood.self) }
        #expect(moods.map(\.text) == ["Calm", "Tired"])
        #expect(moods.map(\.rating) == [4, 3])  // the declared default
        #expect(moods.map(\.objectVersion) == [1, 1])
        #expect(Set(moods.map(\.objectGlobalID)).count == 2)
        withExtendedLifetime(token) {}
    }

    @Test func aBatchInsertRefusesBadRowsAndInsertsNothing() throws {
        let context = try makeContainer().newBackgroundContext()
        let cases: [([String: any AttributeValue], String)] = [
            (["text": "x", "date": Date(), "mood": 1], "mood"),
            (["text": 3, "date": Date()], "text"),
            (["date": Date()], "text"),
            (["text": "x", "date": Date(), "country": "France"], "country")
        ]
        for (row, property) in cases {
            let error = #expect(throws: ObjectGraphError.self) {
                try context.batchInsert(Mood.self, values: [["text": "fine", "date": Date()], row])
            }
            #expect(error == .invalidBatchOperation(entity: "Mood", property: property, reason: reason(of: error)))
            #expect(reason(of: error).hasPrefix("row 1:"))
        }
        let duplicate = #expect(throws: ObjectGraphError.self) {
            try context.batchInsert(
                Mood.self,
                values: [
                    ["text": "a", "date": Date(), "remoteIdentifier": "same"],
                    ["text": "b", "date": Date(), "remoteIdentifier": "same"]
                ])
        }
        guard let thrown = duplicate, thrown.code == .validationFailed, case let failures = thrown.validationFailures else {
            Issue.record("expected a uniqueness failure, got \(String(describing: duplicate))")
            return
        }
        #expect(failures.map(\.reason) == [.notUnique(.text("same"))])
        #expect(try context.fetchCount(FetchDescriptor<Mood>()) == 0)
    }

    @Test func aBatchInsertFromObjects() throws {
        let context = try makeContainer().newBackgroundContext()
        let ids = try context.batchInsert([Mood(text: "one", rating: 5), Mood(text: "two")])
        #expect(try ids.map { try context.existingObject(with: $0, as: Mood.self).text } == ["one", "two"])
        let related = Mood(text: "linked", country: Country(name: "France"))
        #expect(throws: ObjectGraphError.self) { try context.batchInsert([related]) }
        let inserted = Mood(text: "in a context")
        context.insert(inserted)
        #expect(throws: ObjectGraphError.self) { try context.batchInsert([inserted]) }
    }

    private func reason(of error: ObjectGraphError?) -> String {
        if let thrown = error, thrown.code == .invalidBatchOperation, let reason = thrown.reason { return reason }
        return ""
    }
}
