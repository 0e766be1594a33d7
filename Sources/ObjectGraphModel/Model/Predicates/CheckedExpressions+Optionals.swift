package import Foundation

// Optionals: `??` evaluates its right side only for nil; `!` of nil throws instead of Foundation's
// `PredicateError`.

extension PredicateExpressions.NilCoalesce: CheckedPredicateExpression
where LHS: CheckedPredicateExpression, RHS: CheckedPredicateExpression {
    package func checkedEvaluate(_ bindings: PredicateBindings) throws -> Output {
        try lhs.checkedEvaluate(bindings) ?? rhs.checkedEvaluate(bindings)
    }

    package static var canFail: Bool { LHS.canFail || RHS.canFail }
}

extension PredicateExpressions.OptionalFlatMap: CheckedPredicateExpression
where LHS: CheckedPredicateExpression, RHS: CheckedPredicateExpression {
    package func checkedEvaluate(_ bindings: PredicateBindings) throws -> Output {
        guard let wrapped = try wrapped.checkedEvaluate(bindings) else { return nil }
        var bindings = bindings
        bindings[variable] = wrapped
        // The transform gives `Result` or `Result?` (the two initializers): either casts to `Result?`.
        guard let result = try transform.checkedEvaluate(bindings) as? Result? else {
            throw PredicateFailure.unexpectedValue("\(RHS.Output.self) is not \(Result?.self)")
        }
        return result
    }

    package static var canFail: Bool { LHS.canFail || RHS.canFail }
}

extension PredicateExpressions.ForcedUnwrap: CheckedPredicateExpression where Inner: CheckedPredicateExpression {
    package func checkedEvaluate(_ bindings: PredicateBindings) throws -> Wrapped {
        guard let value = try inner.checkedEvaluate(bindings) else { throw PredicateFailure.unwrappedNil }
        return value
    }

    package static var canFail: Bool { true }
}
