package import Foundation

// Arithmetic through `CheckedArithmetic`: an integer overflow or division by zero throws.

extension PredicateExpressions.Arithmetic: CheckedPredicateExpression
where LHS: CheckedPredicateExpression, RHS: CheckedPredicateExpression {
    package func checkedEvaluate(_ bindings: PredicateBindings) throws -> Output {
        let lhs = try lhs.checkedEvaluate(bindings), rhs = try rhs.checkedEvaluate(bindings)
        let operation: CheckedArithmetic.Operation =
            switch op {
            case .add: .add
            case .subtract: .subtract
            case .multiply: .multiply
            }
        return try CheckedArithmetic.apply(operation, lhs, rhs)
    }

    package static var canFail: Bool { LHS.canFail || RHS.canFail || Output.self is any FixedWidthInteger.Type }
}

extension PredicateExpressions.UnaryMinus: CheckedPredicateExpression where Wrapped: CheckedPredicateExpression {
    package func checkedEvaluate(_ bindings: PredicateBindings) throws -> Output {
        try CheckedArithmetic.negate(wrapped.checkedEvaluate(bindings))
    }

    package static var canFail: Bool { Wrapped.canFail || Output.self is any FixedWidthInteger.Type }
}

extension PredicateExpressions.IntDivision: CheckedPredicateExpression
where LHS: CheckedPredicateExpression, RHS: CheckedPredicateExpression {
    package func checkedEvaluate(_ bindings: PredicateBindings) throws -> Output {
        try CheckedArithmetic.divide(.quotient, lhs.checkedEvaluate(bindings), rhs.checkedEvaluate(bindings))
    }

    package static var canFail: Bool { true }
}

extension PredicateExpressions.IntRemainder: CheckedPredicateExpression
where LHS: CheckedPredicateExpression, RHS: CheckedPredicateExpression {
    package func checkedEvaluate(_ bindings: PredicateBindings) throws -> Output {
        try CheckedArithmetic.divide(.remainder, lhs.checkedEvaluate(bindings), rhs.checkedEvaluate(bindings))
    }

    package static var canFail: Bool { true }
}

extension PredicateExpressions.FloatDivision: CheckedPredicateExpression
where LHS: CheckedPredicateExpression, RHS: CheckedPredicateExpression {
    package func checkedEvaluate(_ bindings: PredicateBindings) throws -> Output {
        try lhs.checkedEvaluate(bindings) / rhs.checkedEvaluate(bindings)
    }

    package static var canFail: Bool { LHS.canFail || RHS.canFail }
}
