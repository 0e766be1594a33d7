import GRDB
import ObjectGraph

/// The same data in an ObjectGraph store and in a plain table (read through GRDB and through a raw
/// connection), made and filled on first use, then kept for every run of the workloads that read
/// them.
final class FilledStores {
    private let make: () throws -> (graph: ObjectContainer, plain: DatabasePool, plainPath: String)
    private var filled: (graph: ObjectContainer, plain: DatabasePool, raw: RawDatabase)?

    /// Stores that `make` makes and fills: the container, the plain pool and its file's path.
    init(_ make: @escaping () throws -> (graph: ObjectContainer, plain: DatabasePool, plainPath: String)) {
        self.make = make
    }

    func fill() throws { _ = try stores() }
    func graph() throws -> ObjectContainer { try stores().graph }
    func plain() throws -> DatabasePool { try stores().plain }
    func raw() throws -> RawDatabase { try stores().raw }

    private func stores() throws -> (graph: ObjectContainer, plain: DatabasePool, raw: RawDatabase) {
        if let filled { return filled }
        let (graph, plain, path) = try make()
        let stores = (graph, plain, try RawDatabase(path: path))
        filled = stores
        return stores
    }
}
