/// Why a predicate could not be evaluated for an object: what Swift traps on, or throws a
/// `PredicateError` for, and ObjectGraph reports as
/// ``ObjectGraphError/predicateEvaluationFailed(entity:reason:)``, from SQL and from memory alike.
///
/// SQL's functions raise it (`Store/Query/SQLFunctions.swift` carries it in SQLite's error) and
/// the in-memory evaluation throws it; both describe it with ``reason``, so that one failure gives
/// one error wherever it happened.
package enum PredicateFailure: Error, Hashable, Sendable {
    /// An integer operation whose result does not fit its type (`Int.max + 1`, `-Int.min`,
    /// `Int.min / -1`).
    case overflow(operation: String, type: String)
    /// An integer division or remainder by zero.
    case divisionByZero(operation: String, type: String)
    /// `!` applied to nil.
    case unwrappedNil
    /// A range built from bounds out of order (`lower...upper` with `lower > upper`).
    case boundsOutOfOrder(type: String)
    /// A value that is not what the operation takes: a stored value its attribute's type does not
    /// read (text where a number belongs, written by another program), never taken for another.
    case unexpectedValue(String)

    /// What went wrong, in words: the ``ObjectGraphError/reason`` of the error.
    package var reason: String {
        switch self {
        case let .overflow(operation, type): "\(type) \(operation) overflowed"
        case let .divisionByZero(operation, type): "\(type) \(operation) by zero"
        case .unwrappedNil: "nil was unwrapped with !"
        case .boundsOutOfOrder(let type): "a range of \(type) has its lower bound above its upper bound"
        case .unexpectedValue(let description): "unexpected value: \(description)"
        }
    }

    /// What starts the message of SQLite's error for a failure an SQL function reports: the rest is
    /// the failure's ``reason``.
    package static let sqlMessagePrefix = "ObjectGraph predicate failure: "
    /// The extended result code of SQLite's error for it: `SQLITE_CONSTRAINT_FUNCTION`
    /// (`SQLITE_CONSTRAINT | 4 << 8`), which SQLite leaves to applications' functions.
    package static let sqliteResultCode: Int32 = 19 | 4 << 8

    /// The error a fetch of `entity` throws for it.
    package func error(entity: String) -> ObjectGraphError {
        .predicateEvaluationFailed(entity: entity, reason: reason)
    }
}
