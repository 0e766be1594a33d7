package import ObjectGraphModel

/// The values of one object's row, as the ``RowWriter`` writes them.
///
/// The store knows rows, not objects: an object's state adopts this protocol (here, so that the
/// writer's specializations for it can be made here too), as do batch rows, and the writer,
/// generic over it, reads their values without copying them into an intermediate row.
package protocol RowValues {
    /// The value at a position of the row's values: attributes in declaration order, then the key of
    /// each to-one relationship (negative for an object that has no row yet).
    func value(atPosition position: Int) -> StoredValue
    /// The key of the object to-one relationship `slot` points to; nil for none.
    func relatedKey(at slot: Int) -> Int64?
}

extension ObjectState: RowValues {}
