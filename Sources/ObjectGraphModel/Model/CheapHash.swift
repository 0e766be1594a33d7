/// Hashing for keys that are not chosen by an adversary (row keys, object addresses): a
/// multiplication by an odd constant, which keeps consecutive keys in distinct buckets, folded so the
/// high bits count too. Mixing in the table's per-instance seed keeps tables of different sizes from
/// clustering when one is filled from another.
@usableFromInline package enum CheapHash {
    @inlinable package static func mix(_ bits: UInt64, seed: Int) -> Int {
        let mixed = (bits ^ UInt64(UInt(bitPattern: seed))) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: mixed ^ (mixed >> 32))
    }

    /// An object identity's hash: its address, mixed.
    @inlinable package static func identity(_ identifier: ObjectIdentifier, seed: Int) -> Int {
        mix(UInt64(UInt(bitPattern: identifier)), seed: seed)
    }
}

/// Any object's identity as a dictionary key, hashed by one multiplication (the context keys its
/// states the same way, with `StateKey`).
@usableFromInline package struct IdentityKey: Hashable, Sendable {
    @usableFromInline package let identifier: ObjectIdentifier

    package init(_ object: AnyObject) { identifier = ObjectIdentifier(object) }

    package init(_ identifier: ObjectIdentifier) { self.identifier = identifier }

    @usableFromInline package func hash(into hasher: inout Hasher) {
        hasher.combine(identifier)
    }

    @inlinable package func _rawHashValue(seed: Int) -> Int {
        CheapHash.identity(identifier, seed: seed)
    }
}

/// A primary key as a dictionary key, hashed by one multiplication instead of SipHash.
///
/// Every fetched object is looked up, registered and, when released, removed: three hashes per
/// object, which with the standard hasher cost more than reading the row's integer columns. Keys
/// are the store's own row IDs, not attacker-chosen input, so flooding resistance buys nothing here;
/// the multiplier is odd, so consecutive keys (the usual case) land in distinct buckets.
@usableFromInline package struct RowKey: Hashable, Sendable {
    @usableFromInline package let value: Int64

    @inlinable package init(_ value: Int64) { self.value = value }

    @inlinable package func hash(into hasher: inout Hasher) {
        hasher.combine(value)
    }

    /// The hash `Dictionary` asks for.
    @inlinable package func _rawHashValue(seed: Int) -> Int {
        CheapHash.mix(UInt64(bitPattern: value), seed: seed)
    }
}
