package import Foundation

// The leaves of a predicate and the reads of properties: as Foundation evaluates them.

extension PredicateExpressions.Variable: CheckedPredicateExpression {
    package func checkedEvaluate(_ bindings: PredicateBindings) throws -> Output {
        guard let value = bindings[self] else { throw PredicateFailure.unexpectedValue("a variable of the predicate with no value") }
        return value
    }
}

extension PredicateExpressions.Value: CheckedPredicateExpression {
    package func checkedEvaluate(_ bindings: PredicateBindings) throws -> Output { value }
}

extension PredicateExpressions.NilLiteral: CheckedPredicateExpression {
    package func checkedEvaluate(_ bindings: PredicateBindings) throws -> Output { nil }
}

extension PredicateExpressions.KeyPath: CheckedPredicateExpression where Root: CheckedPredicateExpression {
    package func checkedEvaluate(_ bindings: PredicateBindings) throws -> Output {
        try root.checkedEvaluate(bindings)[keyPath: keyPath]
    }

    package static var canFail: Bool { Root.canFail }
}
