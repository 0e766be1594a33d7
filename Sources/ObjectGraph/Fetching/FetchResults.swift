/// The results of a fetch: a random-access collection of objects.
///
/// With a ``FetchRequest/fetchBatchSize`` it holds only the matching objects' keys, and loads objects a
/// batch at a time as they are accessed; it keeps the current batch alive and nothing more.
public struct FetchResults<T: Entity>: RandomAccessCollection {
    enum Storage {
        case objects([T])
        case batched(BatchedObjects<T>)
    }

    let storage: Storage

    public var startIndex: Int { 0 }

    public var endIndex: Int {
        switch storage {
        case .objects(let objects): objects.count
        case .batched(let batches): batches.ids.count
        }
    }

    public subscript(position: Int) -> T {
        switch storage {
        case .objects(let objects): objects[position]
        case .batched(let batches): batches.object(at: position)
        }
    }
}

/// Loads the objects of a batched fetch, one batch of rows per query.
final class BatchedObjects<T: Entity> {
    let ids: [ObjectID]
    private let batchSize: Int
    private let context: ObjectContext
    private var window: [T] = []
    private var windowStart = -1

    init(ids: [ObjectID], batchSize: Int, context: ObjectContext) {
        self.ids = ids
        self.batchSize = batchSize
        self.context = context
    }

    func object(at position: Int) -> T {
        let start = position - position % batchSize
        if start != windowStart {
            window = context.loadBatch(Array(ids[start..<min(start + batchSize, ids.count)]), as: T.self)
            windowStart = start
        }
        return window[position - start]
    }
}
