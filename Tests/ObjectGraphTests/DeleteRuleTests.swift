import Foundation
import MoodyModel
import ObjectGraph
import Testing

/// The delete rules of seed 002 on the Europe / France / Spain example, and the seeds' custom rules.
@Suite struct DeleteRuleTests {
    private func container() throws -> ObjectContainer {
        try ObjectContainer(
            for: Mood.self, CascadingContinent.self, DenyingContinent.self, LooseContinent.self,
            RingLink.self, configuration: .inMemory)
    }

    private func names<T: Entity>(_ objects: some Sequence<T>, _ name: KeyPath<T, String>) -> [String] {
        objects.map { $0[keyPath: name] }.sorted()
    }

    // MARK: Nullify

    @Test func nullifyTakesTheCountryOutOfItsContinent() throws {
        let container = try container()
        let context = container.newBackgroundContext()
        let (europe, france, spain) = try makeEurope(in: context)
        context.delete(france)
        #expect(france.isDeleted)
        #expect(!europe.isDeleted)
        #expect(europe.countries == [spain])
        try context.save()

        let reader = container.newBackgroundContext()
        let continents = try reader.fetch(FetchDescriptor<Continent>())
        #expect(continents.map(\.name) == ["Europe"])
        #expect(names(continents[0].countries, \.name) == ["Spain"])
    }

    // MARK: Cascade

    /// Europe with France (Paris, Lyon) and Spain (Madrid), saved.
    private func cascadingEurope(in context: ObjectContext) throws -> CascadingContinent {
        let europe = CascadingContinent(name: "Europe")
        let france = CascadingCountry(name: "France", continent: europe)
        let spain = CascadingCountry(name: "Spain", continent: europe)
        for object in [france, spain] { context.insert(object) }
        for (city, country) in [("Paris", france), ("Lyon", france), ("Madrid", spain)] {
            context.insert(CascadingCity(name: city, country: country))
        }
        try context.save()
        return europe
    }

    @Test func cascadeDeletesEveryLevelAtOnce() throws {
        let container = try container()
        let context = container.newBackgroundContext()
        let europe = try cascadingEurope(in: context)
        let countries = Array(europe.countries)
        let cities = countries.flatMap(\.cities)
        context.delete(europe)
        // Consistent as soon as `delete` returns.
        #expect(countries.allSatisfy { $0.isDeleted })
        #expect(cities.count == 3 && cities.allSatisfy { $0.isDeleted })
        #expect(countries.allSatisfy { $0.timesPreparedForDeletion == 1 })
        #expect(context.deletedObjects.count == 6)
        try context.save()

        let reader = container.newBackgroundContext()
        #expect(try reader.fetchCount(FetchDescriptor<CascadingContinent>()) == 0)
        #expect(try reader.fetchCount(FetchDescriptor<CascadingCountry>()) == 0)
        #expect(try reader.fetchCount(FetchDescriptor<CascadingCity>()) == 0)
    }

    @Test func cascadeFromAFreshContextLoadsWhatItDeletes() throws {
        let container = try container()
        _ = try cascadingEurope(in: container.newBackgroundContext())
        // Nothing of the graph is in memory: the rules must load the continent's countries and theirs.
        let context = container.newBackgroundContext()
        let europe = try #require(try context.fetch(FetchDescriptor<CascadingContinent>()).first)
        context.delete(europe)
        #expect(context.deletedObjects.count == 6)
        try context.save()
        #expect(try container.newBackgroundContext().fetchCount(FetchDescriptor<CascadingCity>()) == 0)
    }

    @Test func aCycleOfCascadesEndsAndDeletesEachObjectOnce() throws {
        let container = try container()
        let context = container.newBackgroundContext()
        let links = ["a", "b", "c"].map(RingLink.init)
        for link in links { context.insert(link) }
        for (index, link) in links.enumerated() { link.next = links[(index + 1) % links.count] }
        #expect(links.map { $0.previous?.name } == ["c", "a", "b"])
        try context.save()

        // Each link is reached twice: as the next of one link and the previous of another.
        context.delete(links[0])
        #expect(links.allSatisfy { $0.isDeleted })
        #expect(links.map(\.timesPreparedForDeletion) == [1, 1, 1])
        try context.save()
        #expect(try container.newBackgroundContext().fetchCount(FetchDescriptor<RingLink>()) == 0)
    }

    // MARK: Deny

    @Test func denyRefusesTheSaveNamingObjectRelationshipAndCount() throws {
        let container = try container()
        let context = container.newBackgroundContext()
        let europe = DenyingContinent(name: "Europe")
        let france = DeniedCountry(name: "France", continent: europe)
        let spain = DeniedCountry(name: "Spain", continent: europe)
        for object in [france, spain] { context.insert(object) }
        try context.save()

        context.delete(europe)
        #expect(europe.isDeleted)  // allowed in memory
        #expect(europe.countries.count == 2)
        #expect {
            try context.save()
        } throws: { error in
            guard let thrown = error as? ObjectGraphError, thrown.code == .validationFailed, case let failures = thrown.validationFailures,
                failures.count == 1
            else { return false }
            let failure = failures[0]
            guard case .deleteDenied(let count) = failure.reason else { return false }
            return failure.entity == "DenyingContinent" && failure.objectID == europe.objectID
                && failure.property == "countries" && count == 2
                && failure.description.contains("countries") && failure.description.contains("2")
        }
        // Nothing was written.
        let reader = container.newBackgroundContext()
        #expect(try reader.fetchCount(FetchDescriptor<DenyingContinent>()) == 1)
        #expect(try reader.fetchCount(FetchDescriptor<DeniedCountry>()) == 2)

        // With its countries deleted first, the continent goes.
        context.delete(france)
        context.delete(spain)
        try context.save()
        #expect(try reader.fetchCount(FetchDescriptor<DenyingContinent>()) == 0)
        #expect(try reader.fetchCount(FetchDescriptor<DeniedCountry>()) == 0)
    }

    /// The deny is the cause: a related object changed in the same save, which still points to the
    /// refused deletion, is not reported before it (issue 26, point 4).
    @Test func aDenyIsReportedAsTheCauseNotAfterItsConsequences() throws {
        let container = try container()
        let context = container.newBackgroundContext()
        let europe = DenyingContinent(name: "Europe")
        let france = DeniedCountry(name: "France", continent: europe)
        context.insert(france)
        try context.save()

        france.name = "République française"  // a change of the related object, in the same save
        context.delete(europe)
        let error = #expect(throws: ObjectGraphError.self) { try context.save() }
        guard let thrown = error, thrown.code == .validationFailed, case let failures = thrown.validationFailures else {
            Issue.record("expected validationFailed, got \(String(describing: error))")
            return
        }
        #expect(failures.count == 1, "\(failures)")
        guard case .deleteDenied(let count)? = failures.first?.reason else {
            Issue.record("expected the deny first, got \(failures)")
            return
        }
        #expect(count == 1 && failures.first?.objectID == europe.objectID)
    }

    @Test func denyCountsOnlyTheRelatedObjectsThatStay() throws {
        let container = try container()
        let context = container.newBackgroundContext()
        let europe = DenyingContinent(name: "Europe")
        let france = DeniedCountry(name: "France", continent: europe)
        context.insert(france)
        context.insert(DeniedCountry(name: "Spain", continent: europe))
        try context.save()
        context.delete(france)
        context.delete(europe)
        #expect {
            try context.save()
        } throws: { error in
            guard let thrown = error as? ObjectGraphError, thrown.code == .validationFailed,
                case .deleteDenied(let count)? = thrown.validationFailures.first?.reason
            else { return false }
            return count == 1
        }
    }

    // MARK: No action

    @Test func noActionLeavesADanglingReferenceThatReadsAsDeleted() throws {
        let container = try container()
        let context = container.newBackgroundContext()
        let europe = LooseContinent(name: "Europe")
        let france = LooseCountry(name: "France", continent: europe)
        context.insert(france)
        try context.save()

        context.delete(europe)
        // France still points to Europe, which reads as the deleted object it is.
        #expect(france.continent === europe)
        #expect(france.continent?.isDeleted == true)
        #expect(!france.hasChanges)
        try context.save()

        // In the store, France's link now names a row that does not exist: reading it gives an object
        // marked deleted, with default values.
        let reader = container.newBackgroundContext()
        let stored = try #require(try reader.fetch(FetchDescriptor<LooseCountry>()).first)
        let dangling = try #require(stored.continent)
        #expect(dangling.name == "")
        #expect(dangling.isDeleted)
        // Its countries are the rows that still point to it.
        #expect(dangling.countries.map(\.name) == ["France"])
    }

    @Test func noActionOnAToManyKeepsTheDeletedMember() throws {
        let container = try container()
        let context = container.newBackgroundContext()
        let europe = LooseContinent(name: "Europe")
        let france = LooseCountry(name: "France", continent: europe)
        context.insert(france)
        try context.save()
        context.delete(france)
        #expect(europe.countries == [france])
        #expect(europe.countries.first?.isDeleted == true)
        #expect(!europe.hasChanges)
    }

    // MARK: Rollback

    @Test func rollbackRestoresWhatNullifyChanged() throws {
        let container = try container()
        let context = container.newBackgroundContext()
        let (europe, france, spain) = try makeEurope(in: context)
        context.delete(france)
        context.rollback()
        #expect(!france.isDeleted)
        #expect(europe.countries == [france, spain])
        #expect(france.continent === europe)
        #expect(!context.hasChanges)
        try context.save()
        #expect(try container.newBackgroundContext().fetchCount(FetchDescriptor<Country>()) == 2)
    }

    @Test func rollbackRestoresACascade() throws {
        let container = try container()
        let context = container.newBackgroundContext()
        let europe = try cascadingEurope(in: context)
        context.delete(europe)
        context.rollback()
        #expect(!europe.isDeleted)
        #expect(names(europe.countries, \.name) == ["France", "Spain"])
        let france = try #require(europe.countries.first { $0.name == "France" })
        #expect(!france.isDeleted && france.continent === europe)
        #expect(names(france.cities, \.name) == ["Lyon", "Paris"])
        #expect(france.cities.allSatisfy { !$0.isDeleted && $0.country === france })
        #expect(!context.hasChanges)
    }

    // MARK: The seeds' custom rules

    @Test func theLastMoodOfACountryTakesTheCountryWithIt() throws {
        let container = try container()
        let context = container.newBackgroundContext()
        let (europe, france, spain) = try makeEurope(in: context)
        let inFrance = Mood(text: "Croissant", country: france)
        let inSpain = [Mood(text: "Tapas", country: spain), Mood(text: "Siesta", country: spain)]
        for mood in [inFrance] + inSpain { context.insert(mood) }
        try context.save()

        // Spain keeps another mood, so it stays.
        context.delete(inSpain[0])
        #expect(!spain.isDeleted)
        // France loses its only mood, and goes; Europe keeps Spain, and stays.
        context.delete(inFrance)
        #expect(france.isDeleted)
        #expect(!europe.isDeleted)
        try context.save()

        let reader = container.newBackgroundContext()
        #expect(names(try reader.fetch(FetchDescriptor<Country>()), \.name) == ["Spain"])
        #expect(try reader.fetchCount(FetchDescriptor<Continent>()) == 1)
    }

    @Test func deletingOneMoodCanRemoveItsCountryAndContinentInOneSave() throws {
        let container = try container()
        let context = container.newBackgroundContext()
        _ = try makeEurope(in: context)
        let asia = Continent(name: "Asia")
        let japan = Country(name: "Japan", continent: asia)
        let mood = Mood(text: "Sakura", country: japan)
        context.insert(mood)
        try context.save()

        context.delete(mood)
        #expect(japan.isDeleted && asia.isDeleted)
        try context.save()

        let reader = container.newBackgroundContext()
        #expect(names(try reader.fetch(FetchDescriptor<Continent>()), \.name) == ["Europe"])
        #expect(names(try reader.fetch(FetchDescriptor<Country>()), \.name) == ["France", "Spain"])
    }

    @Test func countingARelationshipSkipsDeletedMembersAndMakesNoObjects() throws {
        let container = try container()
        let writer = container.newBackgroundContext()
        let france = Country(name: "France")
        for text in ["a", "b", "c"] { writer.insert(Mood(text: text, country: france)) }
        try writer.save()

        let context = container.newBackgroundContext()
        let country = try #require(try context.fetch(FetchDescriptor<Country>()).first)
        #expect(country.count(of: \.moods) == 3)
        #expect(context.registeredObjects.count == 1)  // the moods were counted, not made
        let mood = try #require(country.moods.first)
        context.delete(mood)
        #expect(country.count(of: \.moods) == 2)
        // Before insertion, the relationship as assigned.
        let spain = Country(name: "Spain")
        spain.moods = [Mood(text: "x"), Mood(text: "y")]
        #expect(spain.count(of: \.moods) == 2)
    }

    @Test func countsReadDuringADeletionPassFollowTheDeletionsMarksAndMembersAddedInIt() throws {
        let container = try ObjectContainer(for: CountedTeam.self, configuration: .inMemory)
        let writer = container.newBackgroundContext()
        let reds = CountedTeam(name: "Reds")
        for name in ["a", "b", "c", "d", "e", "f", "g"] { writer.insert(CountingPlayer(name: name, team: reds)) }
        try writer.save()

        let context = container.newBackgroundContext()
        var players: [String: CountingPlayer] = [:]
        for player in try context.fetch(FetchDescriptor<CountingPlayer>()) { players[player.name] = player }
        let (a, b, c, d, e) = try (
            #require(players["a"]), #require(players["b"]), #require(players["c"]), #require(players["d"]),
            #require(players["e"])
        )
        let newcomer = CountingPlayer(name: "h")
        context.insert(newcomer)
        a.deletes = c
        b.marks = d
        e.signs = newcomer
        // a, b and e are deleted before any of them is prepared: 4 of 7 are left.
        context.delete([a, b, e])

        #expect(a.countsSeen == [4, 3])  // c deleted
        #expect(b.countsSeen == [3, 2])  // d marked
        #expect(e.countsSeen == [2, 3])  // h signed
        #expect(c.countsSeen == [3, 3])  // prepared in the next wave
        try context.save()
        let reader = container.newBackgroundContext()
        let team = try #require(try reader.fetch(FetchDescriptor<CountedTeam>()).first)
        #expect(team.count(of: \.players) == 3)
        #expect(Set(team.players.map(\.name)) == ["f", "g", "h"])
    }

    // MARK: At scale

    /// The benchmark's graph (one continent, 1,000 countries), with 20 moods per country instead of 100.
    @Test func theBenchmarksGraphDeletesRollsBackAndCascades() throws {
        let container = try container()
        let writer = container.newBackgroundContext()
        let pangaea = Continent(name: "Pangaea")
        let countries = (0..<1_000).map { Country(name: "Country \($0)", continent: pangaea) }
        for index in 0..<20_000 {
            writer.insert(Mood(text: "Mood \(index)", country: countries[index % countries.count]))
        }
        try writer.save()

        let context = container.newBackgroundContext()
        // A tenth of the moods: every country keeps some, so the custom rule deletes none.
        context.delete(try context.fetch(FetchDescriptor<Mood>(fetchLimit: 2_000)))
        #expect(context.deletedObjects.count == 2_000)
        #expect(try context.fetchCount(FetchDescriptor<Mood>()) == 18_000)
        context.rollback()
        #expect(try context.fetchCount(FetchDescriptor<Mood>()) == 20_000)

        // The continent takes everything with it, and comes back with everything.
        let continent = try #require(try context.fetch(FetchDescriptor<Continent>()).first)
        context.delete(continent)
        #expect(context.deletedObjects.count == 21_001)
        context.rollback()
        #expect(continent.count(of: \.countries) == 1_000)
        #expect(try context.fetchCount(FetchDescriptor<Country>()) == 1_000)
        context.delete(continent)
        context.processPendingChanges()  // already done by delete: nothing more happens
        #expect(context.deletedObjects.count == 21_001)
        try context.save()
        let reader = container.newBackgroundContext()
        #expect(try reader.fetchCount(FetchDescriptor<Mood>()) == 0)
        #expect(try reader.fetchCount(FetchDescriptor<Country>()) == 0)
        #expect(try reader.fetchCount(FetchDescriptor<Continent>()) == 0)
    }

    @Test func denyAndNoActionWithAThousandCountries() throws {
        let container = try container()
        let writer = container.newBackgroundContext()
        let denying = DenyingContinent(name: "Europe")
        let loose = LooseContinent(name: "Europe")
        for index in 0..<1_000 {
            writer.insert(DeniedCountry(name: "Country \(index)", continent: denying))
            writer.insert(LooseCountry(name: "Country \(index)", continent: loose))
        }
        try writer.save()

        writer.delete(denying)
        #expect {
            try writer.save()
        } throws: { error in
            guard let thrown = error as? ObjectGraphError, thrown.code == .validationFailed,
                case .deleteDenied(let count)? = thrown.validationFailures.first?.reason
            else { return false }
            return count == 1_000
        }
        writer.delete(try writer.fetch(FetchDescriptor<DeniedCountry>()))
        writer.delete(loose)
        try writer.save()

        let reader = container.newBackgroundContext()
        #expect(try reader.fetchCount(FetchDescriptor<DenyingContinent>()) == 0)
        let countries = try reader.fetch(FetchDescriptor<LooseCountry>())
        #expect(countries.count == 1_000)
        // Each link names the deleted row: read, it gives an object marked deleted.
        #expect(
            countries.allSatisfy { country in
                guard let continent = country.continent else { return false }
                return continent.name == "" && continent.isDeleted
            })
    }

    @Test func aLargeCascadeDeletesEverythingAndRollsBack() throws {
        let container = try container()
        let writer = container.newBackgroundContext()
        let europe = CascadingContinent(name: "Europe")
        writer.insert(europe)
        for countryIndex in 0..<50 {
            let country = CascadingCountry(name: "Country \(countryIndex)", continent: europe)
            writer.insert(country)
            for cityIndex in 0..<100 { writer.insert(CascadingCity(name: "City \(cityIndex)", country: country)) }
        }
        try writer.save()

        let context = container.newBackgroundContext()
        let stored = try #require(try context.fetch(FetchDescriptor<CascadingContinent>()).first)
        context.delete(stored)
        #expect(context.deletedObjects.count == 1 + 50 + 5_000)
        context.rollback()
        #expect(stored.countries.count == 50)
        context.delete(stored)
        try context.save()
        let reader = container.newBackgroundContext()
        #expect(try reader.fetchCount(FetchDescriptor<CascadingCity>()) == 0)
        #expect(try reader.fetchCount(FetchDescriptor<CascadingCountry>()) == 0)
    }
}
