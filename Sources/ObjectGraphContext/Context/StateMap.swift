import ObjectGraphModel

/// Entries keyed by object state, in the order their keys were first added: the context's
/// bookkeeping of changed objects (the unit of work's lists, the changes still to post).
///
/// It behaves as `OrderedDictionary<StateKey, Value>` does for the operations the context uses:
/// setting a new key appends, setting an existing one replaces in place, removing keeps the order
/// of the rest. Every object a save inserts, updates or deletes is added to two of these, and
/// OrderedCollections' hash table cost about 840 instructions an addition (its growth, its
/// probing, the exclusivity checks of its storage); a native dictionary of positions beside two
/// arrays costs a third of that. Removing an entry is linear, as it is in an ordered dictionary.
///
/// The dictionary of positions is brought up to date at the first lookup after additions, not at
/// each addition: a caller that knows a key is new appends it with ``appendNew(_:_:)``, and a unit
/// of work that only adds objects and walks them (an insertion of many objects, an update of many,
/// then a save) hashes none of them. Lookups are therefore `mutating`.
struct StateMap<Value> {
    /// The keys, in order.
    private(set) var keys: [StateKey] = []
    /// The values, in the order of their keys.
    private(set) var values: [Value] = []
    /// Where each of the first `indexedCount` keys is in `keys`.
    private var positions: [StateKey: Int] = [:]
    /// How many keys `positions` has: those after them are indexed at the next lookup.
    private var indexedCount = 0

    var count: Int { keys.count }
    var isEmpty: Bool { keys.isEmpty }

    /// The value for a key; setting nil removes the entry.
    subscript(key: StateKey) -> Value? {
        mutating get { position(of: key).map { values[$0] } }
        set {
            if let newValue {
                if let position = position(of: key) {
                    values[position] = newValue
                } else {
                    appendNew(key, newValue)
                }
            } else {
                removeValue(forKey: key)
            }
        }
    }

    /// The value for a key, added with `defaultValue` (at the end) when the key is new.
    subscript(key: StateKey, default defaultValue: @autoclosure () -> Value) -> Value {
        mutating get { self[key] ?? defaultValue() }
        _modify {
            let position: Int
            if let existing = self.position(of: key) {
                position = existing
            } else {
                position = keys.count
                appendNew(key, defaultValue())
            }
            yield &values[position]
        }
    }

    /// Adds an entry for a key the caller knows is not here (checked in debug builds), without
    /// hashing it now.
    mutating func appendNew(_ key: StateKey, _ value: Value) {
        assert(position(of: key) == nil, "a key added twice to a StateMap")
        keys.append(key)
        values.append(value)
    }

    /// Makes room for `capacity` entries in all.
    mutating func reserveCapacity(_ capacity: Int) {
        keys.reserveCapacity(capacity)
        values.reserveCapacity(capacity)
        positions.reserveCapacity(capacity)
    }

    /// Removes a key's entry; returns its value, nil if there was none.
    @discardableResult
    mutating func removeValue(forKey key: StateKey) -> Value? {
        guard let position = position(of: key) else { return nil }
        positions[key] = nil
        keys.remove(at: position)
        let value = values.remove(at: position)
        for index in position..<keys.count { positions[keys[index]] = index }
        indexedCount = keys.count
        return value
    }

    /// Removes the entries that match, keeping the order of the others.
    mutating func removeAll(where shouldBeRemoved: ((key: StateKey, value: Value)) throws -> Bool) rethrows {
        var kept = StateMap()
        for element in self where !(try shouldBeRemoved(element)) { kept.appendNew(element.key, element.value) }
        self = kept
    }

    /// Where a key's entry is, indexing the keys added since the last lookup first.
    private mutating func position(of key: StateKey) -> Int? {
        if indexedCount < keys.count {
            // Reserved only for many keys: `reserveCapacity` is not specialized, and costs more
            // than the insertion of one key (a lookup after each addition is common).
            if keys.count - indexedCount > 16 { positions.reserveCapacity(keys.count) }
            for index in indexedCount..<keys.count { positions[keys[index]] = index }
            indexedCount = keys.count
        }
        return positions[key]
    }
}

extension StateMap: Sequence {
    /// The entries, in order, as `(key, value)` pairs.
    func makeIterator() -> some IteratorProtocol<(key: StateKey, value: Value)> {
        zip(keys, values).lazy.map { (key: $0, value: $1) }.makeIterator()
    }

    var underestimatedCount: Int { keys.count }
}

extension StateMap: ExpressibleByDictionaryLiteral {
    init(dictionaryLiteral elements: (StateKey, Value)...) {
        for (key, value) in elements { self[key] = value }
    }
}
