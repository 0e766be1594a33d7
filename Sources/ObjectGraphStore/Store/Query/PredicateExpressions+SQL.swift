public import Foundation
import ObjectGraphModel

/// A `#Predicate` expression that has an SQL translation.
package protocol SQLTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand
}

// The leaves and property reads. Comparisons and logic are in `+SQLLogic`, arithmetic in
// `+SQLArithmetic`, optionals in `+SQLOptionals`, sequences and text in `+SQLSequences`, ranges
// in `+SQLRanges`.

extension PredicateExpressions.Variable: SQLTranslatable {
    package func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        try translator.operand(for: key)
    }
}

extension PredicateExpressions.KeyPath: SQLTranslatable {
    package func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        try translator.member(keyPath, of: translator.translate(root), rootType: Root.Output.self)
    }
}

extension PredicateExpressions.Value: SQLTranslatable {
    package func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        try translator.constant(value)
    }
}

extension PredicateExpressions.NilLiteral: SQLTranslatable {
    package func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        .scalar(PredicateTranslator.Scalar(sql: "NULL"))
    }
}
