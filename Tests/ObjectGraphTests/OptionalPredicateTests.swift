import Foundation
import ObjectGraph
import Testing

/// nil is a value like any other: it is in a list that holds it, and unwrapping it by force is the
/// same typed error in SQL as in memory (issue 43, defects 5 and 7).
@Suite struct OptionalPredicateTests {
    @Test func aConstantListHoldingNilFindsTheNilValues() throws {
        let container = try probeContainer({ $1.note = [nil, "a", "b"][$0] }, count: 3)
        let notes: [String?] = [nil, "a"]
        let answers = try ProbeAnswers.of(#Predicate { notes.contains($0.note) }, in: container)
        #expect(answers.agree && answers.sql == [0, 1], "\(answers)")
        let numbers = try probeContainer({ $1.optionalNumber = [nil, 1, 2][$0] }, count: 3)
        let numberList: [Int?] = [2, nil]
        let listed = try ProbeAnswers.of(#Predicate { numberList.contains($0.optionalNumber) }, in: numbers)
        #expect(listed.agree && listed.sql == [0, 2], "\(listed)")
    }

    @Test func unwrappingNilByForceIsATypedErrorInSQLAndInMemory() throws {
        let container = try probeContainer({ $1.note = $0 == 0 ? nil : "a" }, count: 2)
        let predicate = #Predicate<Probe> { $0.note! == "a" }
        let sql = #expect(throws: ObjectGraphError.self) {
            try container.newBackgroundContext().fetch(FetchDescriptor(predicate: predicate))
        }
        #expect(sql?.code == .predicateEvaluationFailed && sql?.entity == "Probe")
        // Without a nil to unwrap, both answer.
        let noNil = try probeContainer({ $1.note = ["a", "b"][$0] }, count: 2)
        let answers = try ProbeAnswers.of(predicate, in: noNil)
        #expect(answers.agree && answers.sql == [0], "\(answers)")
        // An unsaved object with a nil note, evaluated in memory, fails as its row failed in SQL.
        let context = noNil.newBackgroundContext()
        context.insert(Probe(serial: 9))
        let memory = #expect(throws: ObjectGraphError.self) { try context.fetch(FetchDescriptor(predicate: predicate)) }
        #expect(memory?.code == .predicateEvaluationFailed && memory?.reason == sql?.reason)
    }

    /// Found by the generated agreement test: `IN` gives NULL for a nil value, which `!` left NULL
    /// (no match) where Swift's `contains` says false (a match under `!`).
    @Test func aNilValueIsInNoListOfValuesEvenUnderNegation() throws {
        let container = try probeContainer(
            {
                $1.optionalNumber = [nil, 1, 2][$0]; $1.note = [nil, "a", "b"][$0]
            }, count: 3)
        let numbers: [Int?] = [1, 5], notes: [String?] = ["a"]
        let outside = try ProbeAnswers.of(#Predicate { !numbers.contains($0.optionalNumber) }, in: container)
        #expect(outside.agree && outside.sql == [0, 2], "\(outside)")
        let notNoted = try ProbeAnswers.of(#Predicate { !notes.contains($0.note) }, in: container)
        #expect(notNoted.agree && notNoted.sql == [0, 2], "\(notNoted)")
    }
}
