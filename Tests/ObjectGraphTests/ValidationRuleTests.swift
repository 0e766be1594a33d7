import Foundation
import MoodyModel
import ObjectGraph
import Testing

/// Rules declared with `@Attribute` (a range, a length, a pattern), checked at save: Core Data's
/// minimum and maximum value, minimum and maximum length, and regular expression.
@Suite struct ValidationRuleTests {
    private func failures(_ body: () throws -> Void) -> [ValidationFailure] {
        do {
            try body()
            Issue.record("expected the save to fail")
            return []
        } catch let error as ObjectGraphError where error.code == .validationFailed {
            return error.validationFailures
        } catch {
            Issue.record("expected a validation failure, got \(error)")
            return []
        }
    }

    @Test func anEmptyMoodRatedNineIsRefusedNamingEachRuleAndNothingIsWritten() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let mood = Mood(text: "", rating: 9)
        context.insert(mood)
        let found = failures { try context.save() }
        #expect(found.map(\.property) == ["text", "rating"])
        #expect(found.allSatisfy { $0.entity == "Mood" && $0.objectID == mood.objectID })
        guard case .violatesRule(let rule, let value)? = found.last?.reason else {
            Issue.record("\(found)")
            return
        }
        #expect(value == .integer(9))
        #expect(rule.description == "in 1...5")
        #expect(found.last?.description.contains("Mood.rating") == true)
        #expect(found.first?.description.contains("of a length of at least 1") == true)
        #expect(try container.newBackgroundContext().fetchCount(FetchDescriptor<Mood>()) == 0)

        mood.text = "Calm"
        mood.rating = 5
        try context.save()
        #expect(try container.newBackgroundContext().fetchCount(FetchDescriptor<Mood>()) == 1)
    }

    @Test func aSavedObjectChangedToBreakARuleIsRefused() throws {
        let context = try makeContainer().newBackgroundContext()
        let mood = Mood(text: "Calm", rating: 4)
        context.insert(mood)
        try context.save()
        mood.rating = 0
        #expect(failures { try context.save() }.map(\.property) == ["rating"])
        context.rollback()
        #expect(mood.rating == 4)
    }

    @Test func rangesLengthsAndPatternsHoldAtTheirBoundsAndNotPastThem() throws {
        let context = try ObjectContainer(for: Reading.self, configuration: .inMemory).newBackgroundContext()
        let reading = Reading()
        context.insert(reading)
        // At the bounds: every rule holds (integer bounds suit a Double; nil follows every rule).
        reading.ratio = 1
        reading.percent = 100
        reading.taken = Date(timeIntervalSince1970: 1_000_000)
        reading.code = "ééé"  // three characters, six bytes
        reading.payload = Data([1, 2])
        reading.region = "DE"
        try context.save()

        reading.ratio = 1.000_001
        reading.count = -1
        reading.percent = 100.5
        reading.taken = Date(timeIntervalSince1970: -1)
        reading.code = ""
        reading.payload = Data([1])
        reading.region = "DEU"  // the pattern must match the whole value
        let broken = failures { try context.save() }
        #expect(broken.map(\.property) == ["ratio", "count", "percent", "taken", "code", "payload", "region"])
        let rules = broken.compactMap { failure -> String? in
            if case .violatesRule(let rule, _) = failure.reason { "\(rule)" } else { nil }
        }
        #expect(rules[0] == "in 0...1" && rules[1] == "at least 0" && rules[2] == "at most 100.0")
        #expect(rules[4] == "of a length in 1...3" && rules[5] == "of a length of at least 2")
        #expect(rules[6] == "matching \"[A-Z]{2}\"")
        context.rollback()
        reading.code = "abcd"
        #expect(failures { try context.save() }.map(\.property) == ["code"])
    }

    @Test func aRuleThatCannotApplyMakesTheModelInvalidNamingTheAttribute() {
        for (type, location) in [(BadPattern.self as any Entity.Type, "BadPattern.text"), (RangeOnText.self, "RangeOnText.name")] {
            let error = #expect(throws: ObjectGraphError.self) { try ObjectContainer(for: type, configuration: .inMemory) }
            #expect(error?.code == .invalidModel)
            #expect(error?.description.contains(location) == true, "\(String(describing: error))")
        }
    }

    @Test func batchOperationsRefuseValuesThatBreakARuleAndWriteNothing() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        context.insert(Mood(text: "Calm", rating: 4))
        try context.save()

        let insert = #expect(throws: ObjectGraphError.self) {
            try context.batchInsert(Mood.self, values: [["text": "Fine", "date": Date()], ["text": "Bad", "rating": 6, "date": Date()]])
        }
        #expect(insert?.code == .invalidBatchOperation && insert?.property == "rating")
        #expect(insert?.description.contains("row 1") == true)
        let update = #expect(throws: ObjectGraphError.self) { try context.batchUpdate(Mood.self, set: [.set(\.text, to: "")]) }
        #expect(update?.code == .invalidBatchOperation && update?.property == "text")
        let objects = #expect(throws: ObjectGraphError.self) { try context.batchInsert([Mood(text: "Ok", rating: 0)]) }
        #expect(objects?.property == "rating")
        let stored = try container.newBackgroundContext().fetch(FetchDescriptor<Mood>()).map { ($0.text, $0.rating) }
        #expect(stored.count == 1 && stored[0] == ("Calm", 4))
    }
}
