import Foundation
import MoodyModel
import ObjectGraph
import Testing

/// Text compares, orders and counts as Swift's `String` does, in SQL as in memory (issue 43,
/// defect 1): canonically equivalent text is equal, order is that of the normalized scalars, and
/// containment, prefixes and counts are by `Character`.
@Suite struct TextSemanticsTests {
    static let decomposedE = "e\u{301}"  // e + combining acute: "é", canonically equal to U+00E9
    static let composedE = "\u{E9}"
    static let family = "👨\u{200D}👩\u{200D}👧\u{200D}👦"

    @Test func canonicallyEquivalentTextIsEqualInSQLAsInSwift() throws {
        let container = try probeContainer(names: [Self.decomposedE, "e", "x"])
        let composed = Self.composedE
        let answers = try ProbeAnswers.of(#Predicate { $0.name == composed }, in: container)
        #expect(answers.agree && answers.sql == [0], "\(answers)")
        let listed = try ProbeAnswers.of(#Predicate { ["a", composed].contains($0.name) }, in: container)
        #expect(listed.agree && listed.sql == [0], "\(listed)")
    }

    /// Text is stored precomposed and compared by its bytes, so an index on a text attribute (a
    /// country's unique name) serves equality, ranges and sorts as on any other column.
    @Test func anIndexOnATextAttributeServesEqualityRangesAndSorts() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        let (_, _, spain) = try makeEurope(in: context)
        spain.name = "Espan\u{303}a"
        try context.save()
        let composed = "Espa\u{F1}a"
        let equal = FetchDescriptor<Country>(predicate: #Predicate { $0.name == composed })
        #expect(try container.newBackgroundContext().fetch(equal).map(\.objectID) == [spain.objectID])
        let equalPlan = try context.queryPlan(for: equal)
        #expect(equalPlan.contains { $0.contains("USING") && $0.contains("INDEX") && $0.contains("name=?") }, "\(equalPlan)")

        let range = try context.queryPlan(for: FetchDescriptor<Country>(predicate: #Predicate { $0.name >= "E" && $0.name < "G" }))
        #expect(range.contains { $0.contains("INDEX") && $0.contains("name>? AND name<?") }, "\(range)")
        let sorted = try context.queryPlan(for: FetchDescriptor<Country>(sortBy: [SortDescriptor(\.name)]))
        #expect(sorted.contains { $0.contains("INDEX") } && !sorted.contains { $0.contains("TEMP B-TREE") }, "\(sorted)")
    }

    @Test func canonicallyEquivalentTextIsEqualThroughRelationships() throws {
        let container = try probeContainer(
            { serial, probe in
                guard serial == 0 else { return }
                probe.group = ProbeGroup(name: Self.decomposedE)
                probe.tags = [ProbeTag(label: Self.decomposedE)]
            }, count: 2)
        let composed = Self.composedE
        let toOne = try ProbeAnswers.of(#Predicate { $0.group?.name == composed }, in: container)
        #expect(toOne.agree && toOne.sql == [0], "\(toOne)")
        let toMany = try ProbeAnswers.of(#Predicate { $0.tags.contains { $0.label == composed } }, in: container)
        #expect(toMany.agree && toMany.sql == [0], "\(toMany)")
    }

    @Test func textOrdersByItsNormalizedScalarsInComparisonsSortsAndPages() throws {
        // "A" + combining ring is "Å" (U+00C5), which Swift orders after "b"; its first byte is "A".
        let container = try probeContainer(names: ["A\u{30A}", "b", "a"])
        let below = try ProbeAnswers.of(#Predicate { $0.name < "b" }, in: container)
        #expect(below.agree && below.sql == [2], "\(below)")
        let sorted = try ProbeAnswers.of(#Predicate { _ in true }, sortBy: [SortDescriptor(\.name)], in: container)
        #expect(sorted.agree && sorted.sql == [2, 1, 0], "\(sorted)")
        let page = try ProbeAnswers.of(#Predicate { _ in true }, sortBy: [SortDescriptor(\.name)], limit: 1, offset: 1, in: container)
        #expect(page.agree && page.sql == [1], "\(page)")
        let lexical = try ProbeAnswers.of(
            #Predicate { _ in true }, sortBy: [SortDescriptor(\.name, comparator: .lexical)], in: container)
        #expect(lexical.agree && lexical.sql == [2, 1, 0], "\(lexical)")
    }

    @Test func aSortThroughAToOneRelationshipOrdersAsSwiftDoes() throws {
        let names = ["A\u{30A}", "b", "a"]
        let container = try probeContainer({ $1.group = ProbeGroup(name: names[$0]) }, count: 3)
        let sorted = try ProbeAnswers.of(#Predicate { _ in true }, sortBy: [SortDescriptor(\.group?.name)], in: container)
        #expect(sorted.agree && sorted.sql == [2, 1, 0], "\(sorted)")
    }

    @Test func containmentAndPrefixesAreByCharacter() throws {
        let container = try probeContainer(names: [Self.decomposedE, "q\u{307}", Self.family, "e\u{301}cole", "ecole"])
        let family = "👨", composed = Self.composedE
        for (name, predicate, expected) in [
            ("contains e", #Predicate<Probe> { $0.name.contains("e") }, [3, 4]),  // "école" ends with one
            ("starts with e", #Predicate<Probe> { $0.name.starts(with: "e") }, [4]),
            ("contains q", #Predicate<Probe> { $0.name.contains("q") }, []),
            ("contains a man", #Predicate<Probe> { $0.name.contains(family) }, []),
            ("contains é", #Predicate<Probe> { $0.name.contains(composed) }, [0, 3]),
            ("starts with é", #Predicate<Probe> { $0.name.starts(with: composed) }, [0, 3])
        ] {
            let answers = try ProbeAnswers.of(predicate, in: container)
            #expect(answers.agree && answers.sql == expected, "\(name): \(answers)")
        }
    }

    @Test func countAndIsEmptyCountCharactersAndKeepNULs() throws {
        let container = try probeContainer(names: [Self.decomposedE, Self.family, "\0", "a\0b", ""])
        for (name, predicate, expected) in [
            ("count 1", #Predicate<Probe> { $0.name.count == 1 }, [0, 1, 2]),
            ("count 3", #Predicate<Probe> { $0.name.count == 3 }, [3]),
            ("empty", #Predicate<Probe> { $0.name.isEmpty }, [4])
        ] {
            let answers = try ProbeAnswers.of(predicate, in: container)
            #expect(answers.agree && answers.sql == expected, "\(name): \(answers)")
        }
    }
}
