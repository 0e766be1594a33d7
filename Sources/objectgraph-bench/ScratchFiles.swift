import Foundation

/// A temporary directory for the benchmark's database files, removed at the end.
struct ScratchFiles {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("objectgraph-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }

    /// The path of a database file that does not exist yet: any earlier one (and its WAL, and its
    /// directory of values kept in files) is removed.
    func fresh(_ name: String) -> String {
        let path = path(name)
        for suffix in ["", "-wal", "-shm", "-external"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        return path
    }

    func removeAll() {
        try? FileManager.default.removeItem(at: directory)
    }
}
