/// Hashing for keys that are not chosen by an adversary (row keys, object addresses): a
/// multiplication by an odd constant, which keeps consecutive keys in distinct buckets, folded so the
/// high bits count too. Mixing in the table's per-instance seed keeps tables of different sizes from
/// clustering when one is filled from another.
enum CheapHash {
    static func mix(_ bits: UInt64, seed: Int) -> Int {
        let mixed = (bits ^ UInt64(UInt(bitPattern: seed))) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: mixed ^ (mixed >> 32))
    }
}
