import ObjectGraphModel

/// The changed keys of the objects a save writes, one shared `Set<String>` per entity and distinct
/// set of changed properties.
///
/// A save of many objects mostly changes the same properties of each: sharing the sets (a set is
/// copy-on-write) spares building one per object, and spares every context that merges the save,
/// and every observer of it, freeing one per object.
struct ChangedKeySets {
    private struct Properties: Hashable {
        let entity: ObjectIdentifier
        let indices: [Int]

        func hash(into hasher: inout Hasher) {
            hasher.combine(entity)
            hasher.combine(indices)
        }

        /// Looked up once per updated object: a few multiplications rather than SipHash over the
        /// indices (they are property numbers, not input an adversary chooses).
        func _rawHashValue(seed: Int) -> Int {
            var bits = UInt64(UInt(bitPattern: entity))
            for index in indices { bits = bits &* 0x100_0000_01B3 ^ UInt64(UInt(bitPattern: index)) }
            return CheapHash.mix(bits, seed: seed)
        }
    }

    private var sets: [Properties: Set<String>] = [:]
    private var scratch: [Int] = []

    /// The names of the properties of `state` changed since the last save (empty when none).
    mutating func changedKeys(of state: ObjectState) -> Set<String> {
        scratch.removeAll(keepingCapacity: true)
        state.appendChangedProperties(to: &scratch)
        if scratch.isEmpty { return [] }
        scratch.sort()
        let properties = Properties(entity: ObjectIdentifier(state.entity), indices: scratch)
        if let shared = sets[properties] { return shared }
        let keys = Set(scratch.map { state.entity.properties[$0].name })
        sets[properties] = keys
        return keys
    }
}
