package import ObjectGraphModel

/// The rows that merged saves updated and that a context holds no object for, by entity, with the
/// names of the properties each save changed.
///
/// A context merges another context's save into the objects it holds and posts those; a row it
/// does not hold has no object to post. Yet such a row can start to belong in a list monitor (its
/// rating changed elsewhere and now passes the filter; its country joined Europe), so the merge
/// notes it here, and the monitor evaluates the rows whose changes its request reads.
package struct UnheldUpdates {
    /// A row, with the properties the save changed (a save shares one set among the rows whose
    /// changed properties are the same, see ``ChangedKeySets``).
    package struct Row {
        package let id: ObjectID
        package let changedKeys: Set<String>
    }

    /// The rows of each entity. A save touches few entities: a short list, searched from the
    /// entity last appended to, costs less than hashing each row's entity.
    private var buckets: [(entity: ObjectIdentifier, rows: [Row])] = []
    private var lastBucket = 0

    package var isEmpty: Bool { buckets.isEmpty }

    mutating func append(_ id: ObjectID, changedKeys: Set<String>) {
        let entity = ObjectIdentifier(id.entity)
        if lastBucket >= buckets.count || buckets[lastBucket].entity != entity {
            if let index = buckets.firstIndex(where: { $0.entity == entity }) {
                lastBucket = index
            } else {
                buckets.append((entity, []))
                lastBucket = buckets.count - 1
            }
        }
        buckets[lastBucket].rows.append(Row(id: id, changedKeys: changedKeys))
    }

    /// The rows of `entity`.
    package func rows(of entity: EntityDeclaration) -> [Row] {
        buckets.first { $0.entity == ObjectIdentifier(entity) }?.rows ?? []
    }
}
