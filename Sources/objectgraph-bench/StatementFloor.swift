import Foundation
import GRDBSQLite
import ObjectGraph

/// ObjectGraph's own statements, run by plain code through SQLite's C API: the floor a write
/// workload cannot go under with the statements it runs (issue 49). An ObjectGraph run is recorded
/// once, untimed, on a copy of the store (every statement, with its arguments, as SQLite expands
/// them); each timed run replays them on another fresh copy, as a C program would: every distinct
/// statement prepared once beforehand, then bound, stepped to its end and every column of every row
/// read. ObjectGraph's time over this one's is what its Swift side costs above its statements.
final class StatementFloor {
    /// A statement as recorded: its SQL and its arguments by parameter index.
    struct Recorded {
        var sql: String
        var arguments: [(index: Int32, value: Literal)]
    }

    /// A value written into expanded SQL.
    enum Literal {
        case null
        case integer(Int64)
        case real(Double)
        /// UTF-8 bytes and a NUL after them (so that an empty text binds as text, not NULL).
        case text([UInt8])
        case blob([UInt8])
    }

    private let files: ScratchFiles
    private let name: String
    /// Makes, once, a closed store file in the state the ObjectGraph side's run starts from;
    /// returns its path. Every run's copy is made from it.
    private let makeSnapshot: () throws -> String
    private var snapshot: String?
    /// The ObjectGraph side's run, on a container.
    private let body: (ObjectContainer) throws -> Void
    private var recorded: [Recorded]?
    /// What the recorded run left in its store (see ``signature(of:)``), which each replay must leave too.
    private var expectedSignature: String?
    private var database: RawDatabase?
    private var prepared: [OpaquePointer] = []
    /// For each recorded statement, its prepared statement's index.
    private var plan: [Int] = []

    init(files: ScratchFiles, name: String, snapshot: @escaping () throws -> String, body: @escaping (ObjectContainer) throws -> Void) {
        self.files = files
        self.name = name
        self.makeSnapshot = snapshot
        self.body = body
    }

    /// A fresh copy of the snapshot.
    private func copyStore(_ suffix: String) throws -> String {
        let source = try snapshot ?? makeSnapshot()
        snapshot = source
        let destination = files.fresh("\(name)-\(suffix).sqlite")
        try FileManager.default.copyItem(atPath: source, toPath: destination)
        return destination
    }

    /// A store with ObjectGraph's tables and nothing in them, for a workload that starts from an
    /// empty store; returns its path.
    static func emptyStore(files: ScratchFiles, name: String) throws -> String {
        let path = files.fresh("\(name)-empty.sqlite")
        _ = try ObjectContainer(for: Mood.self, configuration: .file(path))
        return path
    }

    /// A copy of a store that may be open (its committed state, through SQLite's backup), closed,
    /// as a snapshot; returns its path.
    static func backup(of source: String, files: ScratchFiles, name: String) throws -> String {
        let path = files.fresh("\(name)-snapshot.sqlite")
        let from = try RawDatabase(path: source)
        let to = try RawDatabase(path: path)
        guard let backup = sqlite3_backup_init(to.handle, "main", from.handle, "main") else {
            throw RawSQLiteError(code: sqlite3_errcode(to.handle), message: "cannot back up \(source)")
        }
        let code = sqlite3_backup_step(backup, -1)
        sqlite3_backup_finish(backup)
        guard code == SQLITE_DONE else { throw RawSQLiteError(code: code, message: "cannot back up \(source)") }
        return path
    }

    deinit {
        for statement in prepared { sqlite3_finalize(statement) }
    }

    /// The contender: records on first use, replays on a fresh copy each run, and checks that the
    /// replay left the store as ObjectGraph's run did.
    var contender: Contender {
        Contender(prepare: prepare, run: run, verify: verify)
    }

    /// Drops the recording, the replay's statements and its connection.
    func release() {
        for statement in prepared { sqlite3_finalize(statement) }
        (prepared, plan, recorded, database) = ([], [], nil, nil)
    }

    private func verify() throws {
        guard let database else { return }
        try WorkloadError.check("the replay's store", try Self.signature(of: database), expectedSignature)
    }

    /// Every table's row count, and the sum of its versions where it has them.
    private static func signature(of database: RawDatabase) throws -> String {
        let tables = try database.prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
        ).rows { $0.text(0) ?? "" }
        return try tables.map { table in
            let quoted = "\"" + table.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            let hasVersions = try database.prepare("SELECT 1 FROM pragma_table_info('\(table)') WHERE name = 'Z_VERSION'").step()
            let statement = try database.prepare("SELECT count(*)\(hasVersions ? ", total(Z_VERSION)" : "") FROM \(quoted)")
            _ = try statement.step()
            return "\(table) \(statement.int64(0))\(hasVersions ? " \(statement.double(1))" : "")"
        }.joined(separator: "; ")
    }

    private func prepare() throws {
        if recorded == nil { recorded = try record() }
        for statement in prepared { sqlite3_finalize(statement) }
        prepared = []
        database = nil
        let database = try RawDatabase(path: copyStore("floor-replay"))
        var indexes: [String: Int] = [:]
        plan = try (recorded ?? []).map { statement in
            if let index = indexes[statement.sql] { return index }
            var handle: OpaquePointer?
            try database.check(sqlite3_prepare_v3(database.handle, statement.sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil))
            guard let handle else { throw RawSQLiteError(code: SQLITE_MISUSE, message: "no statement in \(statement.sql)") }
            prepared.append(handle)
            indexes[statement.sql] = prepared.count - 1
            return prepared.count - 1
        }
        self.database = database
    }

    private func run() throws {
        guard let database, let recorded else { return }
        var total = 0
        for (statement, handle) in zip(recorded, plan.map { prepared[$0] }) {
            sqlite3_reset(handle)
            for (index, value) in statement.arguments {
                let code: Int32
                switch value {
                case .null: code = sqlite3_bind_null(handle, index)
                case .integer(let integer): code = sqlite3_bind_int64(handle, index, integer)
                case .real(let real): code = sqlite3_bind_double(handle, index, real)
                case .text(let bytes):
                    code = bytes.withUnsafeBytes { buffer in
                        sqlite3_bind_text64(
                            handle, index, buffer.baseAddress?.assumingMemoryBound(to: CChar.self), sqlite3_uint64(bytes.count - 1),
                            sqliteTransientDestructor, UInt8(SQLITE_UTF8))
                    }
                case .blob(let bytes):
                    code =
                        bytes.isEmpty
                        ? sqlite3_bind_zeroblob(handle, index, 0)
                        : bytes.withUnsafeBytes {
                            sqlite3_bind_blob64(handle, index, $0.baseAddress, sqlite3_uint64($0.count), sqliteTransientDestructor)
                        }
                }
                try database.check(code)
            }
            while true {
                let code = sqlite3_step(handle)
                guard code == SQLITE_ROW else {
                    if code != SQLITE_DONE {
                        throw RawSQLiteError(code: code, message: "\(String(cString: sqlite3_errmsg(database.handle))) in \(statement.sql)")
                    }
                    break
                }
                // Every column read, as ObjectGraph reads what it asks for.
                for column in 0..<sqlite3_column_count(handle) {
                    switch sqlite3_column_type(handle, column) {
                    case SQLITE_INTEGER: total &+= Int(truncatingIfNeeded: sqlite3_column_int64(handle, column))
                    case SQLITE_FLOAT: total &+= Int(sqlite3_column_double(handle, column).sign == .minus ? 1 : 0)
                    case SQLITE_TEXT: total &+= sqlite3_column_text(handle, column) == nil ? 0 : Int(sqlite3_column_bytes(handle, column))
                    case SQLITE_BLOB: total &+= sqlite3_column_blob(handle, column) == nil ? 0 : Int(sqlite3_column_bytes(handle, column))
                    default: break
                    }
                }
            }
        }
        Sink.checksum &+= total
    }

    /// Runs the ObjectGraph side once on a copy opened with tracing, and keeps what it ran.
    private func record() throws -> [Recorded] {
        let log = StatementLog()
        var configuration = StoreConfiguration.file(try copyStore("floor-record"))
        configuration.traceExpandedStatements = { sql, expanded in log.append(sql, expanded) }
        do {
            let container = try ObjectContainer(for: Mood.self, configuration: configuration)
            log.isRecording = true
            try body(container)
            log.isRecording = false
        }
        expectedSignature = try Self.signature(of: RawDatabase(path: files.path("\(name)-floor-record.sqlite")))
        return try log.statements.get()
    }

    /// The arguments of a statement, read from its expanded SQL where its SQL has parameters.
    static func parse(_ sql: String, expanded: String) throws -> Recorded {
        let template = Array(sql.utf8), text = Array(expanded.utf8)
        var arguments: [(Int32, Literal)] = []
        var (i, j) = (0, 0)
        var lastIndex: Int32 = 0
        func mismatch() -> RawSQLiteError {
            RawSQLiteError(code: SQLITE_MISUSE, message: "cannot read the arguments of \(sql) from \(expanded)")
        }
        while i < template.count {
            let byte = template[i]
            if byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") {
                // A quoted literal or name: the same bytes on both sides, quotes doubled inside.
                var end = i + 1
                while end < template.count {
                    if template[end] == byte {
                        if end + 1 < template.count, template[end + 1] == byte { end += 2; continue }
                        break
                    }
                    end += 1
                }
                let length = end + 1 - i
                guard j + length <= text.count, template[i..<(i + length)].elementsEqual(text[j..<(j + length)]) else { throw mismatch() }
                (i, j) = (i + length, j + length)
            } else if byte == UInt8(ascii: "?") {
                i += 1
                var digits = 0
                while i < template.count, template[i] >= UInt8(ascii: "0"), template[i] <= UInt8(ascii: "9") {
                    digits = digits * 10 + Int(template[i] - UInt8(ascii: "0"))
                    i += 1
                }
                let index = digits > 0 ? Int32(digits) : lastIndex + 1
                lastIndex = max(lastIndex, index)
                arguments.append((index, try literal(text, &j, mismatch)))
            } else {
                guard j < text.count, text[j] == byte else { throw mismatch() }
                (i, j) = (i + 1, j + 1)
            }
        }
        return Recorded(sql: sql, arguments: arguments)
    }

    private static func literal(_ text: [UInt8], _ j: inout Int, _ mismatch: () -> RawSQLiteError) throws -> Literal {
        guard j < text.count else { throw mismatch() }
        if text[j...].starts(with: "NULL".utf8) {
            j += 4
            return .null
        }
        if text[j] == UInt8(ascii: "'") {
            var bytes: [UInt8] = []
            j += 1
            while j < text.count {
                if text[j] == UInt8(ascii: "'") {
                    if j + 1 < text.count, text[j + 1] == UInt8(ascii: "'") {
                        bytes.append(text[j])
                        j += 2
                        continue
                    }
                    j += 1
                    return .text(bytes + [0])
                }
                bytes.append(text[j])
                j += 1
            }
            throw mismatch()
        }
        if text[j] == UInt8(ascii: "x"), j + 1 < text.count, text[j + 1] == UInt8(ascii: "'") {
            j += 2
            var bytes: [UInt8] = []
            while j + 1 < text.count, text[j] != UInt8(ascii: "'") {
                guard let high = hexValue(text[j]), let low = hexValue(text[j + 1]) else { throw mismatch() }
                bytes.append(high << 4 | low)
                j += 2
            }
            guard j < text.count else { throw mismatch() }
            j += 1
            return .blob(bytes)
        }
        let start = j
        while j < text.count, "+-.0123456789eEInf".utf8.contains(text[j]) { j += 1 }
        let number = String(decoding: text[start..<j], as: UTF8.self)
        if let integer = Int64(number) { return .integer(integer) }
        if let real = Double(number) { return .real(real) }
        throw mismatch()
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// The statements a traced container ran while recording, parsed as they come (a string each
/// for a save of 100,000 rows would fill the heap the later workloads run in); the trace calls it
/// from the store's connections' threads.
private final class StatementLog: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [StatementFloor.Recorded] = []
    private var failure: (any Error)?
    private var recording = false

    var isRecording: Bool {
        get { lock.withLock { recording } }
        set { lock.withLock { recording = newValue } }
    }

    /// What was recorded, or the first statement that could not be read.
    var statements: Result<[StatementFloor.Recorded], any Error> {
        lock.withLock { failure.map { .failure($0) } ?? .success(entries) }
    }

    func append(_ sql: String, _ expanded: String) {
        // A trigger's program is traced as a comment; its statements run within the one that fired it.
        guard !sql.hasPrefix("--") else { return }
        lock.withLock {
            guard recording, failure == nil else { return }
            do {
                entries.append(try StatementFloor.parse(sql, expanded: expanded))
            } catch {
                failure = error
            }
        }
    }
}

/// SQLite's `SQLITE_TRANSIENT` (C casts -1 to the destructor type, which Swift does not import).
let sqliteTransientDestructor: sqlite3_destructor_type = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
