import Foundation
import GRDB
import GRDBSQLite
package import ObjectGraphModel

/// One call of an ``SQLFunction``: its arguments, read exactly as SQLite holds them, and its result.
package struct SQLFunctionCall {
    package let context: OpaquePointer?
    package let values: UnsafeMutablePointer<OpaquePointer?>?
    package let count: Int

    /// Runs `function`: sets the call's result, or throws its failure.
    package func run(_ function: SQLFunction) throws {
        switch function {
        case .precomposed:
            guard let text = try textArgument(0) else { return resultNull() }
            result(text.precomposed)
        case .contains:
            guard let text = try textArgument(0), let other = try textArgument(1) else { return resultNull() }
            result(TextOperations.contains(text, other))
        case .startsWith:
            guard let text = try textArgument(0), let prefix = try textArgument(1) else { return resultNull() }
            result(TextOperations.starts(text, with: prefix))
        case .count:
            guard let text = try textArgument(0) else { return resultNull() }
            result(TextOperations.count(text))
        case .caseInsensitiveCompare:
            guard let lhs = try textArgument(0), let rhs = try textArgument(1) else { return resultNull() }
            result(TextOperations.caseInsensitiveCompare(lhs, rhs).rawValue)
        case .localizedStandardContains:
            guard let text = try textArgument(0), let other = try textArgument(1) else { return resultNull() }
            result(TextOperations.localizedStandardContains(text, other))
        case .regexContains:
            guard let text = try textArgument(0), let regex = try regex(1) else { return resultNull() }
            result(TextOperations.contains(text, regex: regex))
        case .add: try withKind { try arithmetic($0, .add) }
        case .subtract: try withKind { try arithmetic($0, .subtract) }
        case .multiply: try withKind { try arithmetic($0, .multiply) }
        case .divide: try withKind { try division($0, .quotient) }
        case .remainder: try withKind { try division($0, .remainder) }
        case .negate: try withKind { try negation($0) }
        case .compare:
            let comparison = Int(sqlite3_value_int64(value(0)))
            try withKind(at: 1) { try compare($0, comparison, from: 2) }
        case .equal: try withKind { try equality($0) }
        case .unwrap:
            guard sqlite3_value_type(value(0)) != SQLITE_NULL else { throw PredicateFailure.unwrappedNil }
            sqlite3_result_value(context, value(0))
        case .checkRange: try withKind { try checkRange($0) }
        }
    }

    /// Reports a failure as SQLite's error: SQLITE_CONSTRAINT_FUNCTION, which is left to
    /// applications' functions, and the failure's reason behind a marker.
    package func fail(_ failure: PredicateFailure) {
        sqlite3_result_error(context, PredicateFailure.sqlMessagePrefix + failure.reason, -1)
        sqlite3_result_error_code(context, SQLFunction.failureCode)
    }

    // MARK: Arguments

    private func value(_ index: Int) -> OpaquePointer? {
        values?[index]
    }

    private func stored(_ index: Int) -> StoredValue {
        StoredValue(columnValue: value(index))
    }

    /// Text as an object reads it (see ``SQLValue``): nil for NULL.
    private func textArgument(_ index: Int) throws -> String? {
        try read(String.self, index)
    }

    /// The argument as a value of `Value`, read as an attribute of that type reads it; nil for NULL,
    /// NaN for the NaN marker (``SQLFunction/nanMarker``).
    private func read<Value: SQLValue>(_: Value.Type, _ index: Int) throws -> Value? {
        switch stored(index) {
        case .null: return nil
        case .blob(let bytes) where Value.nanValue != nil && bytes.elementsEqual(SQLFunction.nanBytes): return Value.nanValue
        case let stored:
            guard let value = Value(storedValue: stored) else {
                throw PredicateFailure.unexpectedValue("\(stored) is not a \(Value.self)")
            }
            return value
        }
    }

    /// Runs `body` with the Swift type argument `index` names (see ``SQLValueKind``).
    private func withKind(at index: Int = 0, _ body: (any SQLValue.Type) throws -> Void) throws {
        guard let kind = SQLValueKind(rawValue: sqlite3_value_int64(value(index))) else {
            throw PredicateFailure.unexpectedValue("no value kind \(sqlite3_value_int64(value(index)))")
        }
        switch kind {
        case .int: try body(Int.self)
        case .int32: try body(Int32.self)
        case .int16: try body(Int16.self)
        case .double: try body(Double.self)
        case .float: try body(Float.self)
        case .decimal: try body(Decimal.self)
        case .text: try body(String.self)
        case .date: try body(Date.self)
        case .uuid: try body(UUID.self)
        }
    }

    /// The compiled regular expression of a pattern argument, compiled once per statement (SQLite
    /// keeps it with the statement while the argument stays the same).
    private func regex(_ index: Int) throws -> Regex<AnyRegexOutput>? {
        if let cached = sqlite3_get_auxdata(context, CInt(index)) {
            return Unmanaged<CompiledRegex>.fromOpaque(cached).takeUnretainedValue().regex
        }
        guard let pattern = try textArgument(index) else { return nil }
        let compiled: CompiledRegex
        do {
            compiled = CompiledRegex(regex: try Regex(pattern))
        } catch {
            throw PredicateFailure.unexpectedValue("the pattern \(pattern) does not compile: \(error)")
        }
        sqlite3_set_auxdata(context, CInt(index), Unmanaged.passRetained(compiled).toOpaque()) {
            guard let pointer = $0 else { return }
            Unmanaged<CompiledRegex>.fromOpaque(pointer).release()
        }
        return compiled.regex
    }

    // MARK: Numbers

    private func arithmetic(_ type: any SQLValue.Type, _ operation: CheckedArithmetic.Operation) throws {
        func apply<Value: SQLValue & Numeric>(_: Value.Type) throws {
            guard let lhs = try read(Value.self, 1), let rhs = try read(Value.self, 2) else { return resultNull() }
            result(try CheckedArithmetic.apply(operation, lhs, rhs))
        }
        switch type {
        case let type as any (SQLValue & Numeric).Type: try apply(type)
        default: throw PredicateFailure.unexpectedValue("arithmetic on \(type)")
        }
    }

    private func division(_ type: any SQLValue.Type, _ division: CheckedArithmetic.Division) throws {
        func divide<Value: SQLValue & BinaryInteger>(_: Value.Type) throws {
            guard let lhs = try read(Value.self, 1), let rhs = try read(Value.self, 2) else { return resultNull() }
            result(try CheckedArithmetic.divide(division, lhs, rhs))
        }
        func divide<Value: SQLValue & FloatingPoint>(_: Value.Type) throws {
            guard let lhs = try read(Value.self, 1), let rhs = try read(Value.self, 2) else { return resultNull() }
            result(lhs / rhs)
        }
        switch type {
        case let type as any (SQLValue & BinaryInteger).Type: try divide(type)
        case let type as any (SQLValue & FloatingPoint).Type: try divide(type)
        default: throw PredicateFailure.unexpectedValue("division of \(type)")
        }
    }

    private func negation(_ type: any SQLValue.Type) throws {
        func negate<Value: SQLValue & SignedNumeric>(_: Value.Type) throws {
            guard let value = try read(Value.self, 1) else { return resultNull() }
            result(try CheckedArithmetic.negate(value))
        }
        switch type {
        case let type as any (SQLValue & SignedNumeric).Type: try negate(type)
        default: throw PredicateFailure.unexpectedValue("negation of \(type)")
        }
    }

    // MARK: Comparisons

    /// `lhs op rhs` (arguments `index` and `index + 1`), by Swift's operators of `type`.
    private func compare(_ type: any SQLValue.Type, _ comparison: Int, from index: Int) throws {
        func compare<Value: SQLValue>(_: Value.Type) throws {
            guard let lhs = try read(Value.self, index), let rhs = try read(Value.self, index + 1) else { return resultNull() }
            switch comparison {
            case 1: result(lhs < rhs)
            case 2: result(lhs <= rhs)
            case 3: result(lhs > rhs)
            case 4: result(lhs >= rhs)
            default: throw PredicateFailure.unexpectedValue("no comparison \(comparison)")
            }
        }
        try compare(type)
    }

    private func equality(_ type: any SQLValue.Type) throws {
        func equal<Value: SQLValue>(_: Value.Type) throws {
            result(try read(Value.self, 1) == read(Value.self, 2))
        }
        try equal(type)
    }

    private func checkRange(_ type: any SQLValue.Type) throws {
        func check<Value: SQLValue>(_: Value.Type) throws {
            guard let lower = try read(Value.self, 1), let upper = try read(Value.self, 2) else { return resultNull() }
            guard lower <= upper else { throw PredicateFailure.boundsOutOfOrder(type: "\(Value.self)") }
            result(true)
        }
        try check(type)
    }

    // MARK: Results

    private func resultNull() {
        sqlite3_result_null(context)
    }

    private func result(_ value: Bool) {
        sqlite3_result_int64(context, value ? 1 : 0)
    }

    private func result(_ value: Int) {
        sqlite3_result_int64(context, Int64(value))
    }

    /// Text with its length in bytes: all of it, a NUL included.
    private func result(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            guard let address = bytes.baseAddress else {
                sqlite3_result_text64(context, "", 0, sqliteTransient, UInt8(SQLITE_UTF8))
                return
            }
            address.withMemoryRebound(to: CChar.self, capacity: bytes.count) { characters in
                sqlite3_result_text64(context, characters, sqlite3_uint64(bytes.count), sqliteTransient, UInt8(SQLITE_UTF8))
            }
        }
    }

    /// A value as SQL holds it: its stored form, or the NaN marker.
    private func result<Value: SQLValue>(_ value: Value) {
        if value.isNaNValue {
            SQLFunction.nanBytes.withUnsafeBytes { sqlite3_result_blob64(context, $0.baseAddress, 3, sqliteTransient) }
            return
        }
        switch value.storedValue {
        case .null: sqlite3_result_null(context)
        case .integer(let integer): sqlite3_result_int64(context, integer)
        case .real(let real): sqlite3_result_double(context, real)
        case .text(let text): result(text)
        case .blob(let data):
            data.withUnsafeBytes { bytes in
                sqlite3_result_blob64(context, bytes.baseAddress, sqlite3_uint64(bytes.count), sqliteTransient)
            }
        }
    }
}

/// A compiled pattern, kept with a statement by SQLite (see `sqlite3_set_auxdata`).
private final class CompiledRegex {
    package let regex: Regex<AnyRegexOutput>

    package init(regex: Regex<AnyRegexOutput>) {
        self.regex = regex
    }
}
