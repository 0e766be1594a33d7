import Foundation
import MoodyModel
import Testing

@testable import ObjectGraph

/// No SQLite variable limit is reachable (issue 10, point 5). This machine's SQLite allows 250,000
/// variables and standard builds 32,766; the tests that would need that many objects run on a
/// connection limited to 999 (SQLite's limit before 3.32) instead, which is the same mechanism.
@Suite struct VariableLimitTests {
    /// A store whose connections accept at most 999 variables per statement.
    static func limitedContainer() throws -> ObjectContainer {
        var configuration = StoreConfiguration.file(temporaryStorePath())
        configuration.variableLimit = 999
        return try ObjectContainer(for: Mood.self, configuration: configuration)
    }

    @Test func aMembershipOf300000ConstantsIsTranslated() throws {
        let context = try makeContainer().newBackgroundContext()
        context.insert(Mood(text: "5", rating: 5))
        context.insert(Mood(text: "400000", rating: 4))  // a rating the constants leave out
        try context.save()
        let ratings = Array(5..<300_005)
        let request = FetchDescriptor<Mood>(predicate: #Predicate { ratings.contains($0.rating) })
        #expect(try context.fetch(request).map(\.text) == ["5"])
        #expect(try context.fetchCount(request) == 1)
        let texts = (0..<300_000).map { "\($0)" }
        let byText = FetchDescriptor<Mood>(predicate: #Predicate { !texts.contains($0.text) })
        #expect(try context.fetch(byText).map(\.text) == ["400000"])
    }

    @Test func fetchingWhileManyObjectsArePendingExcludesThemBeyondTheLimit() throws {
        let context = try Self.limitedContainer().newBackgroundContext()
        let moods = (0..<2_000).map { Mood(text: "mood \($0)", rating: 1) }
        for mood in moods { context.insert(mood) }
        context.insert(Mood(text: "untouched", rating: 1))
        try context.save()
        for mood in moods { mood.rating = 2 }  // 2,000 pending updates: their rows are excluded
        let request = FetchDescriptor<Mood>(predicate: #Predicate { $0.rating == 1 })
        #expect(try context.fetch(request).map(\.text) == ["untouched"])
        #expect(try context.fetchCount(request) == 1)
        #expect(try context.fetchCount(FetchDescriptor<Mood>(predicate: #Predicate { $0.rating == 2 })) == 2_000)
    }

    @Test func aBatchLargerThanTheLimitLoads() throws {
        let container = try Self.limitedContainer()
        let writer = container.newBackgroundContext()
        for index in 0..<10_000 { writer.insert(Mood(text: "mood \(index)", rating: index % 5 + 1)) }
        try writer.save()
        let reader = container.newBackgroundContext()
        // Sorted by rating, a batch's keys are scattered (every fifth row): loaded by membership,
        // not as a key range.
        var request = FetchDescriptor<Mood>(sortBy: [SortDescriptor(\.rating)])
        request.fetchBatchSize = 2_500
        let results = try reader.fetch(request)
        #expect(results.count == 10_000)
        #expect(results[0].rating == 1 && results[2_000].rating == 2)
        #expect(results.allSatisfy { !$0.isDeleted && !$0.isFault })
    }

    @Test func oneHundredThousandPendingObjects() throws {
        let context = try makeContainer().newBackgroundContext()
        let moods = (0..<100_000).map { Mood(text: "mood \($0)", rating: 1) }
        for mood in moods { context.insert(mood) }
        try context.save()
        for mood in moods { mood.rating = 2 }
        #expect(try context.fetchCount(FetchDescriptor<Mood>(predicate: #Predicate { $0.rating == 1 })) == 0)
        #expect(try context.fetch(FetchDescriptor<Mood>(predicate: #Predicate { $0.rating == 2 })).count == 100_000)
    }

    @Test func aStoreErrorQuotesOnlyTheStartOfItsStatement() {
        let sql = "SELECT 1 WHERE 1 IN (" + SQL.placeholders(300_000) + ")"
        let error = ObjectGraphError.store(StoreError(resultCode: .error, message: "too many SQL variables", sql: sql))
        #expect(error.description.count < StoreError.sqlPrefixLength + 100)
        #expect(error.description.contains("SELECT 1 WHERE 1 IN (?, ?"))
    }
}
