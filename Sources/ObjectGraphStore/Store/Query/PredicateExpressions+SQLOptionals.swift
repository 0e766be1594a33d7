public import Foundation
import ObjectGraphModel

// Optionals. SQL's NULL is Swift's nil where an operation passes it through (a column read, `<`,
// the `og_` functions); elsewhere (`IS`, `COALESCE`, a count) an optional chain tests its value
// for NULL itself, as Swift's `flatMap` does.

extension PredicateTranslator.Operand {
    /// The operand, NULL whenever the optional-chaining `variable` is nil (it is that variable's value).
    package func null(for variable: PredicateExpressions.VariableID) -> Self {
        switch self {
        case .scalar(var scalar):
            scalar.traits.nullFor.insert(variable)
            return .scalar(scalar)
        case .row(var row):
            row.traits.nullFor.insert(variable)
            return .row(row)
        default:
            return self
        }
    }
}

extension PredicateExpressions.NilCoalesce: SQLTranslatable {
    package func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        // `optional.flatMap { $0 < cutoff } ?? false` as a filter: NULL already excludes the row,
        // and `COALESCE` would hide the comparison from the column's index.
        if translator.nodeOnlyFilters, (rhs as? PredicateExpressions.Value<Bool>)?.value == false {
            return try translator.translate(lhs)
        }
        let left = try translator.scalar(of: lhs, "??"), right = try translator.scalar(of: rhs, "??")
        var traits = PredicateTranslator.Traits.lenient(left.traits, right.traits)
        traits.mayBeNaN = left.traits.mayBeNaN || right.traits.mayBeNaN
        traits.nullFor = left.traits.nullFor.intersection(right.traits.nullFor)
        // The right side runs only for nil, as Swift's `??` runs it.
        let sql =
            right.traits.mayFail
            ? "(CASE WHEN " + left.sql + " IS NULL THEN " + right.sql + " ELSE " + left.sql + " END)"
            : "COALESCE(" + left.sql + ", " + right.sql + ")"
        return .scalar(PredicateTranslator.Scalar(sql: sql, traits: traits))
    }
}

extension PredicateExpressions.OptionalFlatMap: SQLTranslatable {
    package func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        let wrapped = try translator.translate(self.wrapped)
        translator.bind(variable.key, to: wrapped.null(for: variable.key))
        let transformed = try translator.translate(transform)
        switch transformed {
        case .scalar(let scalar) where !scalar.traits.nullFor.contains(variable.key):
            // The transform gives a value for nil (`$0.group?.probes.count`, `$0.note.flatMap { $0 == x }`):
            // nil it must be, as Swift never runs it.
            let value = try translator.scalar(wrapped, "flatMap")
            var traits = PredicateTranslator.Traits.lenient(value.traits, scalar.traits)
            traits.mayBeNaN = scalar.traits.mayBeNaN
            traits.nullFor = value.traits.nullFor
            return .scalar(
                PredicateTranslator.Scalar(
                    sql: "(CASE WHEN " + value.sql + " IS NULL THEN NULL ELSE " + scalar.sql + " END)", traits: traits))
        case .scalar, .row, .objectID:
            return transformed
        default:
            throw translator.unsupported("an optional chain that gives a collection")
        }
    }
}

extension PredicateExpressions.ForcedUnwrap: SQLTranslatable {
    package func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        switch try translator.translate(inner) {
        case .scalar(let scalar):
            return .scalar(
                PredicateTranslator.Scalar(
                    sql: SQLFunction.unwrap(scalar.sql), traits: .init(mayFail: true, mayBeNaN: scalar.traits.mayBeNaN)))
        case .row(let row):
            let key = SQLFunction.unwrap(translator.rowKey(row.access, of: row.mapping))
            return .row(PredicateTranslator.Row(mapping: row.mapping, access: .key(key), traits: .init(mayFail: true)))
        default:
            throw translator.unsupported("! on something that is no value or object")
        }
    }
}
