package import Foundation

// Comparisons and logic: Swift's own operators. `&&` and `||` evaluate their right side only
// when it decides, as SQL's translation does (a `CASE` when a side can fail).

extension PredicateExpressions.Equal: CheckedPredicateExpression
where LHS: CheckedPredicateExpression, RHS: CheckedPredicateExpression {
    package func checkedEvaluate(_ bindings: PredicateBindings) throws -> Bool {
        try lhs.checkedEvaluate(bindings) == rhs.checkedEvaluate(bindings)
    }

    package static var canFail: Bool { LHS.canFail || RHS.canFail }
}

extension PredicateExpressions.NotEqual: CheckedPredicateExpression
where LHS: CheckedPredicateExpression, RHS: CheckedPredicateExpression {
    package func checkedEvaluate(_ bindings: PredicateBindings) throws -> Bool {
        try lhs.checkedEvaluate(bindings) != rhs.checkedEvaluate(bindings)
    }

    package static var canFail: Bool { LHS.canFail || RHS.canFail }
}

extension PredicateExpressions.Comparison: CheckedPredicateExpression
where LHS: CheckedPredicateExpression, RHS: CheckedPredicateExpression {
    package func checkedEvaluate(_ bindings: PredicateBindings) throws -> Bool {
        let lhs = try lhs.checkedEvaluate(bindings), rhs = try rhs.checkedEvaluate(bindings)
        return switch op {
        case .lessThan: lhs < rhs
        case .lessThanOrEqual: lhs <= rhs
        case .greaterThan: lhs > rhs
        case .greaterThanOrEqual: lhs >= rhs
        }
    }

    package static var canFail: Bool { LHS.canFail || RHS.canFail }
}

extension PredicateExpressions.Conjunction: CheckedPredicateExpression
where LHS: CheckedPredicateExpression, RHS: CheckedPredicateExpression {
    package func checkedEvaluate(_ bindings: PredicateBindings) throws -> Bool {
        try lhs.checkedEvaluate(bindings) && rhs.checkedEvaluate(bindings)
    }

    package static var canFail: Bool { LHS.canFail || RHS.canFail }
}

extension PredicateExpressions.Disjunction: CheckedPredicateExpression
where LHS: CheckedPredicateExpression, RHS: CheckedPredicateExpression {
    package func checkedEvaluate(_ bindings: PredicateBindings) throws -> Bool {
        try lhs.checkedEvaluate(bindings) || rhs.checkedEvaluate(bindings)
    }

    package static var canFail: Bool { LHS.canFail || RHS.canFail }
}

extension PredicateExpressions.Negation: CheckedPredicateExpression where Wrapped: CheckedPredicateExpression {
    package func checkedEvaluate(_ bindings: PredicateBindings) throws -> Bool {
        try !wrapped.checkedEvaluate(bindings)
    }

    package static var canFail: Bool { Wrapped.canFail }
}

extension PredicateExpressions.Conditional: CheckedPredicateExpression
where Test: CheckedPredicateExpression, If: CheckedPredicateExpression, Else: CheckedPredicateExpression {
    package func checkedEvaluate(_ bindings: PredicateBindings) throws -> If.Output {
        try test.checkedEvaluate(bindings) ? trueBranch.checkedEvaluate(bindings) : falseBranch.checkedEvaluate(bindings)
    }

    package static var canFail: Bool { Test.canFail || If.canFail || Else.canFail }
}
