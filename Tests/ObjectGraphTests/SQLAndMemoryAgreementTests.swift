import Foundation
import ObjectGraph
import Testing

/// Whatever the SQL translation accepts, Swift's own evaluation of the same predicate and sort gives
/// the same answer (issue 10, point 4): random words (non-ASCII, mixed case, nils, equal keys) are
/// fetched all saved (SQL), all unsaved (evaluated and sorted in memory by the context), and half
/// saved and changed (both merged), and each result is compared with Foundation's `evaluate` and
/// `sorted(using:)` on the same objects.
@Suite struct SQLAndMemoryAgreementTests {
    static let texts = [
        "École", "école", "ÉCOLE", "ecole", "e", "é", "É", "zèbre", "Zoë", "zoe", "apple",
        "Banana", "banana", "b9", "b10", "B10", "straße", "Straße", "Ωmega", "ωmega", "", "a b"
    ]
    static let needles = ["é", "É", "e", "ÉCOLE", "b1", "Ω", "ω", "ss", "a", "", "zo", "B"]

    struct Row: Equatable {
        let serial: Int, text: String, note: String?, rank: Int, starred: Bool, pinned: Bool?
    }

    static func predicates(_ needle: String, _ rank: Int) -> [(String, Predicate<Word>)] {
        let same = ComparisonResult.orderedSame, ascending = ComparisonResult.orderedAscending
        return [
            ("localizedStandardContains", #Predicate { $0.text.localizedStandardContains(needle) }),
            ("caseInsensitiveCompare ==", #Predicate { $0.text.caseInsensitiveCompare(needle) == same }),
            ("caseInsensitiveCompare <", #Predicate { $0.text.caseInsensitiveCompare(needle) == ascending }),
            ("contains", #Predicate { $0.text.contains(needle) }),
            ("starts(with:)", #Predicate { $0.text.starts(with: needle) }),
            ("==", #Predicate { $0.text == needle }),
            ("<", #Predicate { $0.text < needle }),
            ("note nil or contains", #Predicate { $0.note == nil || $0.note?.localizedStandardContains(needle) == true }),
            ("rank and text", #Predicate { $0.rank >= rank && $0.text != needle }),
            // `?? false` filters as SQL's NULL does only where the value decides alone (not under `!`).
            ("note < or false", #Predicate { $0.note.flatMap { $0 < needle } ?? false }),
            ("not (note < or false)", #Predicate { !($0.note.flatMap { $0 < needle } ?? false) }),
            ("note contains or false, or rank", #Predicate { ($0.note.flatMap { $0.contains(needle) } ?? false) || $0.rank == rank }),
            ("note < or true, and rank", #Predicate { ($0.note.flatMap { $0 < needle } ?? true) && $0.rank <= rank })
        ]
    }

    static let sorts: [(String, [SortDescriptor<Word>])] = [
        ("text", [SortDescriptor(\.text)]),
        ("text, reverse", [SortDescriptor(\.text, order: .reverse)]),
        ("text lexical", [SortDescriptor(\.text, comparator: .lexical)]),
        ("note then text", [SortDescriptor(\.note), SortDescriptor(\.text, comparator: .lexical)]),
        ("rank reverse then note", [SortDescriptor(\.rank, order: .reverse), SortDescriptor(\.note, order: .reverse)]),
        // Foundation's SortDescriptor has no Bool sort; ObjectGraph's, false first (issue 26, point 5).
        ("starred then text", [SortDescriptor(\.starred), SortDescriptor(\.text, comparator: .lexical)]),
        ("pinned reverse then serial", [SortDescriptor(\.pinned, order: .reverse), SortDescriptor(\.serial)])
    ]

    /// The sort keys of each row, to compare orders where equal keys may come in any order.
    static func keys(_ rows: [Row], _ sort: String) -> [String] {
        rows.map { row in
            switch sort {
            case "note then text": "\(row.note ?? "∅")|\(row.text)"
            case "rank reverse then note": "\(row.rank)|\(row.note ?? "∅")"
            case "starred then text": "\(row.starred)|\(row.text)"
            case "pinned reverse then serial": "\(row.pinned.map { "\($0)" } ?? "∅")|\(row.serial)"
            default: row.text
            }
        }
    }

    static func rows(_ words: some Sequence<Word>) -> [Row] {
        words.map { Row(serial: $0.serial, text: $0.text, note: $0.note, rank: $0.rank, starred: $0.starred, pinned: $0.pinned) }
    }

    @Test(arguments: 0..<24)
    func savedUnsavedAndSwiftAgree(seed: Int) throws {
        var random = SeededGenerator(state: UInt64(seed))
        let values = (0..<14).map { serial in
            (
                serial, Self.texts.randomElement(using: &random)!,
                Bool.random(using: &random) ? nil : Self.texts.randomElement(using: &random)!,
                Int.random(in: 0...2, using: &random)
            )
        }
        let container = try ObjectContainer(for: Word.self, configuration: .inMemory)
        let saved = container.newBackgroundContext()
        for (serial, text, note, rank) in values { saved.insert(Word(serial: serial, text: text, note: note, rank: rank)) }
        try saved.save()
        let unsaved = container.newBackgroundContext()
        let swiftWords = values.map { Word(serial: $0.0, text: $0.1, note: $0.2, rank: $0.3) }
        let pending = try ObjectContainer(for: Word.self, configuration: .inMemory).newBackgroundContext()
        for word in swiftWords { pending.insert(word) }
        // Odd words saved as they are, even ones saved otherwise then changed (so unsaved): one fetch
        // reads half from SQL and half from memory, and merges and sorts them.
        let mixedContainer = try ObjectContainer(for: Word.self, configuration: .inMemory)
        let mixed = mixedContainer.newBackgroundContext()
        for (serial, text, note, rank) in values {
            mixed.insert(Word(serial: serial, text: serial % 2 == 0 ? "x" : text, note: note, rank: rank))
        }
        try mixed.save()
        for word in try mixed.fetch(FetchDescriptor<Word>()) where word.serial % 2 == 0 {
            word.text = values[word.serial].1
        }
        try withExtendedLifetime(unsaved) {
            for _ in 0..<6 {
                let needle = Self.needles.randomElement(using: &random)!
                let rank = Int.random(in: 0...2, using: &random)
                for (name, predicate) in Self.predicates(needle, rank) {
                    for (sortName, sort) in Self.sorts {
                        let expected = Self.rows(try swiftWords.filter { try predicate.evaluate($0) }.sorted(using: sort))
                        let request = FetchDescriptor<Word>(predicate: predicate, sortBy: sort)
                        let context = "seed \(seed), \(name) \"\(needle)\", sorted by \(sortName)"
                        for (side, words) in [
                            ("saved", try saved.fetch(request)), ("unsaved", try pending.fetch(request)),
                            ("mixed", try mixed.fetch(request))
                        ] {
                            let rows = Self.rows(words)
                            #expect(Set(rows.map(\.serial)) == Set(expected.map(\.serial)), "\(side): \(context)")
                            #expect(Self.keys(rows, sortName) == Self.keys(expected, sortName), "\(side): \(context)")
                        }
                    }
                }
            }
        }
    }
}
