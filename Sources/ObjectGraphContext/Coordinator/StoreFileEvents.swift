import Foundation
import ObjectGraphModel

#if canImport(Glibc)
    import Glibc
#endif

/// Tells when a store's files change, so that the container looks for other writers' commits then
/// instead of on a timer: an idle container costs nothing.
///
/// On Linux it watches the store's directory with inotify, for writes to the database file and its
/// write-ahead log (a commit appends to the log; a checkpoint writes the file), on a thread of its
/// own that sleeps in `poll` until an event or its stop. Elsewhere there is nothing to watch with
/// yet, and `init` fails: the container polls instead.
final class StoreFileEvents: Sendable {
    #if canImport(Glibc)
        /// How long the thread rests after an event that asked for a look, in microseconds.
        private static let rest: UInt32 = 20_000
        /// What is watched: writes to the files, and files made or moved in.
        private static let events = UInt32(IN_MODIFY) | UInt32(IN_CLOSE_WRITE) | UInt32(IN_CREATE) | UInt32(IN_MOVED_TO)
        private let inotify: Int32
        /// Written to once to stop the thread; read by `poll` along with the events.
        private let stopPipe: (read: Int32, write: Int32)

        /// Watches the files of the store at `path`; nil when the system cannot (no inotify, its
        /// limit of watches reached).
        init?(storePath path: String, onChange: @escaping @Sendable () -> Void) {
            let url = URL(fileURLWithPath: path)
            let directory = url.deletingLastPathComponent().path
            let name = url.lastPathComponent
            let names: Set<String> = [name, name + "-wal"]
            let descriptor = inotify_init1(Int32(IN_CLOEXEC))
            guard descriptor >= 0 else { return nil }
            var pipeDescriptors: [Int32] = [0, 0]
            let watch = inotify_add_watch(descriptor, directory, Self.events)
            guard watch >= 0, pipe(&pipeDescriptors) == 0 else {
                close(descriptor)
                return nil
            }
            inotify = descriptor
            stopPipe = (pipeDescriptors[0], pipeDescriptors[1])
            let stop = stopPipe.read
            let thread = Thread {
                let stopped = Self.watch(descriptor, watch, directory: directory, stop: stop, names: names, onChange: onChange)
                close(descriptor)
                // Closed only once told to stop: a write to a pipe nobody reads would raise SIGPIPE
                // (a thread that ended on an error leaves it to the process's end).
                if stopped { close(stop) }
            }
            thread.name = "ObjectGraph.StoreFileEvents"
            thread.start()
        }

        deinit {
            var byte: UInt8 = 1
            _ = write(stopPipe.write, &byte, 1)
            close(stopPipe.write)
        }

        /// Reads events until `stop` is readable, calling `onChange` once per read that names one
        /// of `names`; returns whether it was told to stop (false: the system failed it).
        ///
        /// After such a read the watch is taken off while the thread rests: a save writes the log
        /// page by page, and the kernel would make an event of every write (a cost the writing
        /// thread pays). Put back, the watch is followed by one more look, for what was written
        /// meanwhile.
        private static func watch(
            _ descriptor: Int32, _ initialWatch: Int32, directory: String, stop: Int32, names: Set<String>,
            onChange: @Sendable () -> Void
        ) -> Bool {
            var watch = initialWatch
            var buffer = [UInt8](repeating: 0, count: 16 * 1024)
            let headerSize = MemoryLayout<inotify_event>.size
            while true {
                var watched = [
                    pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0), pollfd(fd: stop, events: Int16(POLLIN), revents: 0)
                ]
                let ready = poll(&watched, 2, -1)
                if ready < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                if watched[1].revents != 0 { return true }
                guard watched[0].revents & Int16(POLLIN) != 0 else { continue }
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                guard count > 0 else {
                    if count < 0 && errno == EINTR { continue }
                    return false
                }
                var changed = false
                var offset = 0
                buffer.withUnsafeBytes { bytes in
                    while offset + headerSize <= count {
                        let length = Int(bytes.load(fromByteOffset: offset + 12, as: UInt32.self))
                        let nameBytes = bytes[(offset + headerSize)..<min(count, offset + headerSize + length)]
                        let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                        if names.contains(name) { changed = true }
                        offset += headerSize + length
                    }
                }
                guard changed else { continue }
                onChange()
                inotify_rm_watch(descriptor, watch)
                usleep(Self.rest)
                watch = inotify_add_watch(descriptor, directory, Self.events)
                guard watch >= 0 else { return false }
                onChange()
            }
        }
    #else
        init?(storePath path: String, onChange: @escaping @Sendable () -> Void) {
            return nil
        }
    #endif
}
