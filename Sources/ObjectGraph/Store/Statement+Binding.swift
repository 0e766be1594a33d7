import GRDB

extension Statement {
    /// Binds values to the statement's parameters, in order, for its next execution or cursor.
    ///
    /// GRDB's `StatementArguments` initializers are generic and not inlinable: called from another
    /// module they run unspecialized, at about a thousand instructions a value, more than SQLite's own
    /// work for an insert. This binds through GRDB's public `StatementBinding` instead; the statement
    /// is then run without arguments (`execute()`, `Row.fetchCursor(statement)`), which keeps these
    /// bindings.
    func bind(_ values: [DatabaseValue]) throws {
        setUncheckedArguments(StatementArguments())  // resets and clears the previous bindings
        for (offset, value) in values.enumerated() {
            let code = value.bind(to: sqliteStatement, at: CInt(offset + 1))
            guard code == ResultCode.SQLITE_OK.rawValue else {
                throw DatabaseError(
                    resultCode: ResultCode(rawValue: code),
                    message: "cannot bind argument \(offset + 1)", sql: sql)
            }
        }
    }
}
