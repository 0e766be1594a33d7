package import Foundation

// Tests and casts of an object's class (`$0 is WorkEvent`, `$0 as? WorkEvent`), for entity
// hierarchies: Swift's own `is` and `as?`, which cannot trap.

extension PredicateExpressions.TypeCheck: CheckedPredicateExpression where Input: CheckedPredicateExpression {
    package func checkedEvaluate(_ bindings: PredicateBindings) throws -> Bool {
        try input.checkedEvaluate(bindings) is Desired
    }

    package static var canFail: Bool { Input.canFail }
}

extension PredicateExpressions.ConditionalCast: CheckedPredicateExpression where Input: CheckedPredicateExpression {
    package func checkedEvaluate(_ bindings: PredicateBindings) throws -> Desired? {
        try input.checkedEvaluate(bindings) as? Desired
    }

    package static var canFail: Bool { Input.canFail }
}
