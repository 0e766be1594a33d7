package import Foundation
import ObjectGraphModel

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The files beside a store that hold the large values of `@Attribute(.externalStorage)`
/// attributes: `<store>-external/`, one file per value, named by a UUID that the value's column
/// holds as text (a value kept in its row is a blob, so the two never mix up).
///
/// A file is written once and never changed: a new value is a new file, so a value read earlier
/// stays what it was. Reads map the file into memory, and a mapping outlives the file's removal:
/// an object whose value was replaced or deleted by another context still reads the value it had.
///
/// What keeps rows and files in step, whatever crashes when (see ``ExternalStorage`` for the
/// tables and triggers):
/// - a value is written to `incoming/` inside the write transaction, flushed to disk before the
///   transaction commits, and moved into place after the commit; a reader looks in both places. A
///   file left in `incoming/` by a crash is moved into place if a row names it, removed otherwise,
///   the next time a container opens the store (holding the write lock, so no transaction is
///   writing files meanwhile);
/// - a file whose row was deleted, or whose value was replaced, is named in `Z_EXTERNAL_GARBAGE`
///   by a trigger, in the transaction that does it; the next write transaction takes the names and
///   removes the files before it commits. A crash in between leaves the names (their files maybe
///   gone already), taken again later: a name outlives its file, never the reverse.
package final class ExternalFiles: Sendable {
    /// The directory of the files.
    package let directory: URL
    /// Where files are written before their transaction commits.
    let incoming: URL
    /// The files of the store at `storePath`; nil for an in-memory store, which keeps every value
    /// in its row.
    package init?(storePath: String) {
        guard storePath != ":memory:" else { return nil }
        directory = URL(fileURLWithPath: storePath + "-external", isDirectory: true)
        incoming = directory.appendingPathComponent("incoming", isDirectory: true)
    }

    /// Whether a column's text is a file name this store gives: a UUID, so that text written by
    /// another program never names a path outside the directory.
    package static func isFileName(_ text: String) -> Bool {
        text.utf8.count == 36 && UUID(uuidString: text) != nil
    }

    /// Writes `data` to a new file of `incoming/`, flushed to disk, and returns its name. The new
    /// name is durable once ``flushIncoming()`` returns: a transaction calls it once, before it
    /// commits, for all the files it wrote.
    package func write(_ data: Data) throws -> String {
        let name = UUID().uuidString.lowercased()
        let url = incoming.appendingPathComponent(name)
        do {
            try FileManager.default.createDirectory(at: incoming, withIntermediateDirectories: true)
            try data.write(to: url)
            try Self.flush(url.path, isDirectory: false)
        } catch {
            try? FileManager.default.removeItem(at: url)
            throw ExternalFileError(name: name, reason: "\(url.path) cannot be written: \(error)")
        }
        return name
    }

    /// Flushes `incoming/` itself, so that the names of the files written in it survive a power
    /// loss.
    package func flushIncoming() throws {
        try Self.flush(incoming.path, isDirectory: true)
    }

    /// The value file `name` holds, mapped into memory.
    package func read(_ name: String) throws -> Data {
        guard Self.isFileName(name) else {
            throw ExternalFileError(name: name, reason: "it is not the name of a file of the store")
        }
        // A committed file may still be in `incoming/`, moving meanwhile: looked for once more.
        var code: Int32 = 0
        for place in [directory, incoming, directory] {
            let path = place.appendingPathComponent(name).path
            let (data, error) = Self.map(path)
            if let data { return data }
            guard error == ENOENT else {
                throw ExternalFileError(name: name, reason: "\(path) cannot be read: \(String(cString: strerror(error)))")
            }
            code = error
        }
        throw ExternalFileError(
            name: name, reason: "no file \(name) in \(directory.path): \(String(cString: strerror(code)))")
    }

    /// A file's bytes, mapped into memory (read from the disk when they are used), or the `errno`
    /// of the failure. Through POSIX rather than `Data(contentsOf:options:)`, which costs a third
    /// more per file: a fetch maps the files of every row it reads.
    private static func map(_ path: String) -> (data: Data?, error: Int32) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return (nil, errno) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return (nil, errno) }
        let size = Int(status.st_size)
        guard size > 0 else { return (Data(), 0) }
        // MAP_FAILED is (void *)-1, spelled out: not every platform's module imports the macro.
        guard let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0),
            address != UnsafeMutableRawPointer(bitPattern: -1)
        else {
            return (nil, errno)
        }
        return (Data(bytesNoCopy: address, count: size, deallocator: .custom { address, size in munmap(address, size) }), 0)
    }

    /// Moves the files of a committed transaction into place; a file already moved (by a container
    /// recovering the store meanwhile) is left as it is.
    package func settle(_ names: [String]) {
        guard !names.isEmpty else { return }
        for name in names {
            _ = rename(incoming.appendingPathComponent(name).path, directory.appendingPathComponent(name).path)
        }
        try? Self.flush(directory.path, isDirectory: true)
    }

    /// Removes files, wherever they are; a file already gone is no error (the names of a
    /// transaction that failed are taken again by a later one).
    package func remove(_ names: [String]) {
        for name in names where Self.isFileName(name) {
            unlink(directory.appendingPathComponent(name).path)
            unlink(incoming.appendingPathComponent(name).path)
        }
    }

    /// The names of the files in `incoming/`: values of transactions that were writing, or that
    /// committed but had not moved them, when their process stopped. None when the directory does
    /// not exist (no value was ever written); a directory that cannot be read is an error, not an
    /// empty one, whose files would then never be settled.
    package func incomingNames() throws -> [String] {
        guard FileManager.default.fileExists(atPath: incoming.path) else { return [] }
        do {
            return try FileManager.default.contentsOfDirectory(atPath: incoming.path).filter(Self.isFileName)
        } catch {
            throw ObjectGraphError.store(
                StoreError(resultCode: .ioError, message: "\(incoming.path) cannot be read to settle its files: \(error)"))
        }
    }

    /// Flushes a file's or a directory's contents to disk (a directory's, so that a new name in it
    /// survives a power loss).
    private static func flush(_ path: String, isDirectory: Bool) throws {
        let descriptor = open(path, isDirectory ? O_RDONLY | O_DIRECTORY : O_RDONLY)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }
}

/// A value's file that cannot be written or read.
package struct ExternalFileError: Error, CustomStringConvertible {
    package let name: String
    package let reason: String

    package var description: String { reason }
}
