public import Foundation
import ObjectGraphModel

// Arithmetic, always through the `og_` functions: SQLite turns an integer overflow into a real,
// computes `Float` sums as doubles, decimals stored as text as doubles, and NaN as NULL. The
// functions compute in the operands' Swift type (`CheckedArithmetic`), and fail where Swift traps.

extension PredicateTranslator {
    /// `function` of `operands`, computed as Swift computes values of `type`.
    package func arithmetic(_ function: SQLFunction, _ operands: Scalar..., as type: Any.Type) throws -> Scalar {
        guard let kind = SQLValueKind(type), ![.text, .date, .uuid].contains(kind) else {
            throw unsupported("arithmetic on values of type \(type)")
        }
        var traits = Traits.strict(operands.map(\.traits))
        // An integer operation can overflow, or divide by zero; a floating-point one can give NaN.
        traits.mayFail = traits.mayFail || !kind.isFloatingPoint && kind != .decimal
        traits.mayBeNaN = kind.isFloatingPoint
        return Scalar(sql: function.call([kind.sql] + operands.map(\.sql)), traits: traits)
    }
}

extension PredicateExpressions.Arithmetic: SQLTranslatable {
    package func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        let left = try translator.scalar(of: lhs, "arithmetic"), right = try translator.scalar(of: rhs, "arithmetic")
        let function: SQLFunction =
            switch op {
            case .add: .add
            case .subtract: .subtract
            case .multiply: .multiply
            }
        return .scalar(try translator.arithmetic(function, left, right, as: Output.self))
    }
}

extension PredicateExpressions.UnaryMinus: SQLTranslatable {
    package func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        // `-5` in a predicate is the minus of the constant 5: computed now, it stays a constant
        // (and a column compared with it keeps its index).
        // (`-Int.min` fails only where it is evaluated: it is left to the function then.)
        if let constant = wrapped as? PredicateExpressions.Value<Output>, let negated = try? CheckedArithmetic.negate(constant.value) {
            return try translator.constant(negated)
        }
        return .scalar(try translator.arithmetic(.negate, translator.scalar(of: wrapped, "-"), as: Output.self))
    }
}

extension PredicateExpressions.IntDivision: SQLTranslatable {
    package func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        let left = try translator.scalar(of: lhs, "/"), right = try translator.scalar(of: rhs, "/")
        return .scalar(try translator.arithmetic(.divide, left, right, as: Output.self))
    }
}

extension PredicateExpressions.IntRemainder: SQLTranslatable {
    package func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        let left = try translator.scalar(of: lhs, "%"), right = try translator.scalar(of: rhs, "%")
        return .scalar(try translator.arithmetic(.remainder, left, right, as: Output.self))
    }
}

extension PredicateExpressions.FloatDivision: SQLTranslatable {
    package func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        let left = try translator.scalar(of: lhs, "/"), right = try translator.scalar(of: rhs, "/")
        return .scalar(try translator.arithmetic(.divide, left, right, as: Output.self))
    }
}
