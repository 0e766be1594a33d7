import Foundation
import GRDB
import MoodyModel
import ObjectGraph
import Testing

/// Two-step deletion, seed 001 (issue 12, points 1 to 3 and 7).
@Suite struct DelayedDeletionTests {
    private func savedMoods(_ texts: [String], in context: ObjectContext) throws -> [Mood] {
        let (_, france, _) = try makeEurope(in: context)
        let moods = texts.map { Mood(text: $0, country: france) }
        for mood in moods { context.insert(mood) }
        try context.save()
        return moods
    }

    @Test func markingKeepsTheFirstDate() throws {
        let context = try makeContainer().newBackgroundContext()
        let mood = try #require(try savedMoods(["Sunny"], in: context).first)
        let first = Date(timeIntervalSince1970: 1_000_000)
        mood.markForLocalDeletion(at: first)
        mood.markForLocalDeletion(at: Date())
        #expect(mood.markedForDeletionDate == first)
        try context.save()
        mood.markForLocalDeletion()
        #expect(mood.markedForDeletionDate == first)
        #expect(mood.isMarkedForDeletion)
        #expect(!mood.hasChanges)
    }

    @Test func theReadyPredicateAgreesInSQLAndInMemory() throws {
        let context = try makeContainer().newBackgroundContext()
        let moods = try savedMoods(["a", "b", "c"], in: context)
        moods[1].markForLocalDeletion()
        try context.save()
        moods[2].markForLocalDeletion()  // unsaved
        let predicate = Mood.notMarkedForLocalDeletionPredicate
        let inMemory = try moods.filter { try predicate.evaluate($0) }.map(\.text)
        let fetched = try context.fetch(
            FetchDescriptor(
                predicate: predicate, sortBy: [SortDescriptor(\.text)],
                includesMarkedForDeletion: true)
        ).map(\.text)
        #expect(inMemory == ["a"])
        #expect(fetched == inMemory)
    }

    /// Seed 001's "remove from continent": `changedForDelayedDeletion` is true in the save that marks.
    @Test func willSaveSeesTheMarkOnceAndPropagatesByHand() throws {
        let container = try ObjectContainer(for: MarkableCountry.self, configuration: .inMemory)
        let context = container.newBackgroundContext()
        let europe = MarkableContinent(name: "Europe")
        let france = MarkableCountry(name: "France", continent: europe)
        context.insert(france)
        try context.save()
        #expect(france.timesSeenChangedForDelayedDeletion == 0)
        #expect(europe.countries == [france])

        france.markForLocalDeletion()
        try context.save()
        #expect(france.timesSeenChangedForDelayedDeletion == 1)
        #expect(france.continent == nil)
        #expect(europe.countries.isEmpty)

        france.name = "République française"  // a later save of the marked object
        try context.save()
        #expect(france.timesSeenChangedForDelayedDeletion == 1)

        let reread = try #require(try container.newBackgroundContext().fetch(FetchDescriptor<MarkableContinent>()).first)
        #expect(reread.countries.isEmpty)
    }

    /// A fault's mark cannot have changed in memory: asking does not load it. (Every country whose
    /// `moods` a deletion changes goes through `willSave`; loading each would cost a query apiece.)
    @Test func askingAFaultWhetherItWasJustMarkedLeavesItAFault() throws {
        let container = try makeContainer()
        let moods = try savedMoods(["a", "b"], in: container.newBackgroundContext())
        let context = container.newBackgroundContext()
        let mood = try context.existingObject(with: moods[0].objectID, as: Mood.self)
        let country = try #require(mood.country)
        #expect(country.isFault)
        #expect(!country.changedForDelayedDeletion)
        context.delete(mood)
        try context.save()  // Country.willSave asks
        #expect(country.isFault)
    }

    @Test func aCascadeMarksTheRelatedObjects() throws {
        let container = try ObjectContainer(for: Folder.self, configuration: .inMemory)
        let context = container.newBackgroundContext()
        let folder = Folder(name: "Drafts")
        let documents = [Document(title: "One", folder: folder), Document(title: "Two", folder: folder)]
        for document in documents { context.insert(document) }
        context.insert(folder)
        try context.save()
        let date = Date(timeIntervalSince1970: 2_000_000)
        folder.markForLocalDeletion(at: date)
        #expect(documents.map(\.markedForDeletionDate) == [date, date])
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Document>()) == 0)
        #expect(try context.fetchCount(FetchDescriptor<Document>(includesMarkedForDeletion: true)) == 2)
    }

    @Test func aDenyRuleRefusesTheMarkAtSave() throws {
        let container = try ObjectContainer(for: Folder.self, configuration: .inMemory)
        let context = container.newBackgroundContext()
        let folder = Folder(name: "Shared")
        let lock = Lock(owner: "Ann", folder: folder)
        context.insert(lock)
        context.insert(folder)
        try context.save()
        folder.markForLocalDeletion()
        let error = #expect(throws: ObjectGraphError.self) { try context.save() }
        guard let thrown = error, thrown.code == .validationFailed, case let failures = thrown.validationFailures else {
            Issue.record("expected a validation failure, got \(String(describing: error))")
            return
        }
        #expect(failures.map(\.property) == ["locks"])
        #expect(failures.map(\.reason) == [.deleteDenied(count: 1)])
        context.rollback()
        context.delete(lock)
        folder.markForLocalDeletion()
        try context.save()
    }

    @Test func anEntityMustStoreItsMark() {
        let message = invalidModelMessage { _ = try ObjectContainer(for: UnstoredMark.self, configuration: .inMemory) }
        #expect(message?.contains("UnstoredMark adopts DelayedDeletable") == true)
    }

    // MARK: Hidden everywhere

    @Test func fetchesHideMarkedObjectsSavedOrNot() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let moods = try savedMoods(["a", "b", "c"], in: context)
        moods[0].markForLocalDeletion()
        try context.save()
        moods[1].markForLocalDeletion()  // unsaved
        let sorted = [SortDescriptor(\Mood.text)]
        #expect(try context.fetch(FetchDescriptor<Mood>(sortBy: sorted)).map(\.text) == ["c"])
        #expect(try context.fetchCount(FetchDescriptor<Mood>()) == 1)
        #expect(try context.fetchIdentifiers(FetchDescriptor<Mood>()) == [moods[2].objectID])
        let all = FetchDescriptor<Mood>(sortBy: sorted, includesMarkedForDeletion: true)
        #expect(try context.fetch(all).map(\.text) == ["a", "b", "c"])
        #expect(try context.fetchCount(all) == 3)
        // Another context sees the saved mark only.
        let other = container.newBackgroundContext()
        #expect(try other.fetch(FetchDescriptor<Mood>(sortBy: sorted)).map(\.text) == ["b", "c"])
    }

    @Test func relationshipReadsHideMarkedObjects() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let moods = try savedMoods(["a", "b"], in: context)
        let france = try #require(moods[0].country)
        moods[0].markForLocalDeletion()
        #expect(france.moods == [moods[1]])  // unsaved mark
        #expect(france.count(of: \.moods) == 1)
        try context.save()

        // A context that never loaded the moods: the store's marks hide them.
        let other = container.newBackgroundContext()
        let otherFrance = try #require(try other.fetch(FetchDescriptor<Country>(predicate: #Predicate { $0.name == "France" })).first)
        #expect(otherFrance.moods.map(\.text) == ["b"])
        #expect(otherFrance.count(of: \.moods) == 1)

        // An object inserted already marked is hidden; clearing a saved mark shows it at once.
        let late = Mood(text: "late")
        late.markedForDeletionDate = Date()
        other.insert(late)
        late.country = otherFrance
        #expect(otherFrance.moods.map(\.text) == ["b"])
        #expect(otherFrance.count(of: \.moods) == 1)
        try other.existingObject(with: moods[0].objectID, as: Mood.self).markedForDeletionDate = nil
        #expect(otherFrance.moods.map(\.text).sorted() == ["a", "b"])
        #expect(otherFrance.count(of: \.moods) == 2)
        other.rollback()
        #expect(otherFrance.moods.map(\.text) == ["b"])

        // A to-one pointing to a marked object reads as empty.
        let spain = try #require(try context.fetch(FetchDescriptor<Country>(predicate: #Predicate { $0.name == "Spain" })).first)
        let tapas = Mood(text: "Tapas", country: spain)
        context.insert(tapas)
        try context.save()
        spain.markForLocalDeletion()
        #expect(tapas.country == nil)
        try context.save()
        let otherTapas = try #require(try other.fetch(FetchDescriptor<Mood>(predicate: #Predicate { $0.text == "Tapas" })).first)
        #expect(otherTapas.country == nil)
    }

    /// SQL reads through a relationship as Swift does: a to-one pointing to a marked object is nil,
    /// a to-many leaves its marked members out, in predicates and in sorts, saved or not.
    @Test func predicatesAndSortsThroughRelationshipsHideMarkedObjectsAsSwiftDoes() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let (_, france, spain) = try makeEurope(in: context)
        let albania = Country(name: "Albania")
        context.insert(albania)
        let moods = [("a", france), ("b", spain), ("c", spain), ("x", albania)].map { Mood(text: $0.0, country: $0.1) }
        for mood in moods { context.insert(mood) }
        try context.save()
        france.markForLocalDeletion()
        moods[2].markForLocalDeletion()
        try context.save()

        let reader = container.newBackgroundContext()  // reads what the store says
        let franceID = france.objectID
        let predicates: [Predicate<Mood>] = [
            #Predicate { $0.country == nil },
            #Predicate { $0.country != nil },
            #Predicate { $0.country?.name == "France" },
            #Predicate { $0.country?.objectID == franceID },
            #Predicate { $0.country?.objectID != franceID }
        ]
        let all = try reader.fetch(FetchDescriptor<Mood>(sortBy: [SortDescriptor(\.text)], includesMarkedForDeletion: true))
        for predicate in predicates {
            let request = FetchDescriptor(predicate: predicate, sortBy: [SortDescriptor(\.text)], includesMarkedForDeletion: true)
            let inSwift = try all.filter { try predicate.evaluate($0) }.map(\.text)
            #expect(try reader.fetch(request).map(\.text) == inSwift, "\(predicate)")
        }
        #expect(try reader.fetch(FetchDescriptor<Mood>(predicate: #Predicate { $0.country == nil })).map(\.text) == ["a"])

        let countries = try reader.fetch(FetchDescriptor<Country>(sortBy: [SortDescriptor(\.name)], includesMarkedForDeletion: true))
        for predicate: Predicate<Country> in [
            #Predicate { $0.moods.count == 1 }, #Predicate { $0.moods.isEmpty },
            #Predicate { $0.moods.contains { $0.text == "c" } }
        ] {
            let request = FetchDescriptor(predicate: predicate, sortBy: [SortDescriptor(\.name)], includesMarkedForDeletion: true)
            let inSwift = try countries.filter { try predicate.evaluate($0) }.map(\.name)
            #expect(try reader.fetch(request).map(\.name) == inSwift, "\(predicate)")
        }

        // A sort by the marked country's name sorts as nil, first (not between Albania and Spain).
        let byCountry = FetchDescriptor<Mood>(
            sortBy: [SortDescriptor(\.country?.name), SortDescriptor(\.text)],
            includesMarkedForDeletion: true)
        #expect(try reader.fetch(byCountry).map(\.text) == ["a", "x", "b", "c"])
        let spanish = try reader.existingObject(with: moods[1].objectID, as: Mood.self)
        spanish.text = "z"  // unsaved: merged in memory, where the sort must agree with the store's
        #expect(try reader.fetch(byCountry).map(\.text) == ["a", "x", "c", "z"])
        withExtendedLifetime(spain) {}
    }

    /// A context reads the store's marks once, and tests each member against them: whether the
    /// marked rows are a few far apart or many close together, the same members are hidden.
    @Test func hidingFollowsTheStoredMarksWhateverTheirSpread() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let moods = try savedMoods((0..<1_500).map { "mood \($0)" }, in: context)
        func visibleInAFreshContext() throws -> (count: Int, texts: Set<String>) {
            let reader = container.newBackgroundContext()
            let france = try #require(try reader.fetch(FetchDescriptor<Country>(predicate: #Predicate { $0.name == "France" })).first)
            return (france.count(of: \.moods), Set(france.moods.map(\.text)))
        }
        for mood in [moods[0], moods[1_499]] { mood.markForLocalDeletion() }  // two keys far apart
        try context.save()
        var visible = try visibleInAFreshContext()
        #expect(visible.count == 1_498)
        #expect(visible.texts == Set(moods[1..<1_499].map(\.text)))

        for mood in moods[500..<800] { mood.markForLocalDeletion() }  // many keys close together
        try context.save()
        visible = try visibleInAFreshContext()
        #expect(visible.count == 1_198)
        #expect(visible.texts == Set((moods[1..<500] + moods[800..<1_499]).map(\.text)))
    }

    @Test func anObserverReportsAMarkAsADeletion() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let mood = try #require(try savedMoods(["Sunny"], in: context).first)
        var changes: [ObjectObserver<Mood>.Change] = []
        let observer = ObjectObserver(mood) { changes.append($0) }
        // Marked by another context: the merge tells the observer.
        let other = container.newBackgroundContext()
        try other.existingObject(with: mood.objectID, as: Mood.self).markForLocalDeletion()
        try other.save()
        context.processPendingChanges()
        #expect(changes == [.delete])
        withExtendedLifetime(observer) {}
    }

    /// The seed's workflow end to end, with Moody's rules: the last mood marked marks its country,
    /// which marks its continent; the clean-up deletes the three rows once the delay has passed.
    @Test func cleanUpDeletesWhatWasMarkedBeforeTheCutoff() throws {
        // Moody's rules mark a country whose last mood is marked, and its continent likewise.
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let moods = try savedMoods(["old", "recent"], in: context)
        let france = try #require(moods[0].country)
        let europe = try #require(france.continent)
        let spain = try #require(try context.fetch(FetchDescriptor<Country>(predicate: #Predicate { $0.name == "Spain" })).first)
        moods[0].markForLocalDeletion(at: Date(timeIntervalSinceNow: -180))
        try context.save()
        #expect(france.markedForDeletionDate == nil)  // "recent" is still visible in France
        moods[1].markForLocalDeletion(at: Date(timeIntervalSinceNow: -60))
        spain.markForLocalDeletion(at: Date(timeIntervalSinceNow: -180))
        try context.save()
        #expect(france.markedForDeletionDate != nil)
        #expect(europe.markedForDeletionDate != nil)

        let first = try Mood.batchDeleteMarkedObjects(in: context)  // two minutes by default
        #expect(first == [moods[0].objectID])
        #expect(moods[0].isDeleted)
        #expect(!moods[1].isDeleted)

        let all = try context.deleteMarkedObjects(markedBefore: Date())
        #expect(all == [moods[1].objectID, france.objectID, spain.objectID, europe.objectID])
        #expect(try context.fetchCount(FetchDescriptor<Mood>(includesMarkedForDeletion: true)) == 0)
        #expect(try context.fetchCount(FetchDescriptor<Country>(includesMarkedForDeletion: true)) == 0)
        #expect(try context.fetchCount(FetchDescriptor<Continent>(includesMarkedForDeletion: true)) == 0)
    }

    /// Most rows are never marked: the mark's index holds the marked rows only, so that inserting or
    /// deleting an unmarked row does not write to it, and the clean-up's query still finds them by date.
    @Test func theMarkIndexHoldsOnlyMarkedRows() throws {
        let path = temporaryStorePath()
        do {
            let container = try ObjectContainer(for: Mood.self, configuration: .file(path))
            let context = container.newBackgroundContext()
            let moods = try savedMoods(["a", "b", "c"], in: context)
            moods[0].markForLocalDeletion()
            try context.save()
        }
        let database = try DatabaseQueue(path: path)
        try database.read { db in
            let partial = try Row.fetchAll(db, sql: "PRAGMA index_list(\"Mood\")").filter { $0["partial"] == 1 }
            let columns = try partial.map { index in
                try String.fetchAll(db, sql: "SELECT name FROM pragma_index_info(?)", arguments: [index["name"] as String])
            }
            #expect(columns == [["markedForDeletionDate"]])
            let name = try #require(partial.first.map { $0["name"] as String })
            #expect(
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \"Mood\" INDEXED BY \"\(name)\" WHERE markedForDeletionDate IS NOT NULL")
                    == 1)
            let plan = try String.fetchAll(
                db, sql: "EXPLAIN QUERY PLAN SELECT Z_PK FROM \"Mood\" WHERE markedForDeletionDate < ?",
                arguments: [Date().timeIntervalSince1970], adapter: SuffixRowAdapter(fromIndex: 3))
            #expect(plan.contains { $0.contains("markedForDeletionDate") })
        }
    }
}
