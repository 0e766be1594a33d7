import Foundation
import MoodyModel
import ObjectGraph
import Testing

@Suite struct FetchTests {
    /// Five moods in France and Spain, saved.
    private func seeded() throws -> (ObjectContainer, ObjectContext) {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let france = Country(name: "France"), spain = Country(name: "Spain")
        context.insert(france)
        context.insert(spain)
        for (index, rating) in [1, 4, 5, 2, 4].enumerated() {
            let mood = Mood(
                text: "mood \(index)", rating: rating, date: Date(timeIntervalSince1970: Double(index)),
                country: index.isMultiple(of: 2) ? france : spain)
            context.insert(mood)
        }
        try context.save()
        return (container, context)
    }

    @Test func predicateSortLimitAndOffset() throws {
        let (_, context) = try seeded()
        var request = FetchDescriptor<Mood>(
            predicate: #Predicate { $0.rating > 3 && $0.markedForDeletionDate == nil },
            sortBy: [SortDescriptor(\.date, order: .reverse)])
        #expect(try context.fetch(request).map(\.text) == ["mood 4", "mood 2", "mood 1"])
        request.fetchLimit = 1
        request.fetchOffset = 1
        #expect(try context.fetch(request).map(\.text) == ["mood 2"])
        #expect(try context.fetchCount(FetchDescriptor<Mood>(predicate: #Predicate { $0.rating <= 2 })) == 2)
    }

    @Test func toOneKeyPathsStringsAndMembership() throws {
        let (_, context) = try seeded()
        let inFrance = try context.fetch(FetchDescriptor<Mood>(predicate: #Predicate { $0.country?.name == "France" }))
        #expect(Set(inFrance.map(\.text)) == ["mood 0", "mood 2", "mood 4"])
        let startsWith = try context.fetch(FetchDescriptor<Country>(predicate: #Predicate { $0.name.starts(with: "Fr") }))
        #expect(startsWith.map(\.name) == ["France"])
        let contains = try context.fetch(FetchDescriptor<Country>(predicate: #Predicate { $0.name.contains("pai") }))
        #expect(contains.map(\.name) == ["Spain"])
        let caseless = try context.fetch(FetchDescriptor<Country>(predicate: #Predicate { $0.name.localizedStandardContains("FRAN") }))
        #expect(caseless.map(\.name) == ["France"])
        let names = ["mood 1", "mood 3"]
        let member = try context.fetch(FetchDescriptor<Mood>(predicate: #Predicate { names.contains($0.text) }))
        #expect(Set(member.map(\.text)) == Set(names))
        let notFrance = try context.fetch(
            FetchDescriptor<Mood>(predicate: #Predicate { !($0.country?.name == "France") || $0.rating == 1 }))
        #expect(Set(notFrance.map(\.text)) == ["mood 0", "mood 1", "mood 3"])
    }

    @Test func toManyCountAndContainsWhere() throws {
        let (_, context) = try seeded()
        let busy = try context.fetch(FetchDescriptor<Country>(predicate: #Predicate { $0.moods.count > 2 }))
        #expect(busy.map(\.name) == ["France"])
        let happy = try context.fetch(FetchDescriptor<Country>(predicate: #Predicate { $0.moods.contains { $0.rating == 5 } }))
        #expect(happy.map(\.name) == ["France"])
    }

    /// Objects the sort finds equal come in the store's order, as SQL gives them, whether or not they
    /// have unsaved changes (a changed object used to come after every unchanged one).
    @Test func tiesAmongUnsavedChangesKeepTheStoresOrder() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let moods = ["a", "b", "c"].map { Mood(text: $0, rating: 3) }
        for mood in moods { context.insert(mood) }
        try context.save()
        moods[0].text = "a, edited"  // unsaved; its rating still ties with the others
        let fetched = try context.fetch(FetchDescriptor<Mood>(sortBy: [SortDescriptor(\.rating)]))
        #expect(fetched.map(\.objectID) == moods.map(\.objectID))
        let unsaved = Mood(text: "d", rating: 3)
        context.insert(unsaved)
        let withInsert = try context.fetch(FetchDescriptor<Mood>(sortBy: [SortDescriptor(\.rating)]))
        #expect(withInsert.map(\.objectID) == moods.map(\.objectID) + [unsaved.objectID])
    }

    /// A predicate or sort that reads related objects sees their unsaved changes, as a list monitor
    /// and Swift's own evaluation do (SQL alone would read the related rows' saved values).
    @Test func unsavedChangesOfRelatedObjectsAreReflected() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let (europe, france, spain) = try makeEurope(in: context)
        let french = Mood(text: "a", country: france)
        let spanish = Mood(text: "b", country: spain)
        for mood in [french, spanish] { context.insert(mood) }
        try context.save()
        let inEurope = FetchDescriptor<Mood>(
            predicate: #Predicate { $0.country?.continent?.name == "Europe" },
            sortBy: [SortDescriptor(\.text)])
        europe.name = "Eurasia"
        #expect(try context.fetch(inEurope).isEmpty)
        #expect(try context.fetchCount(inEurope) == 0)
        let asia = Continent(name: "Europe")  // the name is free in memory; the store still has it
        context.insert(asia)
        spain.continent = asia
        #expect(try context.fetch(inEurope).map(\.text) == ["b"])

        let byCountry = FetchDescriptor<Mood>(sortBy: [SortDescriptor(\.country?.name)])
        france.name = "Zimbabwe"
        #expect(try context.fetch(byCountry).map(\.text) == ["b", "a"])
        #expect(try context.fetchIdentifiers(byCountry) == [spanish.objectID, french.objectID])
    }

    @Test func pendingChangesAreReflected() throws {
        let (_, context) = try seeded()
        let request = FetchDescriptor<Mood>(predicate: #Predicate { $0.rating > 3 }, sortBy: [SortDescriptor(\.date)])
        let inserted = Mood(text: "new", rating: 5, date: Date(timeIntervalSince1970: 100))
        context.insert(inserted)
        let lowered = try #require(context.fetch(request).first { $0.text == "mood 1" })
        lowered.rating = 1
        let deleted = try #require(context.fetch(request).first { $0.text == "mood 2" })
        context.delete(deleted)
        #expect(try context.fetch(request).map(\.text) == ["mood 4", "new"])
        #expect(try context.fetchCount(request) == 2)
        var ignoring = request
        ignoring.includesPendingChanges = false
        #expect(try context.fetch(ignoring).map(\.text) == ["mood 1", "mood 2", "mood 4"])
    }

    @Test func batchedResultsLoadAsAccessed() throws {
        let (_, context) = try seeded()
        let request = FetchDescriptor<Mood>(sortBy: [SortDescriptor(\.date)], fetchBatchSize: 2)
        let results = try context.fetch(request)
        #expect(results.count == 5)
        #expect(results.map(\.text) == (0..<5).map { "mood \($0)" })
        #expect(try context.fetchIdentifiers(request).count == 5)
    }

    @Test func batchRowsDeletedAfterTheFetchReadAsDeleted() throws {
        let (container, context) = try seeded()
        let reader = container.newBackgroundContext()
        let results = try reader.fetch(FetchDescriptor<Mood>(sortBy: [SortDescriptor(\.date)], fetchBatchSize: 3))
        // Another context deletes two moods of the first batch before the reader touches it.
        for mood in try context.fetch(FetchDescriptor<Mood>(predicate: #Predicate { $0.text == "mood 1" || $0.text == "mood 2" })) {
            context.delete(mood)
        }
        try context.save()
        #expect(results.count == 5)
        // Kept, because a batch's objects nobody holds are made again when their batch is reloaded.
        let moods = Array(results)
        // The vanished rows are faults; reading them gives default values and marks them deleted.
        #expect(moods.map(\.text) == ["mood 0", "", "", "mood 3", "mood 4"])
        #expect(moods.map(\.isDeleted) == [false, true, true, false, false])
        #expect(moods[0].rating == 1)
    }

    @Test func untranslatablePredicateIsATypedError() throws {
        let (_, context) = try seeded()
        let request = FetchDescriptor<Mood>(predicate: #Predicate { $0.text.count > 2 && $0.date.timeIntervalSince1970 > 0 })
        #expect {
            try context.fetch(request)
        } throws: { error in
            guard let thrown = error as? ObjectGraphError, thrown.code == .unsupportedPredicate, let entity = thrown.entity,
                let construct = thrown.reason
            else { return false }
            return entity == "Mood" && construct.contains("a value of type Date")
        }
    }
}

@Suite struct SortTests {
    @Test func sortByAnAttributeOfAToOneRelationship() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let peru = Country(name: "Peru"), chile = Country(name: "Chile")
        context.insert(peru)
        context.insert(chile)
        for (text, country) in [("p1", peru), ("c1", chile), ("none", nil), ("p2", peru)] {
            context.insert(Mood(text: text, date: Date(timeIntervalSince1970: 0), country: country))
        }
        try context.save()
        let reader = container.newBackgroundContext()
        let request = FetchDescriptor<Mood>(sortBy: [SortDescriptor(\.country?.name), SortDescriptor(\.text, order: .reverse)])
        // No country sorts first, as nil does in Swift.
        #expect(try reader.fetch(request).map(\.text) == ["none", "c1", "p2", "p1"])
        // The same order in memory, with an unsaved change included.
        let unsaved = Mood(text: "c0", date: Date(), country: try reader.existingObject(with: chile.objectID, as: Country.self))
        reader.insert(unsaved)
        #expect(try reader.fetch(request).map(\.text) == ["none", "c1", "c0", "p2", "p1"])
    }

    /// A key path to a related attribute that names it through other accessors than the model's (an
    /// optimized build of another module compiles `\Mood.country?.name` so) sorts the same: it used
    /// to be refused, so `moody demo` failed in a release build.
    @Test func aSortByARelatedAttributeReachedThroughOtherAccessorsSortsTheSame() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let peru = Country(name: "Peru"), chile = Country(name: "Chile")
        for (text, country) in [("p1", peru), ("c1", chile), ("none", nil)] {
            context.insert(Mood(text: text, date: Date(timeIntervalSince1970: 0), country: country))
        }
        try context.save()
        let request = FetchDescriptor<Mood>(sortBy: [SortDescriptor(\.nameOfCountry), SortDescriptor(\.text)])
        #expect(try context.fetch(request).map(\.text) == ["none", "c1", "p1"])
        #expect(throws: ObjectGraphError.self) {
            try context.fetch(FetchDescriptor<Mood>(sortBy: [SortDescriptor(\.shoutedNameOfCountry)]))
        }
    }

    @Test func batchesOfASortedFetchKeepTheOrder() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let countries = ["Peru", "Chile", "Bolivia"].map { Country(name: $0) }
        for country in countries { context.insert(country) }
        // Keys interleave the countries, so each batch of a sort by country is scattered keys.
        for index in 0..<30 {
            context.insert(Mood(text: String(format: "m%02d", index), date: Date(), country: countries[index % 3]))
        }
        try context.save()
        let reader = container.newBackgroundContext()
        var request = FetchDescriptor<Mood>(sortBy: [SortDescriptor(\.country?.name), SortDescriptor(\.text)])
        let expected = try reader.fetch(request).map(\.text)
        request.fetchBatchSize = 4
        let batched = try reader.fetch(request)
        #expect(batched.map(\.text) == expected)
        #expect(batched.first?.country?.name == "Bolivia")
        #expect(batched.count == 30)
    }
}

extension Mood {
    /// The country's name through an accessor of its own.
    fileprivate var nameOfCountry: String? { country?.name }
    /// Not a stored value of any object: no SQL can sort by it.
    fileprivate var shoutedNameOfCountry: String? { country?.name.uppercased() }
}
