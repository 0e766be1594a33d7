/// An error SQLite reported, passed on with its result codes.
///
/// The codes let a caller tell a database that is busy or locked by another process (worth
/// retrying, see ``isRetryable``) from a constraint violation, a full disk or a corrupt file. The
/// message is SQLite's. Arguments are never included: they are user data.
///
/// ```swift
/// switch error.resultCode {
/// case .busy, .locked: retry()          // matches SQLITE_BUSY_RECOVERY too: extended codes match their primary
/// case .full: tellTheUserTheDiskIsFull()
/// default: throw error
/// }
/// ```
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A SQLite result code, primary (`busy`) or extended (`constraintUnique`), by name.
    ///
    /// A code matches another in a `switch` when they are equal or the pattern is the primary code
    /// of the value: `case .constraint` matches ``constraintUnique``, as GRDB's `ResultCode` does.
    public struct ResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// SQLite's number for the code.
        public var rawValue: Int32

        public init(rawValue: Int32) {
            self.rawValue = rawValue
        }

        /// The primary code of an extended one (itself for a primary code).
        public var primaryResultCode: ResultCode { ResultCode(rawValue: rawValue & 0xFF) }

        /// A generic error (`SQLITE_ERROR`): a statement SQLite refused.
        public static let error = ResultCode(rawValue: 1)
        /// An error inside SQLite itself.
        public static let `internal` = ResultCode(rawValue: 2)
        /// The file's permissions refuse the access.
        public static let permission = ResultCode(rawValue: 3)
        /// An operation was aborted, by a callback or a rollback.
        public static let abort = ResultCode(rawValue: 4)
        /// Another connection or process held the lock past the busy timeout: worth retrying.
        public static let busy = ResultCode(rawValue: 5)
        /// A table was locked: worth retrying.
        public static let locked = ResultCode(rawValue: 6)
        /// SQLite could not allocate memory.
        public static let noMemory = ResultCode(rawValue: 7)
        /// The database is read-only.
        public static let readOnly = ResultCode(rawValue: 8)
        /// An operation was interrupted.
        public static let interrupt = ResultCode(rawValue: 9)
        /// An operating system input or output error.
        public static let ioError = ResultCode(rawValue: 10)
        /// The file is corrupt, or holds what the store cannot have written.
        public static let corrupt = ResultCode(rawValue: 11)
        /// The disk is full.
        public static let full = ResultCode(rawValue: 13)
        /// The file cannot be opened or created.
        public static let cannotOpen = ResultCode(rawValue: 14)
        /// The schema changed while a statement ran.
        public static let schema = ResultCode(rawValue: 17)
        /// A string or blob is larger than SQLite's limit.
        public static let tooBig = ResultCode(rawValue: 18)
        /// A constraint was violated (a unique index, a foreign key, NOT NULL).
        public static let constraint = ResultCode(rawValue: 19)
        /// A value of the wrong type for its column.
        public static let mismatch = ResultCode(rawValue: 20)
        /// SQLite's interface was misused.
        public static let misuse = ResultCode(rawValue: 21)
        /// A parameter index out of range.
        public static let range = ResultCode(rawValue: 25)
        /// The file is not a SQLite database.
        public static let notADatabase = ResultCode(rawValue: 26)
        /// A unique index was violated (extended code of ``constraint``).
        public static let constraintUnique = ResultCode(rawValue: 2067)
        /// A primary key was violated (extended code of ``constraint``).
        public static let constraintPrimaryKey = ResultCode(rawValue: 1555)
        /// A NOT NULL column was given NULL (extended code of ``constraint``).
        public static let constraintNotNull = ResultCode(rawValue: 1299)

        /// Whether `code` is `pattern`, or an extended code of the primary `pattern`.
        public static func ~= (pattern: ResultCode, code: ResultCode) -> Bool {
            pattern == code || (pattern.rawValue == pattern.primaryResultCode.rawValue && pattern == code.primaryResultCode)
        }

        public var description: String { "SQLite result code \(rawValue)" }
    }

    /// SQLite's primary result code.
    public var resultCode: ResultCode
    /// SQLite's extended result code, which refines the primary one.
    public var extendedResultCode: ResultCode
    /// SQLite's message.
    public var message: String
    /// The start of the statement that failed (its first ``sqlPrefixLength`` characters), in debug
    /// builds only; nil in release builds.
    public var sql: String?

    /// How much of a statement ``sql`` keeps: enough to recognize it, never megabytes of
    /// placeholders.
    public static let sqlPrefixLength = 200

    /// A store error with these codes and message.
    public init(resultCode: ResultCode, extendedResultCode: ResultCode? = nil, message: String, sql: String? = nil) {
        self.resultCode = resultCode.primaryResultCode
        self.extendedResultCode = extendedResultCode ?? resultCode
        self.message = message
        self.sql = sql.map(Self.prefix)
    }

    /// Whether the same operation may succeed if tried again: the database was busy (another
    /// connection or process held the lock past the busy timeout) or a table was locked.
    public var isRetryable: Bool {
        resultCode == .busy || resultCode == .locked
    }

    public var description: String {
        "SQLite error \(extendedResultCode.rawValue): \(message)" + (sql.map { " — in \($0)" } ?? "")
    }

    private static func prefix(_ sql: String) -> String {
        sql.count <= sqlPrefixLength ? sql : String(sql.prefix(sqlPrefixLength)) + "…"
    }
}
