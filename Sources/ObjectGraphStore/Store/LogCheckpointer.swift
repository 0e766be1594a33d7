package import GRDB
import GRDBSQLite
import ObjectGraphModel

/// Copies the store's write-ahead log back into the database file after a commit, on the writer's
/// queue, instead of inside the commit.
///
/// SQLite checkpoints on its own when a commit leaves 1,000 pages or more in the log: the commit that
/// crosses the line copies every page of the log into the database file and syncs it before it
/// returns, which after a large save, batch operation or deletion can cost as much as the
/// transaction itself. The writer connection reports instead the log's size after each commit and,
/// past the same threshold, a passive checkpoint is queued behind it on the writer's queue: the save
/// returns first (its merge into other contexts needs no write), and the next write waits for the
/// checkpoint as it waited for SQLite's. Should commits outrun the queued checkpoints, a log past
/// ten times the threshold is checkpointed in the commit, as SQLite would.
///
/// Readers of other connections and processes are never blocked; a checkpoint they hold back (a
/// long read of an old snapshot) is finished by a later one.
package final class LogCheckpointer: Sendable {
    /// Pages in the log after which a checkpoint is queued.
    package let threshold: Int32
    /// Pages in the log after which the commit checkpoints before it returns.
    package var limit: Int32 { 10 * threshold }

    private struct State {
        package weak var pool: DatabasePool?
        package var isQueued = false
    }
    private let state = Locked(State())

    /// - Parameter threshold: SQLite's own default, 1,000 pages, unless a test needs less.
    package init(threshold: Int32 = 1_000) {
        self.threshold = threshold
    }

    /// Takes over the checkpoints of a connection that writes; read-only connections never commit.
    package func install(on db: Database) {
        guard !db.configuration.readonly else { return }
        // Safety: the pool's `prepareDatabase` closure holds this checkpointer, so it outlives every
        // connection whose commits call the hook.
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_wal_hook(
            db.sqliteConnection,
            { context, connection, name, pages in
                guard let context else { return SQLITE_OK }
                let checkpointer = Unmanaged<LogCheckpointer>.fromOpaque(context).takeUnretainedValue()
                if pages >= checkpointer.limit {
                    // What SQLite's own hook does; a checkpoint that cannot finish leaves the log whole.
                    sqlite3_wal_checkpoint_v2(connection, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
                } else if pages >= checkpointer.threshold {
                    checkpointer.queueCheckpoint()
                }
                return SQLITE_OK
            }, context)
    }

    /// The pool whose writer runs the queued checkpoints.
    package func attach(_ pool: DatabasePool) {
        state.withLock { $0.pool = pool }
    }

    private func queueCheckpoint() {
        let pool: DatabasePool? = state.withLock { state in
            guard !state.isQueued, let pool = state.pool else { return nil }
            state.isQueued = true
            return pool
        }
        pool?.asyncWriteWithoutTransaction { [self] db in
            state.withLock { $0.isQueued = false }
            do {
                _ = try db.checkpoint(.passive)
            } catch {
                // Nothing is lost: the pages stay in the log, where readers find them, and the next
                // commit past the threshold tries again. An I/O error fails that commit itself.
            }
        }
    }
}
