import Foundation

/// The benchmark's data, the same for every contender: moods spread over countries, with dates in a
/// scrambled order so that sorting by date is real work.
struct Dataset {
    var moodCount: Int
    var countryCount: Int
    /// Whether one mood in ten is marked for deletion (with ten countries, every mood of one country
    /// would be, and Moody would mark the country: the monitor workloads do without).
    var marksMoods = true
    /// How the moods' text is written: to measure what storing text in Normalization Form C costs.
    var textForm = TextForm.ascii

    static let epoch = Date(timeIntervalSince1970: 1_700_000_000)

    /// Every country is on one continent, so that deleting it cascades through the whole dataset.
    static let continentName = "Pangaea"
    func countryName(_ index: Int) -> String { "Country \(index)" }

    func text(_ index: Int) -> String {
        switch textForm {
        case .ascii: "Mood \(index)"
        case .composed: "Humeur d'\u{E9}t\u{E9} \(index)"
        case .decomposed: "Humeur d'e\u{301}te\u{301} \(index)"
        }
    }
    /// A mood's text after the rename workload.
    func renamedText(_ index: Int) -> String { text(index) + " (renamed)" }
    func rating(_ index: Int) -> Int { index % 5 + 1 }
    func date(_ index: Int) -> Date {
        // 7919 is prime, so this visits every second in [0, moodCount) once, out of order.
        Self.epoch.addingTimeInterval(Double((index &* 7919) % max(moodCount, 1)))
    }
    /// Half the moods have been accepted by a backend.
    func remoteIdentifier(_ index: Int) -> String? { index.isMultiple(of: 2) ? "remote-\(index)" : nil }
    /// One mood in ten is marked for deletion.
    func markedForDeletionDate(_ index: Int) -> Date? {
        marksMoods && index.isMultiple(of: 10) ? Self.epoch.addingTimeInterval(Double(index)) : nil
    }
    func countryIndex(_ index: Int) -> Int { index % countryCount }
}

/// How the moods' text is written (`--text`).
enum TextForm: String, CaseIterable {
    /// ASCII only: precomposed already, which a byte scan tells.
    case ascii
    /// With precomposed accents (U+00E9): in Normalization Form C, which the byte scan also tells.
    case composed
    /// With combining accents (e + U+0301): normalized when stored.
    case decomposed
}

/// Keeps values read by the workloads so the optimizer cannot drop the reads.
enum Sink {
    // Safety: the benchmark runs on one thread.
    nonisolated(unsafe) static var checksum = 0

    static func consume(_ text: String, _ rating: Int, _ date: Date, _ remote: String?, _ marked: Date?) {
        checksum &+=
            text.utf8.count &+ rating &+ Int(date.timeIntervalSince1970)
            &+ (remote?.utf8.count ?? 0) &+ (marked == nil ? 0 : 1)
    }
}
