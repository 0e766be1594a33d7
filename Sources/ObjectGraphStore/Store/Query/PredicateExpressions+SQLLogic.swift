public import Foundation
import ObjectGraphModel

// Comparisons and logic. SQLite's own operators where they are Swift's: numbers, dates and text
// (stored precomposed, so that bytes order as Swift orders). Decimals, and reals that may be NaN,
// compare through `og_compare` and `og_equal`, which call Swift's operators.

extension PredicateTranslator {
    package enum ComparisonOperator: Int {
        case lessThan = 1
        case lessThanOrEqual, greaterThan, greaterThanOrEqual

        package init(_ op: PredicateExpressions.ComparisonOperator) {
            switch op {
            case .lessThan: self = .lessThan
            case .lessThanOrEqual: self = .lessThanOrEqual
            case .greaterThan: self = .greaterThan
            case .greaterThanOrEqual: self = .greaterThanOrEqual
            }
        }

        package var symbol: String {
            switch self {
            case .lessThan: "<"
            case .lessThanOrEqual: "<="
            case .greaterThan: ">"
            case .greaterThanOrEqual: ">="
            }
        }
    }

    /// The kind a comparison of values of `type` needs a function for, or nil when SQLite's own
    /// comparison is Swift's for these operands.
    private func functionKind(_ type: Any.Type, _ operands: Scalar...) -> SQLValueKind? {
        guard let kind = SQLValueKind(type) else { return nil }
        if kind == .decimal { return kind }
        if kind.isFloatingPoint, operands.contains(where: \.traits.mayBeNaN) { return kind }
        return nil
    }

    /// `lhs op rhs` for values of `type`, as Swift compares them.
    package func compare(_ lhs: Scalar, _ op: ComparisonOperator, _ rhs: Scalar, as type: Any.Type) -> Scalar {
        let traits = Traits.strict(lhs.traits, rhs.traits)
        if let kind = functionKind(type, lhs, rhs) {
            return Scalar(sql: SQLFunction.compare(SQLFragment("\(op.rawValue)"), kind.sql, lhs.sql, rhs.sql), traits: traits)
        }
        return Scalar(sql: SQLFragment("(", lhs.sql, " \(op.symbol) ", rhs.sql, ")"), traits: traits)
    }

    /// `lhs == rhs` (or, `negated`, `!=`) for optional values of `type`, as Swift compares them:
    /// two nils are equal.
    package func equal(_ lhs: Scalar, _ rhs: Scalar, as type: Any.Type, negated: Bool) -> Scalar {
        let traits = Traits.lenient(lhs.traits, rhs.traits)
        if let kind = functionKind(type, lhs, rhs) {
            let equal = SQLFunction.equal(kind.sql, lhs.sql, rhs.sql)
            return Scalar(sql: negated ? "(NOT " + equal + ")" : equal, traits: traits)
        }
        return Scalar(sql: SQLFragment("(", lhs.sql, negated ? " IS NOT " : " IS ", rhs.sql, ")"), traits: traits)
    }

    /// `lhs && rhs` or `lhs || rhs`. The right side runs only when it decides, as in Swift: when a
    /// side can fail, a `CASE` keeps that order (SQLite may evaluate `AND`'s sides in any order).
    package func logical(_ lhs: Scalar, and isAnd: Bool, _ rhs: Scalar) -> Scalar {
        let traits = Traits.strict(lhs.traits, rhs.traits)
        guard lhs.traits.mayFail || rhs.traits.mayFail else {
            return Scalar(sql: SQLFragment("(", lhs.sql, isAnd ? " AND " : " OR ", rhs.sql, ")"), traits: traits)
        }
        let sql =
            isAnd
            ? "(CASE WHEN " + lhs.sql + " THEN " + rhs.sql + " ELSE 0 END)"
            : "(CASE WHEN " + lhs.sql + " THEN 1 ELSE " + rhs.sql + " END)"
        return Scalar(sql: sql, traits: Traits(mayFail: true))
    }
}

/// Swift's `==` treats two nils as equal, so equality is SQL's null-safe `IS`.
private func equality<Value>(
    _ lhs: Any, _ rhs: Any, of _: Value.Type, negated: Bool, _ translator: inout PredicateTranslator
) throws -> PredicateTranslator.Operand {
    let left = try translator.translate(lhs), right = try translator.translate(rhs)
    if let condition = try translator.objectIDEquality(left, right, negated: negated) { return condition }
    return .scalar(
        translator.equal(
            try translator.scalar(left, "a comparison"), try translator.scalar(right, "a comparison"), as: Value.self,
            negated: negated))
}

extension PredicateExpressions.Equal: SQLTranslatable {
    package func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        try equality(lhs, rhs, of: LHS.Output.self, negated: false, &translator)
    }
}

extension PredicateExpressions.NotEqual: SQLTranslatable {
    package func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        try equality(lhs, rhs, of: LHS.Output.self, negated: true, &translator)
    }
}

extension PredicateExpressions.Comparison: SQLTranslatable {
    package func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        let left = try translator.scalar(of: lhs, "a comparison"), right = try translator.scalar(of: rhs, "a comparison")
        return .scalar(translator.compare(left, .init(op), right, as: LHS.Output.self))
    }
}

/// `AND` and `OR` pass the filter position on: with NULL for `false` in an operand, their result
/// is NULL where it would be `false`, and the same otherwise.
private func logical(_ lhs: Any, _ rhs: Any, and isAnd: Bool, _ t: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
    let onlyFilters = t.nodeOnlyFilters
    let left = try t.scalar(t.translate(lhs, onlyFilters: onlyFilters), isAnd ? "&&" : "||")
    let right = try t.scalar(t.translate(rhs, onlyFilters: onlyFilters), isAnd ? "&&" : "||")
    return .scalar(t.logical(left, and: isAnd, right))
}

extension PredicateExpressions.Conjunction: SQLTranslatable {
    package func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        try logical(lhs, rhs, and: true, &translator)
    }
}

extension PredicateExpressions.Disjunction: SQLTranslatable {
    package func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        try logical(lhs, rhs, and: false, &translator)
    }
}

extension PredicateExpressions.Negation: SQLTranslatable {
    package func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        let inner = try translator.scalar(of: wrapped, "!")
        return .scalar(PredicateTranslator.Scalar(sql: "(NOT " + inner.sql + ")", traits: .strict(inner.traits)))
    }
}

extension PredicateExpressions.Conditional: SQLTranslatable {
    package func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        let condition = try translator.scalar(of: test, "a condition")
        let yes = try translator.scalar(of: trueBranch, "a condition"), no = try translator.scalar(of: falseBranch, "a condition")
        var traits = PredicateTranslator.Traits.lenient(condition.traits, yes.traits, no.traits)
        traits.mayBeNaN = yes.traits.mayBeNaN || no.traits.mayBeNaN
        return .scalar(
            PredicateTranslator.Scalar(
                sql: "(CASE WHEN " + condition.sql + " THEN " + yes.sql + " ELSE " + no.sql + " END)", traits: traits))
    }
}
