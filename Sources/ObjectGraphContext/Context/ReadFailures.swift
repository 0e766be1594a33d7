import ObjectGraphModel
import OrderedCollections

/// Reads that failed in an accessor that cannot throw, by object: each object stays as it was and
/// is read again when next used. ``Entity/checkedValue(_:)`` throws the failure of the read it made;
/// the next save throws the first one, and forgets them all.
struct ReadFailures {
    private var failures: OrderedDictionary<ObjectID, ObjectGraphError> = [:]

    /// The failure of the last read of an object, if it failed.
    subscript(id: ObjectID) -> ObjectGraphError? { failures[id] }

    var isEmpty: Bool { failures.isEmpty }

    mutating func record(_ failure: ObjectGraphError, for id: ObjectID) {
        failures[id] = failure
    }

    /// Forgets an object's failure, once a read of it succeeded.
    @inline(__always)
    mutating func forget(_ id: ObjectID) {
        if !failures.isEmpty { failures[id] = nil }
    }

    /// The first failure, all of them forgotten.
    mutating func takeFirst() -> ObjectGraphError? {
        defer { failures = [:] }
        return failures.values.first
    }
}
