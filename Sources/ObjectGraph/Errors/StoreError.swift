import GRDB

/// An error SQLite reported, passed on with its result codes.
///
/// The codes let a caller tell a database that is busy or locked by another process (worth
/// retrying, see ``isRetryable``) from a constraint violation, a full disk or a corrupt file. The
/// message is SQLite's. Arguments are never included: they are user data.
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// SQLite's primary result code: `SQLITE_BUSY` is 5, `SQLITE_LOCKED` 6, `SQLITE_FULL` 13, …
    public var resultCode: Int32
    /// SQLite's extended result code, which refines the primary one.
    public var extendedResultCode: Int32
    /// SQLite's message.
    public var message: String
    /// The start of the statement that failed (its first ``sqlPrefixLength`` characters), in debug
    /// builds only; nil in release builds.
    public var sql: String?

    /// How much of a statement ``sql`` keeps: enough to recognize it, never megabytes of
    /// placeholders.
    public static let sqlPrefixLength = 200

    /// A store error with these codes and message.
    public init(resultCode: Int32, extendedResultCode: Int32? = nil, message: String, sql: String? = nil) {
        self.resultCode = resultCode
        self.extendedResultCode = extendedResultCode ?? resultCode
        self.message = message
        self.sql = sql.map(Self.prefix)
    }

    /// Whether the same operation may succeed if tried again: the database was busy (another
    /// connection or process held the lock past the busy timeout) or a table was locked.
    public var isRetryable: Bool {
        resultCode == ResultCode.SQLITE_BUSY.rawValue || resultCode == ResultCode.SQLITE_LOCKED.rawValue
    }

    public var description: String {
        "SQLite error \(extendedResultCode): \(message)" + (sql.map { " — in \($0)" } ?? "")
    }

    private static func prefix(_ sql: String) -> String {
        sql.count <= sqlPrefixLength ? sql : String(sql.prefix(sqlPrefixLength)) + "…"
    }
}

extension StoreError {
    /// The store error for an error GRDB threw (or a store error); any other error keeps its description.
    init(_ error: any Error) {
        if let error = error as? StoreError {
            self = error
            return
        }
        guard let error = error as? DatabaseError else {
            self.init(resultCode: ResultCode.SQLITE_ERROR.rawValue, message: "\(error)")
            return
        }
        #if DEBUG
        let sql = error.sql
        #else
        let sql: String? = nil
        #endif
        self.init(resultCode: error.resultCode.rawValue, extendedResultCode: error.extendedResultCode.rawValue,
                  message: error.message ?? "\(error.resultCode)", sql: sql)
    }
}
