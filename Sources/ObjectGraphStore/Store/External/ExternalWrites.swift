import Foundation
import ObjectGraphModel

/// The files one write transaction writes (see ``ExternalFiles``): a value of an
/// `@Attribute(.externalStorage)` attribute larger than the threshold becomes a file in
/// `incoming/`, and its row holds the file's name. Once the transaction commits the files are
/// moved into place; if it fails they are removed.
final class ExternalWrites {
    let files: ExternalFiles
    /// Values of more bytes than this go to files.
    let threshold: Int
    /// The names of the files written so far.
    private(set) var names: [String] = []

    init(files: ExternalFiles, threshold: Int) {
        self.files = files
        self.threshold = threshold
    }

    /// What a column of an attribute stored outside the rows holds for `value`: the name of a new
    /// file for a large value, the value itself otherwise.
    func columnValue(
        for value: StoredValue, id: ObjectID, slot: Int, mapping: EntityMapping
    ) throws -> StoredValue {
        guard case .blob(let data) = value, data.count > threshold else { return value }
        do {
            let name = try files.write(data)
            names.append(name)
            return .text(name)
        } catch {
            throw ObjectGraphError.store(
                StoreError(
                    resultCode: .ioError,
                    message: "\(id) cannot be saved: the value of \(mapping.name).\(mapping.attributeColumns[slot]) "
                        + "(\(data.count) bytes) cannot be stored in a file: \(error)"))
        }
    }

    /// Makes the names of the files written durable: called before the transaction commits, so
    /// that no committed row names a file a power loss could take away.
    func flush() throws {
        guard !names.isEmpty else { return }
        do {
            try files.flushIncoming()
        } catch {
            throw ObjectGraphError.store(
                StoreError(resultCode: .ioError, message: "\(files.incoming.path) cannot be flushed to disk: \(error)"))
        }
    }

    /// Moves the files into place: the transaction committed.
    func settle() {
        files.settle(names)
    }

    /// Removes the files: the transaction failed.
    func discard() {
        files.remove(names)
    }
}
