import Foundation
import ObjectGraph
import Testing

/// Values read back bit for bit what was assigned, before and after a save, or are refused at
/// save with an error naming the entity, attribute and object; nothing is changed on the way
/// (issue 43, defects 2 and 3, point 2).
@Suite struct ExactValuesTests {
    /// A probe given `assign`, saved, then read by a context that holds nothing.
    private func roundTrip(_ assign: (Probe) -> Void) throws -> (unsaved: Probe, saved: Probe) {
        let container = try ObjectContainer(for: Probe.self, configuration: .inMemory)
        let context = container.newBackgroundContext()
        let probe = Probe(serial: 0)
        context.insert(probe)
        assign(probe)
        try context.save()
        let saved = try container.newBackgroundContext().existingObject(with: probe.objectID, as: Probe.self)
        return (probe, saved)
    }

    @Test func aDateReadsBackBitForBitBeforeAndAfterASave() throws {
        for seconds in [0.1, -0.1, 1e-9, 123_456_789.123_456_7, -3e10, 6.3e10, -0.0, .infinity, -.infinity] {
            let date = Date(timeIntervalSinceReferenceDate: seconds)
            let container = try ObjectContainer(for: Probe.self, configuration: .inMemory)
            let context = container.newBackgroundContext()
            let probe = Probe(serial: 0)
            context.insert(probe)
            probe.date = date
            probe.optionalDate = date
            #expect(probe.date.timeIntervalSinceReferenceDate.bitPattern == seconds.bitPattern, "\(seconds), unsaved")
            try context.save()
            let saved = try container.newBackgroundContext().existingObject(with: probe.objectID, as: Probe.self)
            #expect(saved.date.timeIntervalSinceReferenceDate.bitPattern == seconds.bitPattern, "\(seconds), saved")
            #expect(saved.optionalDate?.timeIntervalSinceReferenceDate.bitPattern == seconds.bitPattern, "\(seconds), saved")
        }
    }

    @Test func aDatePredicateFindsTheDateItWasGiven() throws {
        let date = Date(timeIntervalSinceReferenceDate: 0.1)
        let container = try probeContainer({ $1.date = $0 == 0 ? date : .distantPast }, count: 2)
        let answers = try ProbeAnswers.of(#Predicate { $0.date == date }, in: container)
        #expect(answers.agree && answers.sql == [0], "\(answers)")
    }

    @Test func infinitiesNegativeZeroAndIntegerExtremesRoundTrip() throws {
        for real in [Double.infinity, -.infinity, -0.0, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 1e300] {
            let (unsaved, saved) = try roundTrip {
                $0.value = real
                $0.optionalValue = real
                $0.single = Float(real)
            }
            for probe in [unsaved, saved] {
                #expect(probe.value.bitPattern == real.bitPattern, "\(real)")
                #expect(probe.optionalValue?.bitPattern == real.bitPattern, "\(real)")
                #expect(probe.single.bitPattern == Float(real).bitPattern, "\(real)")
            }
        }
        for integer in [Int.min, Int.max, 0, -1] {
            let (unsaved, saved) = try roundTrip {
                $0.number = integer
                $0.optionalNumber = integer
            }
            #expect(unsaved.number == integer && saved.number == integer && saved.optionalNumber == integer)
        }
        let (_, small) = try roundTrip { $0.small = .min }
        #expect(small.small == .min)
    }

    @Test func textWithNULsAndEveryKindOfScalarRoundTrips() throws {
        for text in ["\0", "a\0b", "\0\0", "👨\u{200D}👩\u{200D}👧", "\u{10FFFF}", "\u{FEFF}x", "tab\there"] {
            let (unsaved, saved) = try roundTrip {
                $0.name = text; $0.note = text
            }
            #expect(unsaved.name == text && saved.name == text && saved.note == text, "\(Array(text.unicodeScalars))")
            #expect(saved.name.utf8.count == text.utf8.count)
        }
    }

    @Test func decomposedTextReadsBackCanonicallyEqualInItsComposedForm() throws {
        let (unsaved, saved) = try roundTrip { $0.name = "e\u{301}cole" }
        #expect(unsaved.name == "e\u{301}cole" && saved.name == "e\u{301}cole")
        #expect(Array(saved.name.unicodeScalars) == ["\u{E9}", "c", "o", "l", "e"], "stored in Normalization Form C")
        #expect(Array(unsaved.name.unicodeScalars) == Array(saved.name.unicodeScalars), "the same before and after the save")
    }

    /// Text is read eight bytes at a time while it is ASCII: a combining mark is found wherever it
    /// falls, in a word, at its start or end, or in the bytes after the last whole word.
    @Test(arguments: [0, 1, 6, 7, 8, 9, 15, 16, 23, 31])
    func aCombiningMarkAfterAnyNumberOfASCIIBytesIsComposed(asciiCount: Int) throws {
        let prefix = String(repeating: "a", count: asciiCount)
        let (_, saved) = try roundTrip { $0.name = prefix + "e\u{301}" + prefix }
        #expect(saved.name.unicodeScalars.elementsEqual((prefix + "\u{E9}" + prefix).unicodeScalars))
    }

    @Test(arguments: ["value", "optionalValue", "single", "amount", "date"])
    func aNaNIsRefusedAtSaveNamingTheEntityAttributeAndObject(attribute: String) throws {
        let container = try ObjectContainer(for: Probe.self, configuration: .inMemory)
        let context = container.newBackgroundContext()
        let probe = Probe(serial: 0)
        context.insert(probe)
        try context.save()
        switch attribute {
        case "value": probe.value = .nan
        case "optionalValue": probe.optionalValue = .nan
        case "single": probe.single = .nan
        case "amount": probe.amount = .nan
        default: probe.date = Date(timeIntervalSinceReferenceDate: .nan)
        }
        let error = #expect(throws: ObjectGraphError.self) { try context.save() }
        let failure = error?.validationFailures.first
        #expect(failure?.entity == "Probe" && failure?.property == attribute && failure?.objectID == probe.objectID)
        guard case .unstorableValue(let reason)? = failure?.reason else {
            Issue.record("expected unstorableValue, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("NaN"))
        let stored = try container.newBackgroundContext().existingObject(with: probe.objectID, as: Probe.self)
        #expect(stored.value == 0 && stored.optionalValue == nil && stored.amount == 0, "nothing written")
    }

    @Test func aNaNConstantMatchesNothingAndItsNegationEverything() throws {
        let container = try probeContainer({ $1.optionalValue = $0 == 0 ? nil : 1 }, count: 2)
        // Not named `nan`: the compiler warns of any comparison with a name it takes for `.nan`,
        // and comparing with NaN is the point here.
        let missing = Double.nan
        let equal = try ProbeAnswers.of(#Predicate { $0.optionalValue == missing }, in: container)
        #expect(equal.agree && equal.sql == [], "\(equal)")
        let notEqual = try ProbeAnswers.of(#Predicate { $0.optionalValue != missing }, in: container)
        #expect(notEqual.agree && notEqual.sql == [0, 1], "\(notEqual)")
        let below = try ProbeAnswers.of(#Predicate { !($0.value < missing) }, in: container)
        #expect(below.agree && below.sql == [0, 1], "\(below)")
    }
}
