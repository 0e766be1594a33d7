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

    init(objects: [AnyObject]) {
        self.objects = objects
        self.batches = nil
    }

    init(batches: BatchedObjects) {
        self.objects = []
        self.batches = batches
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
    private var window: [AnyObject] = []
    private var windowStart = -1

    init(keys: [Int64], batchSize: Int, host: EntityHost) {
        self.keys = keys
        self.batchSize = batchSize
        self.host = host
        self.context = host.context
    }

    @usableFromInline
    func object(at position: Int) -> AnyObject {
        let start = position - position % batchSize
        if start != windowStart {
            // Released first: the objects nobody else holds go before the next batch is made, so
            // their memory is reused and they are no longer in the context's uniquing table.
            window = []
            window = context.loadBatch(keys[start..<min(start + batchSize, keys.count)], mapping: host.mapping)
            windowStart = start
        }
        return window[position - start]
    }
}
