/// Positions in an ordered list that merge: each member's place is a key, and the list is its
/// members sorted by key. A member inserted or moved gets a key between its new neighbours' and no
/// other member's key changes, so that two devices that edit the same list at different places
/// both keep their edits when their keys meet (fractional indexing, as collaborative editors and
/// Figma's multiplayer use it).
///
/// A key is a fraction between 0 and 1 written in base 62 (`0-9A-Za-z`, whose ASCII order is the
/// digits' order) without its "0.", and without trailing zeros, so that comparing two keys as
/// text compares the fractions: "V" is one half, "F" a quarter.
enum FractionalIndex {
    private static let digits = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
    private static let base = 62

    /// Whether `key` is a key: base 62 digits, not empty, no trailing zero.
    static func isValid(_ key: String) -> Bool {
        guard let last = key.utf8.last, last != UInt8(ascii: "0") else { return false }
        return key.utf8.allSatisfy { digit($0) != nil }
    }

    /// `count` keys in increasing order, strictly between `lower` and `upper` (nil for 0 and 1):
    /// evenly spaced, as short as that spacing allows.
    ///
    /// - Precondition: `lower < upper` as fractions, both valid keys.
    static func keys(between lower: String?, and upper: String?, count: Int) -> [String] {
        guard count > 0 else { return [] }
        let low = lower.map(Self.digits(of:)) ?? []
        let high = upper.map(Self.digits(of:))
        // Fractions as an integer digit then `length` fractional ones: 0.… for the bounds, 1.0…
        // for no upper bound. More digits until the gap between them holds `count` keys.
        var length = max(low.count, high?.count ?? 0, 1)
        while true {
            let a = [0] + padded(low, to: length)
            let b = high.map { [0] + padded($0, to: length) } ?? [1] + Array(repeating: 0, count: length)
            let step = divide(subtract(b, a), by: count + 1)
            if step.contains(where: { $0 != 0 }) {
                var keys: [String] = []
                var current = a
                for _ in 0..<count {
                    current = add(current, step)
                    keys.append(text(of: Array(current.dropFirst())))
                }
                return keys
            }
            length += 1
        }
    }

    /// New keys for the members of a list, in its order, so that sorting by key gives that order,
    /// changing as few keys as it can: `keys[i]` is the key member `i` has (nil for none, or one
    /// that is not a key). The members whose keys increase along the longest run keep them; each
    /// other gets a key between its kept neighbours'. Returns the new keys by position.
    static func reassign(_ keys: [String?]) -> [Int: String] {
        // The longest strictly increasing subsequence of the keys (patience sorting), by position.
        var tails: [Int] = []
        var previous = Array(repeating: -1, count: keys.count)
        for (index, key) in keys.enumerated() {
            guard let key, isValid(key) else { continue }
            var low = 0
            var high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if let tail = keys[tails[middle]], tail < key { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[index] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var kept = Set<Int>()
        var index = tails.last ?? -1
        while index >= 0 {
            kept.insert(index)
            index = previous[index]
        }
        // Each run of members without a kept key gets keys between the kept keys around it.
        var assigned: [Int: String] = [:]
        var position = 0
        while position < keys.count {
            guard !kept.contains(position) else {
                position += 1
                continue
            }
            let start = position
            while position < keys.count && !kept.contains(position) { position += 1 }
            let lower = start > 0 ? keys[start - 1] : nil
            let upper = position < keys.count ? keys[position] : nil
            for (offset, key) in Self.keys(between: lower, and: upper, count: position - start).enumerated() {
                assigned[start + offset] = key
            }
        }
        return assigned
    }

    // MARK: Digits

    private static func digit(_ character: UInt8) -> Int? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(character - UInt8(ascii: "0"))
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): Int(character - UInt8(ascii: "A")) + 10
        case UInt8(ascii: "a")...UInt8(ascii: "z"): Int(character - UInt8(ascii: "a")) + 36
        default: nil
        }
    }

    private static func digits(of key: String) -> [Int] { key.utf8.compactMap(digit) }

    /// The key of a fraction's digits, its trailing zeros dropped.
    private static func text(of value: [Int]) -> String {
        var value = value
        while value.last == 0 { value.removeLast() }
        return String(decoding: value.map { digits[$0] }, as: UTF8.self)
    }

    private static func padded(_ value: [Int], to length: Int) -> [Int] {
        value + Array(repeating: 0, count: max(0, length - value.count))
    }

    /// `b - a`, for `b >= a`, both of one length.
    private static func subtract(_ b: [Int], _ a: [Int]) -> [Int] {
        var result = b
        var borrow = 0
        for index in stride(from: result.count - 1, through: 0, by: -1) {
            var value = b[index] - a[index] - borrow
            borrow = value < 0 ? 1 : 0
            if value < 0 { value += base }
            result[index] = value
        }
        return result
    }

    /// `value / divisor`, truncated, with as many digits as `value`.
    private static func divide(_ value: [Int], by divisor: Int) -> [Int] {
        var result: [Int] = []
        var remainder = 0
        for digit in value {
            let current = remainder * base + digit
            result.append(current / divisor)
            remainder = current % divisor
        }
        return result
    }

    /// `a + b`, both of one length; the sum stays below the upper bound where it is used.
    private static func add(_ a: [Int], _ b: [Int]) -> [Int] {
        var result = a
        var carry = 0
        for index in stride(from: a.count - 1, through: 0, by: -1) {
            let value = a[index] + b[index] + carry
            result[index] = value % base
            carry = value / base
        }
        return result
    }
}
