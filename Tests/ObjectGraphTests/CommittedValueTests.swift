import Foundation
import ObjectGraph
import Testing

/// What a context knows changed in a saved object: the changed keys, the committed values, what a
/// save writes and what a rollback gives back, through writes (back to the committed value too),
/// refreshes that keep the changes on top of another context's save, saves and rollbacks.
@Suite struct CommittedValueTests {
    /// The attributes the test changes, with values built to break comparisons: combining marks,
    /// emoji, NUL, integer extremes, infinities, far dates, nil.
    private static let strings = ["", "e\u{301}", "\u{E9}", "🇫🇷👍🏽", "a\u{0}b", String(repeating: "long text ", count: 5)]
    private static let ints = [0, 1, -1, Int.max, Int.min]
    private static let doubles = [0.0, 1.5, -1e300, .infinity, -.infinity, .leastNonzeroMagnitude]
    private static let optionalStrings: [String?] = [nil, "", "x", "🇫🇷"]
    private static let optionalDates: [Date?] = [
        nil, Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: -62_135_596_800), Date(timeIntervalSince1970: 253_402_300_799)
    ]
    private static let keys = ["string", "int", "double", "optionalString", "optionalDate"]

    /// The values of a sample, by key, as comparable text.
    private static func values(of sample: Sample) -> [String: String] {
        [
            "string": sample.string.unicodeScalars.map { String($0.value) }.joined(separator: ","),
            "int": String(sample.int),
            "double": String(sample.double.bitPattern),
            "optionalString": sample.optionalString.map { $0.unicodeScalars.map { String($0.value) }.joined(separator: ",") } ?? "nil",
            "optionalDate": sample.optionalDate.map { String($0.timeIntervalSince1970.bitPattern) } ?? "nil"
        ]
    }

    private static func write(_ key: String, of sample: Sample, _ random: inout SeededGenerator) {
        switch key {
        case "string": sample.string = strings.randomElement(using: &random)!
        case "int": sample.int = ints.randomElement(using: &random)!
        case "double": sample.double = doubles.randomElement(using: &random)!
        case "optionalString": sample.optionalString = optionalStrings.randomElement(using: &random)!
        default: sample.optionalDate = optionalDates.randomElement(using: &random)!
        }
    }

    @Test(
        "A saved object's changed keys, committed values, saves and rollbacks follow every write, refresh and save",
        arguments: 0..<8)
    func changesFollowEveryStep(seed: UInt64) throws {
        var random = SeededGenerator(state: seed)
        let container = try ObjectContainer(for: Sample.self, configuration: .inMemory)
        let context = container.newBackgroundContext()
        let sample = Sample()
        context.insert(sample)
        try context.save()
        let other = container.newBackgroundContext()
        let otherSample = try other.existingObject(with: sample.objectID, as: Sample.self)
        // What this context last read or saved, and what it shows now.
        var known = Self.values(of: sample)
        var shown = known
        for step in 0..<200 {
            let action = Int.random(in: 0..<10, using: &random)
            switch action {
            case 0..<6:
                let key = Self.keys.randomElement(using: &random)!
                Self.write(key, of: sample, &random)
                shown = Self.values(of: sample)
            case 6:
                // Another context saves a change; this one reads it and keeps its own on top.
                other.refresh(otherSample, mergeChanges: false)
                Self.write(Self.keys.randomElement(using: &random)!, of: otherSample, &random)
                try other.save()
                let stored = Self.values(of: otherSample)
                context.refresh(sample, mergeChanges: true)
                shown = stored.merging(Self.keys.filter { shown[$0] != known[$0] }.map { ($0, shown[$0]!) }) { $1 }
                known = stored
            case 7, 8:
                try context.save()
                other.refresh(otherSample, mergeChanges: false)
                #expect(Self.values(of: otherSample) == shown, "step \(step): the store has what was shown")
                known = shown
            default:
                context.rollback()
                shown = known
            }
            #expect(Self.values(of: sample) == shown, "step \(step)")
            let changed = Set(Self.keys.filter { shown[$0] != known[$0] })
            #expect(sample.changedPersistentKeys == changed, "step \(step)")
            for key in Self.keys {
                #expect((sample.committedValue(forKey: key) != nil) == changed.contains(key), "step \(step), \(key)")
            }
        }
    }
}
