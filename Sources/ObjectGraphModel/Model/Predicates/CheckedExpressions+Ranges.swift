package import Foundation

// Ranges: bounds out of order throw, where Swift's `...` traps and Foundation's `..<` throws its
// own error.

extension PredicateExpressions.ClosedRange: CheckedPredicateExpression
where LHS: CheckedPredicateExpression, RHS: CheckedPredicateExpression {
    package func checkedEvaluate(_ bindings: PredicateBindings) throws -> Swift.ClosedRange<LHS.Output> {
        let lower = try lower.checkedEvaluate(bindings), upper = try upper.checkedEvaluate(bindings)
        guard lower <= upper else { throw PredicateFailure.boundsOutOfOrder(type: "\(LHS.Output.self)") }
        return lower...upper
    }

    package static var canFail: Bool { true }
}

extension PredicateExpressions.Range: CheckedPredicateExpression
where LHS: CheckedPredicateExpression, RHS: CheckedPredicateExpression {
    package func checkedEvaluate(_ bindings: PredicateBindings) throws -> Swift.Range<LHS.Output> {
        let lower = try lower.checkedEvaluate(bindings), upper = try upper.checkedEvaluate(bindings)
        guard lower <= upper else { throw PredicateFailure.boundsOutOfOrder(type: "\(LHS.Output.self)") }
        return lower..<upper
    }

    package static var canFail: Bool { true }
}

extension PredicateExpressions.RangeExpressionContains: CheckedPredicateExpression
where RangeExpression: CheckedPredicateExpression, Element: CheckedPredicateExpression {
    package func checkedEvaluate(_ bindings: PredicateBindings) throws -> Bool {
        try range.checkedEvaluate(bindings).contains(try element.checkedEvaluate(bindings))
    }

    package static var canFail: Bool { RangeExpression.canFail || Element.canFail }
}
