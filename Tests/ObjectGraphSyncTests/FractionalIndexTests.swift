import Testing

@testable import ObjectGraphSync

@Suite("Fractional indexes: positions in an ordered list that merge")
struct FractionalIndexTests {
    /// The positions of `keys` sorted by key, as a device reads an order.
    static func order(_ keys: [String]) -> [Int] {
        keys.indices.sorted { keys[$0] < keys[$1] }
    }

    @Test("Keys between two keys are valid, increasing and strictly between them, however many are asked and however close the bounds")
    func keysBetween() {
        let cases: [(String?, String?, Int)] = [
            (nil, nil, 1), (nil, nil, 1_000), ("V", nil, 3), (nil, "1", 5), ("V", "W", 10), ("V", "V1", 4), ("Vzzz", "W", 2),
            ("0001", "0002", 100)
        ]
        for (lower, upper, count) in cases {
            let keys = FractionalIndex.keys(between: lower, and: upper, count: count)
            #expect(keys.count == count)
            #expect(keys.allSatisfy(FractionalIndex.isValid), "\(keys)")
            #expect(zip(keys, keys.dropFirst()).allSatisfy { $0 < $1 }, "\(lower ?? "nil")…\(upper ?? "nil"): \(keys)")
            if let lower, let first = keys.first { #expect(lower < first) }
            if let upper, let last = keys.last { #expect(last < upper) }
        }
        #expect(FractionalIndex.keys(between: nil, and: nil, count: 1) == ["V"], "one half")
        #expect(FractionalIndex.keys(between: nil, and: nil, count: 1_000).map(\.count).max() ?? 0 <= 3, "short keys for a long list")
    }

    @Test("Text that is not a key is not one: empty, a trailing zero, a character outside base 62")
    func validity() {
        #expect(!FractionalIndex.isValid("") && !FractionalIndex.isValid("V0") && !FractionalIndex.isValid("V-"))
        #expect(!FractionalIndex.isValid("é") && FractionalIndex.isValid("0V") && FractionalIndex.isValid("z"))
    }

    @Test("A reversal keeps one key and gives the others new ones; an insertion or a move changes one key only")
    func fewKeysChange() {
        let keys = FractionalIndex.keys(between: nil, and: nil, count: 4)
        let reversed = FractionalIndex.reassign(keys.reversed())
        #expect(reversed.count == 3)
        var inserted: [String?] = keys
        inserted.insert(nil, at: 2)
        #expect(Array(FractionalIndex.reassign(inserted).keys) == [2])
        var moved: [String?] = keys
        moved.insert(moved.removeLast(), at: 0)
        #expect(FractionalIndex.reassign(moved).count == 1)
    }

    @Test(
        "After any sequence of insertions, moves and removals, the keys reassigned sort the list in its order (seeded)",
        arguments: [1, 2, 3])
    func randomEditsKeepTheOrder(seed: UInt64) {
        var generator = SplitMix64(seed: seed)
        var list: [(id: Int, key: String?)] = []
        var nextID = 0
        for _ in 0..<400 {
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<5:
                list.insert((nextID, nil), at: Int.random(in: 0...list.count, using: &generator))
                nextID += 1
            case 5..<8 where !list.isEmpty:
                let member = list.remove(at: Int.random(in: 0..<list.count, using: &generator))
                list.insert(member, at: Int.random(in: 0...list.count, using: &generator))
            case _ where !list.isEmpty:
                list.remove(at: Int.random(in: 0..<list.count, using: &generator))
            default:
                break
            }
            for (position, key) in FractionalIndex.reassign(list.map(\.key)) { list[position].key = key }
            let keys = list.compactMap(\.key)
            #expect(keys.count == list.count && keys.allSatisfy(FractionalIndex.isValid))
            #expect(Self.order(keys) == Array(list.indices), "seed \(seed)")
            #expect(keys.map(\.count).max() ?? 0 < 40, "keys stay short: \(keys.map(\.count).max() ?? 0)")
        }
    }
}

/// A seeded generator, so that a failing sequence can be run again.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
