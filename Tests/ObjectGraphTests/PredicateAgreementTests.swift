import Foundation
import ObjectGraph
import Testing

/// Whatever the SQL translation accepts, SQL, the context's evaluation in memory and Foundation's
/// `evaluate` give one answer (issue 43, point 4): seeded random predicates and sorts over seeded
/// probes holding values built to break that agreement, each fetched three ways (every probe saved
/// and read by SQL from a context holding nothing; every probe changed, so evaluated in memory;
/// half of them changed, so both merged), counted, and compared with Foundation's `evaluate` and
/// `sorted(using:)` on the same probes. Where the checked evaluation of a probe fails (an overflow,
/// say), every side must throw the same typed error, and Foundation, which would trap, is not asked.
///
/// At least 10,000 combinations a run; `OBJECTGRAPH_AGREEMENT_COMBINATIONS` asks for more.
@Suite struct PredicateAgreementTests {
    static let combinations = max(
        10_000, ProcessInfo.processInfo.environment["OBJECTGRAPH_AGREEMENT_COMBINATIONS"].flatMap { Int($0) } ?? 0)
    /// A store of probes per seed, 250 combinations each: more combinations try more stores too.
    static let seeds = Array(UInt64(0)..<UInt64(combinations / 250))

    @Test(arguments: seeds)
    func sqlMemoryAndFoundationGiveOneAnswer(seed: UInt64) throws {
        var generator = PredicateGenerator(seed: seed)
        let container = try ObjectContainer(for: Probe.self, configuration: .inMemory)
        let writer = container.newBackgroundContext()
        generator.probes(count: 16, extremes: seed.isMultiple(of: 2), in: writer)
        try writer.save()

        let saved = container.newBackgroundContext()  // holds nothing between fetches: SQL answers
        let memory = container.newBackgroundContext()
        let probes = try memory.fetch(FetchDescriptor<Probe>(sortBy: [SortDescriptor(\.serial)]))
        for probe in probes { probe.scratch += 1 }  // every probe evaluated in memory
        let mixed = container.newBackgroundContext()
        let mixedProbes = try mixed.fetch(FetchDescriptor<Probe>())
        for probe in mixedProbes where probe.serial.isMultiple(of: 2) { probe.scratch += 1 }

        let count = (Self.combinations + Self.seeds.count - 1) / Self.seeds.count
        for combination in 0..<count {
            let (predicate, text) = generator.predicate()
            let (sort, sortText) = generator.sort()
            let context = "seed \(seed), combination \(combination): \(text), sorted by [\(sortText)]"

            var matching: [Probe] = []
            var fails = false
            for probe in probes {
                do {
                    if try probe.matches(predicate) { matching.append(probe) }
                } catch let error as ObjectGraphError where error.code == .predicateEvaluationFailed {
                    fails = true
                }
            }
            if fails {
                for (side, fetching) in [("SQL", saved), ("memory", memory), ("mixed", mixed)] {
                    let error = #expect(throws: ObjectGraphError.self, "\(side): \(context)") {
                        try fetching.fetch(FetchDescriptor(predicate: predicate, sortBy: sort))
                    }
                    #expect(error?.code == .predicateEvaluationFailed, "\(side): \(context): \(String(describing: error))")
                }
                continue
            }
            // Foundation's own evaluation, which the checked one must equal where it does not trap.
            let foundation = try probes.filter { try predicate.evaluate($0) }
            #expect(foundation.map(\.serial) == matching.map(\.serial), "Foundation: \(context)")

            var descriptor = FetchDescriptor(predicate: predicate, sortBy: sort)
            var expected = matching.sorted(using: sort + [SortDescriptor(\.serial)]).map(\.serial)
            if generator.chance(30) {
                descriptor.fetchOffset = Int.random(in: 0...3, using: &generator.random)
                descriptor.fetchLimit = Int.random(in: 0...6, using: &generator.random)
                expected = Array(expected.dropFirst(descriptor.fetchOffset).prefix(descriptor.fetchLimit ?? expected.count))
            }
            for (side, fetching) in [("SQL", saved), ("memory", memory), ("mixed", mixed)] {
                do {
                    #expect(try fetching.fetch(descriptor).map(\.serial) == expected, "\(side): \(context)")
                    let counted = try fetching.fetchCount(FetchDescriptor(predicate: predicate))
                    #expect(counted == matching.count, "\(side) count: \(context)")
                } catch {
                    Issue.record("\(side): \(context): \(error)")
                }
            }
        }
        withExtendedLifetime((probes, mixedProbes)) {}
    }

    /// Every form the translator has a translation for, as the generator names it: a form added to
    /// the translator is added here and to the generator, so that the agreement test tries it.
    static let translatedForms: Set<String> = [
        "< Int", "<= Int", "> Int", ">= Int", "== Int", "!= Int", "< String", "== String", "!= String", ">= String",
        "< Double", "== Double", "!= Double", "> Date", "== Date", "< Decimal", "== Decimal", "> Int16", "< Float", "== Float",
        "&&", "||", "!", "?: Bool", "?: Int", "?: String", "?? Int", "?? Double", "?? String", "?? Date", "to-one ?? String",
        "+ Int", "- Int", "* Int", "/ Int", "% Int", "unary - Int", "+ Int16", "/ Int16", "+ Double", "- Double", "* Double",
        "/ Double", "unary - Double", "* Float", "+ Decimal", "Double constant", "String.count", "Data.count", "to-many count",
        "String.isEmpty", "Data.isEmpty", "to-many isEmpty", "contains String", "starts(with:)", "localizedStandardContains",
        "caseInsensitiveCompare", "regex", "== String?", "!= Int?", "== Double?", "== Date?", "[String].contains",
        "[String?].contains", "[Int?].contains", "[Double].contains", "[Decimal].contains", "constant ClosedRange<Int>",
        "constant Range<Date>", "one-sided Date ranges", "built ClosedRange<Int>", "built Range<Double>",
        "constant ClosedRange<Decimal>", "constant ClosedRange<String>", "contains(where:)", "allSatisfy", "filter isEmpty",
        "filter count", "max()", "min()", "max() == nil", "to-one ==", "to-one == nil", "to-one flatMap <", "! String", "! Int",
        "flatMap String <", "flatMap Int +",
        "flatMap ==", "rawValue", "Bool attribute", "kind ==", "sort by name", "sort by name reverse", "sort by name lexical",
        "sort by note", "sort by number", "sort by optionalNumber reverse", "sort by value", "sort by optionalValue",
        "sort by single", "sort by date", "sort by optionalDate reverse", "sort by amount", "sort by amount reverse",
        "sort by small", "sort by flag", "sort by group name"
    ]

    @Test func theGeneratorTriesEveryTranslatedForm() {
        var generator = PredicateGenerator(seed: 1)
        for _ in 0..<5_000 {
            _ = generator.predicate()
            _ = generator.sort()
        }
        #expect(
            Self.translatedForms.subtracting(generator.forms).isEmpty,
            "never generated: \(Self.translatedForms.subtracting(generator.forms).sorted())")
    }
}
