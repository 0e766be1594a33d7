import Foundation

/// The arithmetic of predicates, as Swift computes it but without its traps: an integer result
/// that does not fit its type, or an integer division by zero, throws a ``PredicateFailure``
/// where Swift would stop the program. Floating-point and `Decimal` arithmetic never trap and are
/// Swift's own (`Double.infinity - .infinity` is NaN, `1.0 / 0` is infinity).
///
/// The in-memory evaluation calls it with the values of the objects, and the SQL functions of
/// `Store/Query/SQLFunctions.swift` with the values of the rows, converted to the same Swift
/// types: one implementation for both sides.
package enum CheckedArithmetic {
    /// What `+`, `-` and `*` compute (`PredicateExpressions.ArithmeticOperator`'s cases).
    package enum Operation: Sendable {
        case add, subtract, multiply

        package var name: String {
            switch self {
            case .add: "addition"
            case .subtract: "subtraction"
            case .multiply: "multiplication"
            }
        }
    }

    /// What `/` and `%` of integers compute.
    package enum Division: Sendable {
        case quotient, remainder

        package var name: String { self == .quotient ? "division" : "remainder" }
    }

    /// `lhs op rhs`, for any numeric type a predicate adds, subtracts or multiplies.
    package static func apply<Value: Numeric>(_ operation: Operation, _ lhs: Value, _ rhs: Value) throws -> Value {
        if let integer = Value.self as? any FixedWidthInteger.Type {
            return try fixedWidth(integer, .arithmetic(operation), lhs, rhs)
        }
        switch operation {
        case .add: return lhs + rhs
        case .subtract: return lhs - rhs
        case .multiply: return lhs * rhs
        }
    }

    /// `lhs / rhs` or `lhs % rhs` of integers: by zero, or `Int.min / -1`, throws.
    package static func divide<Value: BinaryInteger>(_ division: Division, _ lhs: Value, _ rhs: Value) throws -> Value {
        if let integer = Value.self as? any FixedWidthInteger.Type {
            return try fixedWidth(integer, .division(division), lhs, rhs)
        }
        guard rhs != 0 else { throw PredicateFailure.divisionByZero(operation: division.name, type: "\(Value.self)") }
        return division == .quotient ? lhs / rhs : lhs % rhs
    }

    /// `-value`: `-Int.min` overflows.
    package static func negate<Value: SignedNumeric>(_ value: Value) throws -> Value {
        if let integer = Value.self as? any FixedWidthInteger.Type {
            return try fixedWidth(integer, .negation, value, value)
        }
        return -value
    }

    /// `lhs op rhs` of integers.
    package static func checked<Integer: FixedWidthInteger>(_ operation: Operation, _ lhs: Integer, _ rhs: Integer) throws -> Integer {
        let (result, overflow) =
            switch operation {
            case .add: lhs.addingReportingOverflow(rhs)
            case .subtract: lhs.subtractingReportingOverflow(rhs)
            case .multiply: lhs.multipliedReportingOverflow(by: rhs)
            }
        guard !overflow else { throw PredicateFailure.overflow(operation: operation.name, type: "\(Integer.self)") }
        return result
    }

    /// `lhs / rhs` or `lhs % rhs` of integers.
    package static func checked<Integer: FixedWidthInteger>(_ division: Division, _ lhs: Integer, _ rhs: Integer) throws -> Integer {
        guard rhs != 0 else { throw PredicateFailure.divisionByZero(operation: division.name, type: "\(Integer.self)") }
        let (result, overflow) =
            division == .quotient ? lhs.dividedReportingOverflow(by: rhs) : lhs.remainderReportingOverflow(dividingBy: rhs)
        guard !overflow else { throw PredicateFailure.overflow(operation: division.name, type: "\(Integer.self)") }
        return result
    }

    /// `-value` of an integer.
    package static func negated<Integer: FixedWidthInteger>(_ value: Integer) throws -> Integer {
        let (result, overflow) = Integer.zero.subtractingReportingOverflow(value)
        guard !overflow else { throw PredicateFailure.overflow(operation: "negation", type: "\(Integer.self)") }
        return result
    }

    private enum IntegerOperation {
        case arithmetic(Operation)
        case division(Division)
        case negation
    }

    /// `operation` on `lhs` and `rhs` (only `lhs` for a negation) as the fixed-width integer type
    /// `Value` is.
    private static func fixedWidth<Integer: FixedWidthInteger, Value>(
        _: Integer.Type, _ operation: IntegerOperation, _ lhs: Value, _ rhs: Value
    ) throws -> Value {
        // `Value` is `Integer` (the caller found it so): the casts succeed.
        guard let lhs = lhs as? Integer, let rhs = rhs as? Integer else {
            throw PredicateFailure.unexpectedValue("\(Value.self) computed as \(Integer.self)")
        }
        let result: Integer =
            switch operation {
            case .arithmetic(let operation): try checked(operation, lhs, rhs)
            case .division(let division): try checked(division, lhs, rhs)
            case .negation: try negated(lhs)
            }
        guard let value = result as? Value else { throw PredicateFailure.unexpectedValue("\(Integer.self) read as \(Value.self)") }
        return value
    }
}
