import Foundation
import ObjectGraph
import Testing

/// The forms of Foundation's predicate language that translate to SQL with the answers Swift
/// gives (issue 43, point 3): ranges, division and remainder, `filter` on to-many relationships,
/// raw values, the size of data, regular expressions.
@Suite struct PredicateFormsTests {
    /// Probes 0 to 9: number = serial, small = serial, value = serial / 2, a date a day apart each,
    /// kind cycling, blob of serial % 4 bytes, names "P0"…"P9", tags of weights 1 to 3 on some.
    static func container() throws -> ObjectContainer {
        let heavy = ProbeTag(label: "heavy", weight: 3), light = ProbeTag(label: "light", weight: 1)
        let middle = ProbeTag(label: "middle", weight: 2)
        return try probeContainer(
            { serial, probe in
                probe.number = serial
                probe.optionalNumber = serial % 3 == 0 ? nil : serial
                probe.small = Int16(serial)
                probe.value = Double(serial) / 2
                probe.date = Date(timeIntervalSinceReferenceDate: Double(serial) * 86_400)
                probe.kind = ProbeKind.allCases[serial % 3]
                probe.blob = Data(repeating: 7, count: serial % 4)
                probe.name = "P\(serial)"
                probe.tags = Set([heavy, light, middle].enumerated().filter { serial & (1 << $0.offset) != 0 }.map(\.element))
            }, count: 10)
    }

    private func expect(
        _ predicate: Predicate<Probe>, _ expected: [Int], in container: ObjectContainer, _ name: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let answers = try ProbeAnswers.of(predicate, in: container)
        #expect(answers.agree && answers.sql == expected, "\(name): \(answers)", sourceLocation: sourceLocation)
    }

    @Test func integerRangesClosedHalfOpenAndWithAttributeBoundsTranslate() throws {
        let container = try Self.container()
        let closed = 3...5, halfOpen = 3..<5
        try expect(#Predicate { (3...5).contains($0.number) }, [3, 4, 5], in: container, "(3...5)")
        try expect(#Predicate { (3..<5).contains($0.number) }, [3, 4], in: container, "(3..<5)")
        try expect(#Predicate { closed.contains($0.number) }, [3, 4, 5], in: container, "a ClosedRange constant")
        try expect(#Predicate { halfOpen.contains($0.number) }, [3, 4], in: container, "a Range constant")
        try expect(#Predicate { ($0.small...9).contains(7) }, [0, 1, 2, 3, 4, 5, 6, 7], in: container, "attribute bounds")
        try expect(#Predicate { ($0.number..<10).contains(5) }, [0, 1, 2, 3, 4, 5], in: container, "attribute bounds, half-open")
    }

    @Test func rangeBoundsOutOfOrderAreATypedErrorInSQLAndInMemory() throws {
        let container = try Self.container()
        let predicate = #Predicate<Probe> { (5...$0.number).contains(5) }  // 5...0 for probe 0
        let sql = #expect(throws: ObjectGraphError.self) {
            try container.newBackgroundContext().fetch(FetchDescriptor(predicate: predicate))
        }
        #expect(sql?.code == .predicateEvaluationFailed)
        let context = container.newBackgroundContext()
        for probe in try context.fetch(FetchDescriptor<Probe>()) { probe.scratch += 1 }
        let memory = #expect(throws: ObjectGraphError.self) { try context.fetch(FetchDescriptor(predicate: predicate)) }
        #expect(memory == sql)
        // Constant bounds out of order are refused before any row is read.
        let error = #expect(throws: ObjectGraphError.self) {
            try container.newBackgroundContext().fetch(FetchDescriptor(predicate: #Predicate<Probe> { (5..<3).contains($0.number) }))
        }
        #expect(error?.code == .predicateEvaluationFailed)
    }

    /// Found by the generated agreement test: constant bounds out of order fail only where the
    /// range is evaluated, as in Swift, not when the predicate is translated.
    @Test func constantBoundsOutOfOrderFailOnlyWhereEvaluated() throws {
        let container = try Self.container()
        try expect(#Predicate { $0.number < 0 && (5...3).contains($0.number) }, [], in: container, "behind a false &&")
        try expect(#Predicate { $0.number >= 0 || (5..<3).contains($0.number) }, Array(0..<10), in: container, "behind a true ||")
        let minimum = Int.min
        try expect(#Predicate { $0.number < 0 && -minimum > 0 }, [], in: container, "an overflowing constant behind a false &&")
    }

    @Test func dateRangesOfEveryKindTranslate() throws {
        let container = try Self.container()
        let day = 86_400.0
        let from = Date(timeIntervalSinceReferenceDate: 7 * day), through = Date(timeIntervalSinceReferenceDate: 2 * day)
        let week = Date(timeIntervalSinceReferenceDate: 2 * day)..<Date(timeIntervalSinceReferenceDate: 5 * day)
        let since = from..., until = ...through, before = ..<through
        try expect(#Predicate { week.contains($0.date) }, [2, 3, 4], in: container, "a week")
        try expect(#Predicate { since.contains($0.date) }, [7, 8, 9], in: container, "since")
        try expect(#Predicate { until.contains($0.date) }, [0, 1, 2], in: container, "until")
        try expect(#Predicate { before.contains($0.date) }, [0, 1], in: container, "before")
        let start = Date(timeIntervalSinceReferenceDate: 2 * day), end = Date(timeIntervalSinceReferenceDate: 4 * day)
        try expect(#Predicate { (start...end).contains($0.date) }, [2, 3, 4], in: container, "built from two dates")
        let last = Date(timeIntervalSinceReferenceDate: 9 * day)
        try expect(#Predicate { ($0.date...last).contains(start) }, [0, 1, 2], in: container, "an attribute bound")
    }

    @Test func divisionAndRemainderTranslate() throws {
        let container = try Self.container()
        try expect(#Predicate { $0.number / 3 == 2 }, [6, 7, 8], in: container, "/")
        try expect(#Predicate { $0.number % 4 == 1 }, [1, 5, 9], in: container, "%")
        try expect(#Predicate { $0.small / 2 == 1 }, [2, 3], in: container, "Int16 /")
        try expect(#Predicate { $0.value / 0.5 == 4 }, [4], in: container, "Double /")
        try expect(#Predicate { 1 / $0.value < 0.3 }, [7, 8, 9], in: container, "Double / 0 is infinity")
        let byZero = #expect(throws: ObjectGraphError.self) {
            try container.newBackgroundContext().fetch(
                FetchDescriptor(predicate: #Predicate<Probe> { $0.small / ($0.small - $0.small) == 1 }))
        }
        #expect(byZero?.code == .predicateEvaluationFailed && byZero?.reason?.contains("by zero") == true)
    }

    @Test func filterOnAToManyRelationshipTranslates() throws {
        let container = try Self.container()
        try expect(#Predicate { !$0.tags.filter { $0.weight == 3 }.isEmpty }, [1, 3, 5, 7, 9], in: container, "not empty")
        try expect(#Predicate { $0.tags.filter { $0.weight > 1 }.count > 1 }, [5, 7], in: container, "count")
        try expect(
            #Predicate { $0.tags.filter { $0.weight < 3 }.contains { $0.label == "middle" } }, [4, 5, 6, 7], in: container,
            "then contains(where:)")
    }

    @Test func maxAndMinOverAToManyRelationshipOfOrderedObjectsTranslate() throws {
        let container = try Self.container()
        // Tags by serial: heavy (3) for bit 0, light (1) for bit 1, middle (2) for bit 2.
        try expect(#Predicate { $0.tags.max()?.weight == 2 }, [4, 6], in: container, "max()?.weight")
        try expect(#Predicate { ($0.tags.min()?.label ?? "") == "middle" }, [4, 5], in: container, "min()?.label")
        try expect(#Predicate { $0.tags.max() == nil }, [0, 8], in: container, "max() of none")
        // An entity's own < has no SQL.
        let error = #expect(throws: ObjectGraphError.self) {
            try container.newBackgroundContext().fetch(
                FetchDescriptor(predicate: #Predicate<Probe> { $0.remarks.max() != nil }))
        }
        #expect(error?.code == .unsupportedPredicate && error?.reason?.contains("OrderedByAttribute") == true)
    }

    @Test func rawValuesDataSizesAndRegularExpressionsTranslate() throws {
        let container = try Self.container()
        try expect(#Predicate { $0.kind.rawValue == "beta" }, [1, 4, 7], in: container, "rawValue")
        try expect(#Predicate { $0.blob.count == 3 }, [3, 7], in: container, "Data.count")
        try expect(#Predicate { $0.blob.isEmpty }, [0, 4, 8], in: container, "Data.isEmpty")
        try expect(#Predicate { $0.name.contains(#/P[1-3]/#) }, [1, 2, 3], in: container, "regex")
        try expect(#Predicate { $0.note?.contains(#/x/#) ?? true }, Array(0..<10), in: container, "regex on an optional")
    }

    @Test func castsAndTypeChecksOfAnEntityWithoutSubentitiesAnswerAsSwiftDoes() throws {
        let container = try Self.container()
        // Built by hand: with one class per entity, the compiler knows what `#Predicate { $0 is Probe }`
        // gives, and says so. (Hierarchies: EntityInheritanceTests.)
        let isProbe = Predicate<Probe> { PredicateExpressions.TypeCheck<PredicateExpressions.Variable<Probe>, Probe>($0) }
        let asProbe = Predicate<Probe> { probe in
            PredicateExpressions.build_NotEqual(
                lhs: PredicateExpressions.ConditionalCast<PredicateExpressions.Variable<Probe>, Probe>(probe),
                rhs: PredicateExpressions.build_NilLiteral())
        }
        try expect(isProbe, Array(0..<10), in: container, "is")
        try expect(asProbe, Array(0..<10), in: container, "as?")
        let forced = Predicate<Probe> { probe in
            PredicateExpressions.build_Equal(
                lhs: PredicateExpressions.build_KeyPath(
                    root: PredicateExpressions.ForceCast<PredicateExpressions.Variable<Probe>, Probe>(probe), keyPath: \.number),
                rhs: PredicateExpressions.build_Arg(1))
        }
        let error = #expect(throws: ObjectGraphError.self) {
            try container.newBackgroundContext().fetch(FetchDescriptor(predicate: forced))
        }
        #expect(error?.code == .unsupportedPredicate && error?.reason?.contains("as!") == true)
    }
}
