/// The primary keys a save gave its new rows, by the temporary keys their objects had: what the
/// store's writer allocates, and what contexts rename their objects and links with.
///
/// Each new object's temporary key is looked up several times in one save (its own, its to-one
/// links as they are written, the members of its owners' relationships as they are renamed), so
/// keys are hashed by one multiplication instead of SipHash: with the standard hasher these lookups
/// cost an insertion of 100,000 objects about 500 instructions an object. The keys are the process's
/// own counters, not anyone's input, so flooding resistance buys nothing here.
package struct AllocatedKeys: Sendable, ExpressibleByDictionaryLiteral {
    private var keys: [RowKey: Int64] = [:]

    package init() {}

    package init(dictionaryLiteral elements: (Int64, Int64)...) {
        for (temporary, allocated) in elements { keys[RowKey(temporary)] = allocated }
    }

    package var isEmpty: Bool { keys.isEmpty }
    package var count: Int { keys.count }

    /// The key allocated for a temporary key; nil when this save allocated none for it.
    package subscript(temporary: Int64) -> Int64? {
        get { keys[RowKey(temporary)] }
        set { keys[RowKey(temporary)] = newValue }
    }

    package mutating func reserveCapacity(_ capacity: Int) {
        keys.reserveCapacity(capacity)
    }

    /// Adds the keys of another save (a temporary key is never given out twice in a process).
    package mutating func merge(_ other: AllocatedKeys) {
        keys.merge(other.keys) { $1 }
    }
}
