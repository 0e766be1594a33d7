import Foundation
import ObjectGraph

// The external storage tests' model (Tests/ObjectGraphTests/ExternalStorageTests.swift): the same
// entities, so the same version of the model.
@Entity final class Snapshot {
    @Attribute(.unique) var label: String
    @Attribute(.externalStorage) var image: Data?
    var album: PhotoAlbum?
    init(_ label: String, image: Data? = nil) {
        self.label = label
        self.image = image
    }
}

@Entity final class PhotoAlbum {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Snapshot.album) var snapshots: [Snapshot] = []
    init(_ name: String) { self.name = name }
}

/// A deterministic generator (SplitMix64), the tests' own.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The bytes of an image, as the tests make them: a label's, of a size.
func imageBytes(_ label: String, size: Int) -> Data {
    var generator = SeededGenerator(state: UInt64(truncatingIfNeeded: label.utf8.reduce(5381) { ($0 &* 33) &+ Int($1) }))
    var data = Data(count: size)
    data.withUnsafeMutableBytes { buffer in
        for index in buffer.indices { buffer[index] = UInt8(truncatingIfNeeded: generator.next()) }
    }
    return data
}

/// Inserts, replaces, empties and deletes snapshots, large and small, saving after each, until a
/// thread kills the process with SIGKILL at a moment `seed` chooses: wherever a save then is
/// (writing a file, committing, moving files, removing them), the next open must find every row
/// with its file and no other file.
func saveSnapshotsUntilKilled(path: String, seed: UInt64) throws {
    var random = SeededGenerator(state: seed)
    let context = try ObjectContainer(for: Snapshot.self, PhotoAlbum.self, configuration: .file(path)).newBackgroundContext()
    var labels: [String] = []
    for index in 0..<4 {
        let label = "s\(index)"
        context.insert(Snapshot(label, image: imageBytes(label, size: 150_000 + index)))
        labels.append(label)
    }
    try context.save()
    let delay = 20_000 + Int(random.next() % 300_000)
    Thread.detachNewThread {
        usleep(useconds_t(delay))
        kill(getpid(), SIGKILL)
    }
    var next = labels.count
    while true {
        let size = Int(random.next() % 400_000)
        switch random.next() % 4 {
        case 0:
            let label = "s\(next)"
            next += 1
            context.insert(Snapshot(label, image: imageBytes(label, size: size)))
            labels.append(label)
        case 1 where !labels.isEmpty:
            let label = labels[Int(random.next() % UInt64(labels.count))]
            let snapshot = try context.fetch(FetchDescriptor<Snapshot>(predicate: #Predicate { $0.label == label })).first
            snapshot?.image = imageBytes(label, size: size)
        case 2 where !labels.isEmpty:
            let label = labels.remove(at: Int(random.next() % UInt64(labels.count)))
            if let snapshot = try context.fetch(FetchDescriptor<Snapshot>(predicate: #Predicate { $0.label == label })).first {
                context.delete(snapshot)
            }
        default:
            guard let label = labels.last else { continue }
            try context.fetch(FetchDescriptor<Snapshot>(predicate: #Predicate { $0.label == label })).first?.image = nil
        }
        try context.save()
    }
}
