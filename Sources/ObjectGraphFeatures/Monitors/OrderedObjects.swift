import ObjectGraphContext
import ObjectGraphModel

/// The objects of a list monitor in list order, in chunks of at most ``maximumChunkSize``: inserting
/// or removing one moves at most a chunk's references, finding where an object goes takes
/// O(log n) comparisons, and finding where an object is takes a hash lookup and a short scan.
///
/// A position is the number of objects before it: the counts of the chunks before the object's chunk
/// (a few hundred additions for 100,000 objects) plus its place in the chunk.
struct OrderedObjects {
    final class Chunk {
        var objects: ContiguousArray<AnyObject>
        init(_ objects: ContiguousArray<AnyObject>) { self.objects = objects }
    }

    static let maximumChunkSize = 512
    private var chunks: [Chunk] = []
    private var chunkOfObject: [ObjectIdentifier: Chunk] = [:]
    private(set) var count = 0

    /// The objects in `sorted`, which must already be in list order.
    init(sorted: [AnyObject]) {
        var start = 0
        while start < sorted.count {
            let end = min(start + Self.maximumChunkSize / 2, sorted.count)
            let chunk = Chunk(ContiguousArray(sorted[start..<end]))
            for object in chunk.objects { chunkOfObject[ObjectIdentifier(object)] = chunk }
            chunks.append(chunk)
            start = end
        }
        count = sorted.count
    }

    func contains(_ object: AnyObject) -> Bool {
        chunkOfObject[ObjectIdentifier(object)] != nil
    }

    /// The position of `object`, nil when it is not in the list.
    func position(of object: AnyObject) -> Int? {
        guard let chunk = chunkOfObject[ObjectIdentifier(object)],
            let chunkIndex = chunks.firstIndex(where: { $0 === chunk }),
            let offset = chunk.objects.firstIndex(where: { $0 === object })
        else { return nil }
        return chunks[..<chunkIndex].reduce(0) { $0 + $1.objects.count } + offset
    }

    func object(at position: Int) -> AnyObject {
        var remaining = position
        for chunk in chunks {
            if remaining < chunk.objects.count { return chunk.objects[remaining] }
            remaining -= chunk.objects.count
        }
        preconditionFailure("position \(position) out of a list of \(count)")
    }

    /// The objects at `positions`, in order.
    func objects(in positions: Range<Int>) -> [AnyObject] {
        var result: [AnyObject] = []
        result.reserveCapacity(positions.count)
        var chunkStart = 0
        for chunk in chunks {
            let chunkEnd = chunkStart + chunk.objects.count
            if chunkEnd > positions.lowerBound, chunkStart < positions.upperBound {
                let lower = max(positions.lowerBound, chunkStart) - chunkStart
                let upper = min(positions.upperBound, chunkEnd) - chunkStart
                result += chunk.objects[lower..<upper]
            }
            if chunkEnd >= positions.upperBound { break }
            chunkStart = chunkEnd
        }
        return result
    }

    /// Every object, in order.
    var all: [AnyObject] { chunks.flatMap(\.objects) }

    /// Removes `object`; returns whether it was there.
    @discardableResult
    mutating func remove(_ object: AnyObject) -> Bool {
        guard let chunk = chunkOfObject.removeValue(forKey: ObjectIdentifier(object)),
            let offset = chunk.objects.firstIndex(where: { $0 === object })
        else { return false }
        chunk.objects.remove(at: offset)
        count -= 1
        if chunk.objects.isEmpty { chunks.removeAll { $0 === chunk } }
        return true
    }

    /// Inserts `object` after every object that precedes it or equals it in `areInIncreasingOrder`.
    /// The objects in the list must be in that order (true when the ones whose values changed were
    /// removed first).
    mutating func insert(_ object: AnyObject, by areInIncreasingOrder: (AnyObject, AnyObject) -> Bool) {
        guard !chunks.isEmpty else {
            let chunk = Chunk([object])
            chunks = [chunk]
            chunkOfObject[ObjectIdentifier(object)] = chunk
            count = 1
            return
        }
        // The first chunk whose last object comes after the new one holds its place.
        var low = 0
        var high = chunks.count
        while low < high {
            let middle = (low + high) / 2
            if let last = chunks[middle].objects.last, areInIncreasingOrder(object, last) { high = middle } else { low = middle + 1 }
        }
        let chunkIndex = min(low, chunks.count - 1)
        let chunk = chunks[chunkIndex]
        var lower = 0
        var upper = chunk.objects.count
        while lower < upper {
            let middle = (lower + upper) / 2
            if areInIncreasingOrder(object, chunk.objects[middle]) { upper = middle } else { lower = middle + 1 }
        }
        chunk.objects.insert(object, at: lower)
        chunkOfObject[ObjectIdentifier(object)] = chunk
        count += 1
        if chunk.objects.count > Self.maximumChunkSize {
            let half = chunk.objects.count / 2
            let second = Chunk(ContiguousArray(chunk.objects[half...]))
            chunk.objects.removeSubrange(half...)
            for moved in second.objects { chunkOfObject[ObjectIdentifier(moved)] = second }
            chunks.insert(second, at: chunkIndex + 1)
        }
    }
}
