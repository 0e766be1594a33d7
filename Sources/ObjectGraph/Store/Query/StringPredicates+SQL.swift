import Foundation

// The SQL of the string predicates of `Model/StringPredicateExpressions.swift`.

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

/// -1, 0 or 1 like `ComparisonResult`, compared without case: Foundation's own comparison, called
/// from SQL (see ``StringFunctions``).
func caseInsensitiveComparison(_ root: Any, _ other: Any, _ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
    let l = try translator.scalar(translator.translate(root), "caseInsensitiveCompare")
    let r = try translator.scalar(translator.translate(other), "caseInsensitiveCompare")
    return .scalar(SQLFragment("\(StringFunctions.caseInsensitiveCompareName)(", l, ", ", r, ")"), .integer)
}

func caseInsensitiveContainment(_ root: Any, _ other: Any, _ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
    let l = try translator.scalar(translator.translate(root), "localizedStandardContains")
    let r = try translator.scalar(translator.translate(other), "localizedStandardContains")
    return .scalar(SQLFragment("(\(StringFunctions.localizedStandardContainsName)(", l, ", ", r, ") = 1)"), .bool)
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
