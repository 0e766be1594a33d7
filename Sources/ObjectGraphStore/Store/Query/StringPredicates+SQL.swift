import Foundation
package import ObjectGraphModel

// The SQL of the string predicates of `Model/Predicates/StringPredicateExpressions.swift`:
// Foundation's own comparisons, called from SQL (see `SQLFunction`).

extension CaseInsensitiveCompareExpression: SQLTranslatable {
    package func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        try translator.textFunction(.caseInsensitiveCompare, root, other, "caseInsensitiveCompare")
    }
}

extension CaseInsensitiveContainsExpression: SQLTranslatable {
    package func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        try translator.textFunction(.localizedStandardContains, root, other, "localizedStandardContains")
    }
}

#if canImport(Darwin)
    extension PredicateExpressions.StringCaseInsensitiveCompare: SQLTranslatable {
        package func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
            try translator.textFunction(.caseInsensitiveCompare, root, other, "caseInsensitiveCompare")
        }
    }

    extension PredicateExpressions.StringLocalizedStandardContains: SQLTranslatable {
        package func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
            try translator.textFunction(.localizedStandardContains, root, other, "localizedStandardContains")
        }
    }
#endif
