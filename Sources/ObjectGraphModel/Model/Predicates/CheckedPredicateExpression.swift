package import Foundation

/// A `#Predicate` expression that ObjectGraph evaluates itself, in memory, with the answers its
/// SQL translation gives: Foundation's own evaluation, without its traps.
///
/// Foundation's `evaluate` traps on an integer overflow (`Int.max + 1`), on `Int.min / -1`, on a
/// division by zero and on `lower...upper` with `lower > upper`, and throws its own
/// `PredicateError` for nil unwrapped by force. A context evaluates the objects it holds changed
/// in memory, and SQL the others: each node here computes what Foundation's computes, through the
/// same Swift operations (``CheckedArithmetic``, ``TextOperations``), and throws a
/// ``PredicateFailure`` where Foundation would trap or throw, which SQL's functions raise for the
/// same values. A fetch turns it into ``ObjectGraphError/predicateEvaluationFailed(entity:reason:)``.
///
/// A node conforms when its operands do, so a whole predicate conforms exactly when every node
/// of it has a checked evaluation: the forms ObjectGraph translates to SQL (see <doc:Fetching>).
package protocol CheckedPredicateExpression<Output>: PredicateExpression {
    associatedtype Output
    /// The node's value for `bindings`; throws a ``PredicateFailure`` where Swift would trap.
    func checkedEvaluate(_ bindings: PredicateBindings) throws -> Output
    /// Whether evaluating the node can fail (an operation that can overflow, a forced unwrap…),
    /// whatever the values: then a test over a sequence tests every element, as SQL does, so that
    /// a failing element fails whichever comes first.
    static var canFail: Bool { get }
}

extension CheckedPredicateExpression {
    package static var canFail: Bool { false }
}

/// A predicate over one object, ready for the checked evaluation of each object a context
/// evaluates in memory (its cast to ``CheckedPredicateExpression`` made once).
///
/// `Sendable` by its parts: the expression is the predicate's, which is `Sendable` (every
/// `StandardPredicateExpression` is); the cast to the checked protocol cannot say so.
package struct CheckedPredicate<Object>: @unchecked Sendable {
    private let expression: any CheckedPredicateExpression<Bool>
    private let variable: PredicateExpressions.Variable<Object>
    /// The entity named in the errors it throws.
    package let entity: String

    /// - Throws: ``ObjectGraphError/unsupportedPredicate(entity:construct:)`` when a node of the
    ///   predicate has no checked evaluation (and so no SQL translation either).
    package init(_ predicate: Predicate<Object>, entity: String) throws {
        guard let expression = predicate.expression as? any CheckedPredicateExpression<Bool> else {
            throw ObjectGraphError.unsupportedPredicate(
                entity: entity,
                construct: "\(type(of: predicate.expression)), which holds an expression ObjectGraph does not evaluate")
        }
        self.expression = expression
        self.variable = predicate.variable
        self.entity = entity
    }

    /// Whether `object` matches.
    ///
    /// - Throws: ``ObjectGraphError/predicateEvaluationFailed(entity:reason:)`` where Swift would
    ///   trap or throw.
    package func evaluate(_ object: Object) throws -> Bool {
        do {
            return try expression.checkedEvaluate(PredicateBindings((variable, object)))
        } catch let failure as PredicateFailure {
            throw failure.error(entity: entity)
        }
    }
}
