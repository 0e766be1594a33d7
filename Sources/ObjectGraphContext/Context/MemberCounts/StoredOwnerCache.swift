import ObjectGraphStore

/// The owners that rows of one-to-many relationships' destinations name in the store, looked up
/// for member counts: read once per view of the store, and forgotten when that view changes (a
/// merge, a save, a rollback), as the store's marks are.
///
/// A count corrects the store's number for the rows marked, and for the objects this context
/// changed, deleted or marked: each of them is looked up here, where a deletion pass's many counts
/// find it read already.
struct StoredOwnerCache {
    /// By relationship, the owner of each row looked up (nil for none, or no row).
    private var owners: [ObjectIdentifier: [Int64: Int64?]] = [:]
    /// By relationship, how many of the rows marked as the context last read the marks name each
    /// owner.
    private var markedCounts: [ObjectIdentifier: [Int64: Int]] = [:]

    /// The owners of the rows of `keys` for the one-to-many `relationship`, reading the saved keys
    /// not looked up yet; a temporary key is never looked up. Nil for a relationship the store
    /// cannot count.
    mutating func owners(
        of relationship: RelationshipMapping, keys: some Sequence<Int64>, reader: RowReader
    ) throws -> [Int64: Int64?]? {
        let id = ObjectIdentifier(relationship)
        var known = owners[id] ?? [:]
        let missing = keys.filter { $0 >= 0 && known[$0] == nil }
        if !missing.isEmpty {
            guard let read = try reader.storedOwners(of: relationship, keys: missing) else { return nil }
            owners[id] = nil  // the dictionary's only reference: grown in place
            for key in missing { known[key] = read[key] ?? .some(nil) }
            owners[id] = known
        }
        return known
    }

    /// How many rows of `marked`, the keys marked in the store as the context last read them, name
    /// each owner of the one-to-many `relationship`, whose destination's mark is `markColumn`
    /// (quoted). The store's marked rows are read through the mark's index with their owners; the
    /// keys of `marked` no longer among them (unmarked since, which a merge has not told yet) are
    /// looked up. Nil for a relationship the store cannot count.
    mutating func markedCounts(
        of relationship: RelationshipMapping, marked: MarkedKeySet, markColumn: String, reader: RowReader
    ) throws -> [Int64: Int]? {
        let id = ObjectIdentifier(relationship)
        if let counts = markedCounts[id] { return counts }
        var counts: [Int64: Int] = [:]
        var found = 0
        let readable = try reader.forEachMarkedRow(of: relationship, markColumn: markColumn) { key, owner in
            guard marked.contains(key) else { return }  // marked since: not hidden yet
            found += 1
            if let owner { counts[owner, default: 0] += 1 }
        }
        guard readable else { return nil }
        if found < marked.count {
            // Some of `marked` were unmarked since: looked up one by one.
            var markedNow = Set<Int64>()
            _ = try reader.forEachMarkedRow(of: relationship, markColumn: markColumn) { key, _ in markedNow.insert(key) }
            let unmarkedSince = marked.keys.filter { !markedNow.contains($0) }
            guard let owners = try owners(of: relationship, keys: unmarkedSince, reader: reader) else { return nil }
            for key in unmarkedSince {
                if case let owner?? = owners[key] { counts[owner, default: 0] += 1 }
            }
        }
        markedCounts[id] = counts
        return counts
    }

    mutating func forget() {
        if !owners.isEmpty { owners = [:] }
        if !markedCounts.isEmpty { markedCounts = [:] }
    }
}
