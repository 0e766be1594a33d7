package import Foundation
package import GRDB
package import GRDBSQLite
package import ObjectGraphModel

extension Statement {
    /// Binds values to the statement's parameters, in order, for its next execution or cursor.
    ///
    /// GRDB's `StatementArguments` initializers are generic and not inlinable: called from another
    /// module they run unspecialized, at about a thousand instructions a value, more than SQLite's own
    /// work for an insert. This binds through GRDB's public `StatementBinding` instead; the statement
    /// is then run without arguments (`execute()`, `Row.fetchCursor(statement)`), which keeps these
    /// bindings.
    package func bind(_ values: [DatabaseValue]) throws {
        setUncheckedArguments(StatementArguments())  // resets and clears the previous bindings
        for (offset, value) in values.enumerated() {
            let index = CInt(offset + 1)
            let code =
                switch value.storage {
                case .string(let text): bindText(text, at: index)
                case .blob(let data): bindBlob(data, at: index)
                default: value.bind(to: sqliteStatement, at: index)
                }
            try checkBinding(code, at: index)
        }
    }

    // MARK: Binding one parameter at a time

    // The writes of a save bind each parameter straight from the object's values: no array of
    // `DatabaseValue`s per row, no copy of it into GRDB's arguments. A statement bound this way is
    // readied once per transaction with `prepareForDirectBinding()`, then, per row,
    // `resetForBinding()`, a `bind` per parameter, and `runDirectly(in:)`.

    /// Tells GRDB that the statement's parameters are bound outside its arguments: its arguments are
    /// set empty, and ``WriteStatements`` checks they still are each time it hands the statement out
    /// (GRDB arguments set since would replace the direct bindings).
    package func prepareForDirectBinding() {
        setUncheckedArguments(StatementArguments())
    }

    /// Makes the statement ready for new bindings: SQLite refuses to bind a statement that ran
    /// since its last reset. Every parameter is bound again afterwards; the previous values stay
    /// bound until then.
    package func resetForBinding() throws {
        // A failed run is never reset here: GRDB drops a statement whose step failed from its cache,
        // and the writer's own cache goes with the failed transaction.
        let code = sqlite3_reset(sqliteStatement)
        guard code == SQLITE_OK else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "cannot reset the statement", sql: sql)
        }
    }

    /// Runs a statement bound directly (an insert or update of one row, which returns no rows) to
    /// its end, through SQLite alone.
    ///
    /// GRDB's `execute()` adds about 1,600 instructions a statement, more than ObjectGraph's own work
    /// for an updated row: argument checks, the dispatch queue check, and the bookkeeping of GRDB's
    /// transaction observers, which ObjectGraph does not use (its notifications are its own). The
    /// transaction is GRDB's, begun and ended through GRDB, which reads SQLite's own state of it. A
    /// failed run is reset at once, so that the statement, still in GRDB's cache, is clean for the
    /// next transaction; the error is GRDB's `DatabaseError`, as `execute()` throws it.
    package func runDirectly(in db: Database) throws {
        assert(sqlite3_stmt_readonly(sqliteStatement) == 0, "runDirectly runs writes; reads go through GRDB's cursors")
        let code = sqlite3_step(sqliteStatement)
        guard code != SQLITE_DONE else { return }
        guard code != SQLITE_ROW else {
            sqlite3_reset(sqliteStatement)
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "a write statement returned rows", sql: sql)
        }
        throw failedStep(in: db)
    }

    /// The error of a step that failed, read from the connection; the statement is reset, so that
    /// it is clean in the cache for the next transaction.
    private func failedStep(in db: Database) -> DatabaseError {
        let extendedCode = sqlite3_extended_errcode(db.sqliteConnection)
        let message = sqlite3_errmsg(db.sqliteConnection).map { String(cString: $0) }
        sqlite3_reset(sqliteStatement)
        return DatabaseError(resultCode: ResultCode(rawValue: extendedCode), message: message, sql: sql)
    }

    /// Runs a statement to its end through SQLite alone, as ``runDirectly(in:)`` does, passing each
    /// row to `body` while it is current (its columns read with SQLite's `sqlite3_column_*`): for
    /// the rows a write reads for itself, with no GRDB cursor between them. Its bindings stay.
    package func forEachRowDirectly(in db: Database, _ body: (OpaquePointer) throws -> Void) throws {
        while true {
            let code = sqlite3_step(sqliteStatement)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else { throw failedStep(in: db) }
            do {
                try body(sqliteStatement)
            } catch {
                sqlite3_reset(sqliteStatement)
                throw error
            }
        }
        sqlite3_reset(sqliteStatement)
    }

    /// Binds a stored value to the parameter at `index` (1-based).
    package func bind(_ value: StoredValue, at index: CInt) throws {
        let code =
            switch value {
            case .null: sqlite3_bind_null(sqliteStatement, index)
            case .integer(let integer): sqlite3_bind_int64(sqliteStatement, index, integer)
            case .real(let real): sqlite3_bind_double(sqliteStatement, index, real)
            case .text(let text): bindText(text, at: index)
            case .blob(let data): bindBlob(data, at: index)
            }
        try checkBinding(code, at: index)
    }

    /// Binds a key, or NULL for none, to the parameter at `index` (1-based).
    package func bind(key: Int64?, at index: CInt) throws {
        let code = key.map { sqlite3_bind_int64(sqliteStatement, index, $0) } ?? sqlite3_bind_null(sqliteStatement, index)
        try checkBinding(code, at: index)
    }

    /// Binds a global ID, as the 16-byte blob ``UUID/storedValue`` stores, without making a `Data`.
    package func bind(_ globalID: UUID, at index: CInt) throws {
        let code = withUnsafeBytes(of: globalID.uuid) { bytes -> CInt in
            assert(bytes.count == 16, "a UUID's bytes are the 16 its stored value holds")
            return sqlite3_bind_blob(sqliteStatement, index, bytes.baseAddress, CInt(bytes.count), sqliteTransient)
        }
        try checkBinding(code, at: index)
    }

    /// Binds text with its length in bytes: all of it, a NUL character included (GRDB's binding of
    /// a `String` stops at the first NUL, which would store less than the object holds), without
    /// making a C string of it first.
    private func bindText(_ text: String, at index: CInt) -> CInt {
        var text = text
        return text.withUTF8 { bytes in
            // An empty buffer may have no address, and a NULL address would bind NULL, not "".
            guard let address = bytes.baseAddress else {
                return sqlite3_bind_text64(sqliteStatement, index, "", 0, sqliteTransient, UInt8(SQLITE_UTF8))
            }
            return address.withMemoryRebound(to: CChar.self, capacity: bytes.count) { characters in
                sqlite3_bind_text64(
                    sqliteStatement, index, characters, sqlite3_uint64(bytes.count), sqliteTransient, UInt8(SQLITE_UTF8))
            }
        }
    }

    /// Binds a blob, an empty one as an empty blob (never NULL).
    private func bindBlob(_ data: Data, at index: CInt) -> CInt {
        data.withUnsafeBytes { bytes in
            guard let address = bytes.baseAddress else { return sqlite3_bind_zeroblob(sqliteStatement, index, 0) }
            return sqlite3_bind_blob64(sqliteStatement, index, address, sqlite3_uint64(bytes.count), sqliteTransient)
        }
    }

    private func checkBinding(_ code: CInt, at index: CInt) throws {
        guard code == SQLITE_OK else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "cannot bind argument \(index)", sql: sql)
        }
    }
}

/// SQLite's `SQLITE_TRANSIENT`: the bound bytes are copied before the binding call returns, so they
/// need to live only for the call. C defines it as a cast of -1 to the destructor type, which Swift
/// does not import; this is the same cast (GRDB makes its own, internal, the same way).
package let sqliteTransient: sqlite3_destructor_type = {
    // The cast reinterprets a pointer-sized value as a function pointer of the same size.
    assert(MemoryLayout<sqlite3_destructor_type>.size == MemoryLayout<OpaquePointer>.size)
    return unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
}()
