import Foundation
import ObjectGraphContext
import ObjectGraphModel

extension Array {
    /// Whether `lhs` comes before `rhs` in the order these sort descriptors give in memory, the same
    /// order as the SQL they translate to: the descriptors in turn, then ties in the store's order
    /// (see ``ObjectID/precedesInStoreOrder(_:)``). Fetches merging unsaved changes and list monitors
    /// both sort with it.
    func orders<T: Entity>(_ lhs: T, before rhs: T) -> Bool where Element == SortDescriptor<T> {
        for descriptor in self {
            let order = descriptor.compare(lhs, rhs)
            if order != .orderedSame { return order == .orderedAscending }
        }
        return lhs.objectID.precedesInStoreOrder(rhs.objectID)
    }
}
