public import Foundation
import ObjectGraphModel

/// Where a container keeps its data.
public struct StoreConfiguration: Sendable {
    package enum Location: Sendable {
        case file(String)
        /// The default file, whose directory is created when missing.
        case defaultFile(String)
        case inMemory
    }

    package let location: Location

    /// How long a write waits for another connection or process holding the store's write lock
    /// before it fails with a retryable ``StoreError`` (``StoreError/isRetryable``).
    public var busyTimeout: TimeInterval

    /// How soon the container looks for transactions that other processes (or other containers of
    /// this one) committed to the same file, to merge them into its contexts; nil never looks.
    ///
    /// On Linux the container looks when the store's files change (inotify), 20 ms after, a burst
    /// of writes making one look every 20 ms at most: an idle container costs no CPU at all, and
    /// the interval is not used. Where the files cannot be watched (other systems, for now), it
    /// looks every interval, a look costing one read when nothing changed. 20 milliseconds by
    /// default; ignored for in-memory stores, which nobody else can write.
    public var historyPollingInterval: Duration? = .milliseconds(20)

    /// Called with the SQL of each statement the store's connections run, with its arguments left
    /// out (as `?`), from the thread that runs it: to see what a fetch, a prefetch or a save asks
    /// of SQLite, as Core Data's SQL debug output shows it. Nil by default: nothing is traced.
    ///
    /// ```swift
    /// var configuration = StoreConfiguration.file(path)
    /// configuration.traceStatements = { sql in print(sql) }
    /// ```
    public var traceStatements: (@Sendable (String) -> Void)?

    /// Called as ``traceStatements`` is, with each statement's SQL and the same SQL with its
    /// arguments written in as literals (SQLite's `sqlite3_expanded_sql`; reals to 15 significant
    /// digits): to replay what the store ran, or to see the values a save wrote. The values are the
    /// application's data: keep them out of logs that leave the machine. Nil by default.
    public var traceExpandedStatements: (@Sendable (_ sql: String, _ expandedSQL: String) -> Void)?

    /// The size, in bytes, above which a value of an `@Attribute(.externalStorage)` attribute is
    /// kept in a file beside the store (in `<store>-external/`) rather than in its row; a value of
    /// this size or less stays in the row. 100 KiB by default: SQLite's own measurements
    /// ("Internal Versus External BLOBs") find rows faster to read below about that size, files
    /// above it. Changing it moves no value already written. Ignored for in-memory stores.
    public var externalStorageThreshold: Int = 100 * 1024

    /// The most variables a statement may bind on this store's connections; nil keeps SQLite's
    /// own limit. Lowered by tests, to meet a standard build's limit without its number of objects.
    package var variableLimit: Int32?

    /// Pages of the write-ahead log after which a checkpoint copies them into the database file
    /// (see ``LogCheckpointer``). Lowered by tests, to reach it without writing megabytes.
    package var checkpointThreshold: Int32 = 1_000

    /// An SQLite file in WAL mode (many readers, one writer), created if missing.
    ///
    /// Several containers, in this process or in others, can use the same file: their writes take
    /// turns, each waiting up to `busyTimeout` seconds for the others.
    public static func file(_ path: String, busyTimeout: TimeInterval = 5) -> StoreConfiguration {
        StoreConfiguration(location: .file(path), busyTimeout: busyTimeout)
    }

    /// The store a container opens when given no configuration: `default.sqlite` in a directory
    /// named after the program, in the user's application support directory (`~/Library/Application
    /// Support` on Apple platforms, `$XDG_DATA_HOME` or `~/.local/share` on Linux), created if missing.
    public static var `default`: StoreConfiguration {
        StoreConfiguration(location: .defaultFile(defaultURL.path), busyTimeout: 5)
    }

    /// Where ``default`` keeps its file.
    public static var defaultURL: URL {
        let support =
            FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share")
        return support.appendingPathComponent(ProcessInfo.processInfo.processName, isDirectory: true)
            .appendingPathComponent("default.sqlite")
    }

    /// A store that lives in memory and disappears with its container. Useful for tests.
    public static var inMemory: StoreConfiguration {
        StoreConfiguration(location: .inMemory, busyTimeout: 0)
    }
}
