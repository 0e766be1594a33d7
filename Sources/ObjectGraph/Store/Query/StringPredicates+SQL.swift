import Foundation

// The SQL of the string predicates of `Model/Predicates/StringPredicateExpressions.swift`:
// Foundation's own comparisons, called from SQL (see `SQLFunction`).

extension CaseInsensitiveCompareExpression: SQLTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        try caseInsensitiveComparison(root, other, &translator)
    }
}

extension CaseInsensitiveContainsExpression: SQLTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        try caseInsensitiveContainment(root, other, &translator)
    }
}

/// -1, 0 or 1 like `ComparisonResult`, compared without case.
private func caseInsensitiveComparison(_ root: Any, _ other: Any, _ translator: inout PredicateTranslator) throws
    -> PredicateTranslator.Operand
{
    let l = try translator.scalar(of: root, "caseInsensitiveCompare"), r = try translator.scalar(of: other, "caseInsensitiveCompare")
    return .scalar(PredicateTranslator.Scalar(sql: SQLFunction.caseInsensitiveCompare(l.sql, r.sql), traits: .strict(l.traits, r.traits)))
}

private func caseInsensitiveContainment(_ root: Any, _ other: Any, _ translator: inout PredicateTranslator) throws
    -> PredicateTranslator.Operand
{
    let l = try translator.scalar(of: root, "localizedStandardContains"), r = try translator.scalar(of: other, "localizedStandardContains")
    return .scalar(
        PredicateTranslator.Scalar(sql: SQLFunction.localizedStandardContains(l.sql, r.sql), traits: .strict(l.traits, r.traits)))
}

#if canImport(Darwin)
    extension PredicateExpressions.StringCaseInsensitiveCompare: SQLTranslatable {
        func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
            try caseInsensitiveComparison(root, other, &translator)
        }
    }

    extension PredicateExpressions.StringLocalizedStandardContains: SQLTranslatable {
        func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
            try caseInsensitiveContainment(root, other, &translator)
        }
    }
#endif
