import Foundation
package import GRDB
import GRDBSQLite
import ObjectGraphModel

/// The SQL functions ObjectGraph adds to every connection: the operations whose SQLite
/// equivalents answer otherwise than Swift, each implemented by the Swift code the in-memory
/// evaluation runs (`Model/Predicates/`), so that SQL and memory cannot drift apart.
///
/// SQLite compares text as bytes, counts code points and stops at a NUL; it turns an integer
/// overflow into a real, NaN into NULL, and compares decimals stored as text as text. The
/// translator (`PredicateTranslator`) calls these functions wherever that would differ from Swift.
///
/// They are registered with SQLite's C API rather than GRDB's `DatabaseFunction`: GRDB reads text
/// arguments as C strings, which end at the first NUL, and reports a function's error with no code
/// of its own. A NULL argument gives NULL, as SQL's own functions do, unless the function says
/// otherwise. A failure (an overflow, say) is SQLite's error with the extended code
/// `SQLITE_CONSTRAINT_FUNCTION` and a message naming the failure, which the context turns into
/// ``ObjectGraphError/predicateEvaluationFailed(entity:reason:)`` (see
/// ``StoreError/predicateFailureReason``).
package enum SQLFunction: Int, CaseIterable {
    /// `og_precomposed(text)`: the text in Normalization Form C (the migration of older stores).
    case precomposed = 1
    /// `og_contains(text, other)`: `Collection.contains`, by character.
    case contains
    /// `og_starts_with(text, prefix)`: `Sequence.starts(with:)`, by character.
    case startsWith
    /// `og_count(text)`: the number of characters.
    case count
    /// `og_case_insensitive_compare(a, b)`: -1, 0 or 1, as Foundation's `caseInsensitiveCompare`.
    case caseInsensitiveCompare
    /// `og_localized_standard_contains(text, other)`: Foundation's `localizedStandardContains`.
    case localizedStandardContains
    /// `og_regex_contains(text, pattern)`: whether Swift's `Regex` of the pattern matches in the text.
    case regexContains
    /// `og_add(kind, a, b)` and the other arithmetic functions: Swift's arithmetic on values of
    /// `kind` (see ``SQLValueKind``), an integer overflow a failure.
    case add, subtract, multiply, divide, remainder
    /// `og_negate(kind, a)`.
    case negate
    /// `og_compare(operator, kind, a, b)`: Swift's `<` (1), `<=` (2), `>` (3) or `>=` (4) on values
    /// of `kind`; NULL when either is NULL.
    case compare
    /// `og_equal(kind, a, b)`: Swift's `==` on optional values of `kind`: 1 when both are NULL,
    /// 0 when one is; never NULL.
    case equal
    /// `og_unwrap(x)`: `x`, or a failure when it is NULL (Swift's `!`).
    case unwrap
    /// `og_check_range(kind, lower, upper)`: 1, or a failure when `lower` is above `upper` (a
    /// range Swift cannot make); NULL when either is NULL.
    case checkRange

    package var name: String {
        switch self {
        case .precomposed: "og_precomposed"
        case .contains: "og_contains"
        case .startsWith: "og_starts_with"
        case .count: "og_count"
        case .caseInsensitiveCompare: "og_case_insensitive_compare"
        case .localizedStandardContains: "og_localized_standard_contains"
        case .regexContains: "og_regex_contains"
        case .add: "og_add"
        case .subtract: "og_subtract"
        case .multiply: "og_multiply"
        case .divide: "og_divide"
        case .remainder: "og_remainder"
        case .negate: "og_negate"
        case .compare: "og_compare"
        case .equal: "og_equal"
        case .unwrap: "og_unwrap"
        case .checkRange: "og_check_range"
        }
    }

    package var argumentCount: CInt {
        switch self {
        case .precomposed, .count, .unwrap: 1
        case .contains, .startsWith, .caseInsensitiveCompare, .localizedStandardContains, .regexContains, .negate: 2
        case .add, .subtract, .multiply, .divide, .remainder, .equal, .checkRange: 3
        case .compare: 4
        }
    }

    /// The function applied to `arguments`, as SQL text.
    package func callAsFunction(_ arguments: SQLFragment...) -> SQLFragment {
        call(arguments)
    }

    /// The function applied to `arguments`, as SQL text.
    package func call(_ arguments: [SQLFragment]) -> SQLFragment {
        var call = SQLFragment(name + "(")
        for (index, argument) in arguments.enumerated() {
            if index > 0 { call = call + ", " }
            call = call + argument
        }
        return call + ")"
    }

    /// The value a function returns for NaN: SQLite has no NaN (it turns one into NULL, which would
    /// read as nil). Only ``compare``, ``equal``, ``checkRange`` and the arithmetic read it back.
    package static let nanMarker = "X'4E614E'"
    /// The bytes of ``nanMarker``: "NaN".
    package static let nanBytes: [UInt8] = Array("NaN".utf8)

    /// The extended result code of a function's failure (see ``PredicateFailure/sqliteResultCode``;
    /// C defines `SQLITE_CONSTRAINT_FUNCTION` as a macro Swift does not import).
    package static let failureCode: CInt = PredicateFailure.sqliteResultCode

    /// Adds every function, and the collations, to a connection.
    package static func register(in db: Database) {
        for function in allCases {
            sqlite3_create_function_v2(
                db.sqliteConnection, function.name, function.argumentCount,
                SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
                UnsafeMutableRawPointer(bitPattern: function.rawValue), callFunction, nil, nil, nil)
        }
        SQLCollation.register(in: db)
    }
}

/// The entry point SQLite calls for every function: the function is the user data it was registered
/// with (its raw value), so that no Swift object is retained by the connection.
private let callFunction: @convention(c) (OpaquePointer?, CInt, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
    context, count, values in
    guard let function = SQLFunction(rawValue: Int(bitPattern: sqlite3_user_data(context))) else { return }
    var call = SQLFunctionCall(context: context, values: values, count: Int(count))
    do {
        try call.run(function)
    } catch let failure as PredicateFailure {
        call.fail(failure)
    } catch {
        call.fail(.unexpectedValue("\(error)"))
    }
}
