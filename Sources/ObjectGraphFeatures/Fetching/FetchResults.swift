import ObjectGraphContext
public import ObjectGraphModel

/// The results of a fetch: a random-access collection of objects.
///
/// With a ``FetchDescriptor/fetchBatchSize`` it holds only the matching rows' primary keys (8 bytes each),
/// and loads objects a batch at a time as they are accessed; it keeps the current batch alive and
/// nothing more.
public struct FetchResults<T: Entity>: RandomAccessCollection {
    // Objects are kept untyped (every one is a `T`, as the fetch guarantees) so that the code that
    // loads them is not generic: unspecialized generic code pays a metadata lookup per object.
    @usableFromInline let objects: [AnyObject]
    @usableFromInline let batches: BatchedObjects?
    /// The objects the fetch prefetched (see ``FetchDescriptor/relationshipKeyPathsForPrefetching``),
    /// held as long as the results: a context keeps no object nobody holds, and the results'
    /// relationships hold IDs, so without this their rows would be read again when touched.
    let prefetched: [any Entity]

    init(objects: [AnyObject], prefetched: [any Entity] = []) {
        self.objects = objects
        self.batches = nil
        self.prefetched = prefetched
    }

    init(batches: BatchedObjects) {
        self.objects = []
        self.batches = batches
        self.prefetched = []
    }

    /// Always 0.
    @inlinable public var startIndex: Int { 0 }

    /// The number of results.
    @inlinable public var endIndex: Int { batches?.keys.count ?? objects.count }

    // The index steps, written out: the defaults for a `Strideable` index are generic, and code
    // that walks the results without being specialized for `T` (a list monitor's) paid about 1,700
    // instructions per step through them.

    /// The position after `i`.
    @inlinable public func index(after i: Int) -> Int { i + 1 }

    /// The position before `i`.
    @inlinable public func index(before i: Int) -> Int { i - 1 }

    /// The position `distance` away from `i`.
    @inlinable public func index(_ i: Int, offsetBy distance: Int) -> Int { i + distance }

    /// The number of steps from `start` to `end`.
    @inlinable public func distance(from start: Int, to end: Int) -> Int { end - start }

    /// Every valid position, in order.
    @inlinable public var indices: Range<Int> { startIndex..<endIndex }

    /// The object at `position`; with a batch size, reading it may load its batch.
    @inlinable public subscript(position: Int) -> T {
        unsafeDowncast(batches?.object(at: position) ?? objects[position], to: T.self)
    }
}

/// Loads the objects of a batched fetch, one batch of rows per query.
@usableFromInline
final class BatchedObjects {
    @usableFromInline let keys: [Int64]
    private let batchSize: Int
    /// The fetched entity's host in the context, which it keeps alive (as the context did).
    private let host: EntityHost
    private let context: ObjectContext
    /// The relationships each batch prefetches (see ``FetchDescriptor/relationshipKeyPathsForPrefetching``).
    private let prefetching: [[Int]]
    private var window: [AnyObject] = []
    /// What the current batch prefetched, released with it.
    private var windowPrefetched: [any Entity] = []
    private var windowStart = -1

    init(keys: [Int64], batchSize: Int, host: EntityHost, prefetching: [[Int]] = []) {
        self.keys = keys
        self.batchSize = batchSize
        self.host = host
        self.context = host.context
        self.prefetching = prefetching
    }

    @usableFromInline
    func object(at position: Int) -> AnyObject {
        let start = position - position % batchSize
        if start != windowStart {
            // Released first: the objects nobody else holds go before the next batch is made, so
            // their memory is reused and they are no longer in the context's uniquing table.
            window = []
            windowPrefetched = []
            window = context.loadBatch(keys[start..<min(start + batchSize, keys.count)], mapping: host.mapping)
            windowStart = start
            if !prefetching.isEmpty {
                // A member read that fails here is read again, and reported, when the relationship
                // is used: a subscript cannot throw.
                windowPrefetched =
                    (try? context.prefetch(prefetching, from: window.compactMap { ($0 as? any Entity)?._$state })) ?? []
            }
        }
        return window[position - start]
    }
}
