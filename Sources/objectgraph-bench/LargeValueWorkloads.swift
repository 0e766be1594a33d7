import Foundation
import GRDB
import ObjectGraph

/// A photo whose image is kept in a file beside the store.
@Entity final class Photo {
    var caption: String
    @Attribute(.externalStorage) var image: Data?
    init(caption: String, image: Data?) {
        self.caption = caption
        self.image = image
    }
}

/// A photo as GRDB's records write it.
struct PhotoRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "photo"
    var caption: String
    var image: Data
}

/// What `@Attribute(.externalStorage)` costs and spares: ObjectGraph keeps each image in a file
/// (written and flushed inside the transaction, moved into place after it), every other side keeps
/// the same bytes in its rows, as an app without external storage would.
enum LargeValueWorkloads {
    static let count = 100
    static let imageSize = 500_000

    /// Image `index`: bytes that differ from one image to the next.
    static func image(_ index: Int) -> Data {
        var data = Data(count: imageSize)
        data.withUnsafeMutableBytes { buffer in
            for position in stride(from: 0, to: buffer.count, by: 8) { buffer[position] = UInt8(truncatingIfNeeded: index &+ position) }
        }
        return data
    }

    static let createTable = "CREATE TABLE photo (id INTEGER PRIMARY KEY, caption TEXT NOT NULL, image BLOB NOT NULL)"

    static func make(files: ScratchFiles) -> [Workload] {
        let stores = PhotoStores(files: files)
        return [insert(stores, files: files), captionsAndSizes(stores), readImages(stores)]
    }

    static func openDatabase(at path: String) throws -> DatabasePool {
        let pool = try DatabasePool(path: path)
        try pool.write { db in try db.execute(sql: createTable) }
        return pool
    }

    /// Insert 100 photos of 500 KB and save, each run on a fresh file.
    static func insert(_ stores: PhotoStores, files: ScratchFiles) -> Workload {
        var images: [Data] { stores.images }
        var graph: ObjectContainer?
        var plain: DatabasePool?
        var records: DatabasePool?
        var raw: RawDatabase?
        return Workload(
            name: "insert \(count) photos of \(imageSize / 1000) KB and save (ObjectGraph: in files)",
            objectGraph: Contender(
                prepare: {
                    graph = nil
                    graph = try ObjectContainer(for: Photo.self, configuration: .file(files.fresh("photos-graph.sqlite")))
                },
                run: {
                    guard let graph else { return }
                    let context = graph.newBackgroundContext()
                    for (index, image) in images.enumerated() { context.insert(Photo(caption: "photo \(index)", image: image)) }
                    try context.save()
                },
                verify: {
                    let stored = try FileManager.default.contentsOfDirectory(atPath: files.path("photos-graph.sqlite") + "-external")
                    try WorkloadError.check("files", stored.filter { $0 != "incoming" }.count, count)
                }),
            baseline: Contender(
                prepare: {
                    plain = nil
                    plain = try openDatabase(at: files.fresh("photos-plain.sqlite"))
                },
                run: {
                    try plain?.write { db in
                        let statement = try db.makeStatement(sql: "INSERT INTO photo (caption, image) VALUES (?, ?)")
                        for (index, image) in images.enumerated() { try statement.execute(arguments: ["photo \(index)", image]) }
                    }
                }),
            peer: Contender(
                prepare: {
                    records = nil
                    records = try openDatabase(at: files.fresh("photos-records.sqlite"))
                },
                run: {
                    try records?.write { db in
                        for (index, image) in images.enumerated() { try PhotoRecord(caption: "photo \(index)", image: image).insert(db) }
                    }
                }),
            raw: Contender(
                prepare: {
                    raw = nil
                    let path = files.fresh("photos-raw.sqlite")
                    do { _ = try openDatabase(at: path) }  // closed when released
                    raw = try RawDatabase(path: path)
                },
                run: {
                    guard let raw else { return }
                    try raw.transaction {
                        let statement = try raw.prepare("INSERT INTO photo (caption, image) VALUES (?, ?)")
                        for (index, image) in images.enumerated() {
                            try statement.bind("photo \(index)", at: 1)
                            try statement.bind(image, at: 2)
                            try statement.run()
                        }
                    }
                }))
    }

    /// Read the captions of the photos and the size of each image: ObjectGraph fetches the photos
    /// (their rows are small; each image is mapped, not read), the other sides read the same
    /// columns of rows that hold the images (SQLite reads a blob's length without its pages).
    static func captionsAndSizes(_ stores: PhotoStores) -> Workload {
        let query = "SELECT caption, length(image) FROM photo ORDER BY id"
        return Workload(
            name: "fetch \(count) photos: each caption and its image's size (ObjectGraph: images in files)",
            setUp: stores.fill,
            objectGraph: Contender(run: {
                for photo in try stores.graph().newBackgroundContext().fetch(FetchDescriptor<Photo>()) {
                    Sink.checksum &+= photo.caption.utf8.count &+ (photo.image?.count ?? 0)
                }
            }),
            baseline: Contender(run: {
                try stores.plain().read { db in
                    let rows = try Row.fetchCursor(db.cachedStatement(sql: query))
                    while let row = try rows.next() { Sink.checksum &+= (row[0] as String).utf8.count &+ (row[1] as Int) }
                }
            }),
            peer: Contender(run: {
                try stores.plain().read { db in
                    for row in try Row.fetchAll(db, sql: query) { Sink.checksum &+= (row[0] as String).utf8.count &+ (row[1] as Int) }
                }
            }),
            raw: Contender(run: {
                let raw = try stores.raw()
                try raw.read {
                    let statement = try raw.prepare(query)
                    while try statement.step() { Sink.checksum &+= (statement.text(0)?.utf8.count ?? 0) &+ Int(statement.int64(1)) }
                    try statement.reset()
                }
            }))
    }

    /// A byte of every 4 KB page of an image: every page read.
    static func pageSum(_ bytes: UnsafeRawBufferPointer) -> Int {
        var sum = 0
        for position in stride(from: 0, to: bytes.count, by: 4096) { sum &+= Int(bytes[position]) }
        return sum
    }

    /// Read every page of every image: ObjectGraph through the mapped files, the other sides from
    /// the rows (SQLite assembles each blob from its overflow pages).
    static func readImages(_ stores: PhotoStores) -> Workload {
        let query = "SELECT caption, image FROM photo ORDER BY id"
        return Workload(
            name: "fetch \(count) photos and read every page of each image (ObjectGraph: images in files)",
            setUp: stores.fill,
            objectGraph: Contender(run: {
                for photo in try stores.graph().newBackgroundContext().fetch(FetchDescriptor<Photo>()) {
                    Sink.checksum &+= photo.caption.utf8.count &+ (photo.image?.withUnsafeBytes(pageSum) ?? 0)
                }
            }),
            baseline: Contender(run: {
                try stores.plain().read { db in
                    let rows = try Row.fetchCursor(db.cachedStatement(sql: query))
                    while let row = try rows.next() {
                        Sink.checksum &+= (row[0] as String).utf8.count &+ (row[1] as Data).withUnsafeBytes(pageSum)
                    }
                }
            }),
            peer: Contender(run: {
                try stores.plain().read { db in
                    for record in try PhotoRecord.fetchAll(db, sql: query) {
                        Sink.checksum &+= record.caption.utf8.count &+ record.image.withUnsafeBytes(pageSum)
                    }
                }
            }),
            raw: Contender(run: {
                let raw = try stores.raw()
                try raw.read {
                    let statement = try raw.prepare(query)
                    while try statement.step() {
                        Sink.checksum &+= (statement.text(0)?.utf8.count ?? 0) &+ statement.withBlob(1, pageSum)
                    }
                    try statement.reset()
                }
            }))
    }
}

/// The photos in ObjectGraph (images in files) and in a plain table (images in rows).
final class PhotoStores {
    /// Made when first asked for: a run of other workloads makes none.
    private(set) lazy var images = (0..<LargeValueWorkloads.count).map(LargeValueWorkloads.image)
    private(set) lazy var stores = FilledStores { [unowned self] in
        let graph = try ObjectContainer(for: Photo.self, configuration: .file(files.fresh("photos-read-graph.sqlite")))
        let context = graph.newBackgroundContext()
        for (index, image) in images.enumerated() { context.insert(Photo(caption: "photo \(index)", image: image)) }
        try context.save()
        let path = files.fresh("photos-read-plain.sqlite")
        let plain = try LargeValueWorkloads.openDatabase(at: path)
        try plain.write { db in
            for (index, image) in images.enumerated() {
                try db.execute(sql: "INSERT INTO photo (caption, image) VALUES (?, ?)", arguments: ["photo \(index)", image])
            }
        }
        return (graph, plain, path)
    }
    private let files: ScratchFiles

    init(files: ScratchFiles) {
        self.files = files
    }

    func fill() throws { try stores.fill() }
    func graph() throws -> ObjectContainer { try stores.graph() }
    func plain() throws -> DatabasePool { try stores.plain() }
    func raw() throws -> RawDatabase { try stores.raw() }
}
