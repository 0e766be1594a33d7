import ObjectGraphModel

/// The primary keys of one entity's rows marked for deletion, asked about once per member at every
/// relationship read that hides them.
///
/// Keys are mostly dense (SQLite hands them out in order), so they are kept as a bitmap over their
/// range, where a test is a shift and a mask; keys spread too thinly for a bitmap to stay small (more
/// than 64 bytes of it per key) are kept in a hashed set.
struct MarkedKeySet {
    private let lowest: Int64
    private let words: [UInt64]
    private let sparse: Set<Int64>?

    let isEmpty: Bool

    /// Beyond this many bits of range per key, a bitmap costs more memory than it saves time.
    private static let bitsPerKey: Int64 = 512

    init(_ keys: [Int64]) {
        isEmpty = keys.isEmpty
        guard let lowest = keys.min(), let highest = keys.max() else {
            (self.lowest, words, sparse) = (0, [], nil)
            return
        }
        // Subtracting may overflow for keys far apart: such keys are sparse.
        let (range, overflow) = highest.subtractingReportingOverflow(lowest)
        guard !overflow, range / Self.bitsPerKey < Int64(keys.count) else {
            (self.lowest, words, sparse) = (0, [], Set(keys))
            return
        }
        var words = [UInt64](repeating: 0, count: Int(range / 64) + 1)
        for key in keys {
            let offset = key - lowest
            words[Int(offset / 64)] |= 1 << UInt64(offset % 64)
        }
        (self.lowest, self.words, sparse) = (lowest, words, nil)
    }

    @inline(__always)
    func contains(_ key: Int64) -> Bool {
        if let sparse { return sparse.contains(key) }
        let (offset, overflow) = key.subtractingReportingOverflow(lowest)
        guard !overflow, offset >= 0, offset / 64 < Int64(words.count) else { return false }
        return words[Int(offset / 64)] & (1 << UInt64(offset % 64)) != 0
    }
}
