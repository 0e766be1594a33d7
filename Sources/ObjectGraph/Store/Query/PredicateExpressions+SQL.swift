public import Foundation

/// A `#Predicate` expression that has an SQL translation.
protocol SQLTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand
}

extension PredicateExpressions.Variable: SQLTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        try translator.operand(for: key)
    }
}

extension PredicateExpressions.KeyPath: SQLTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        try translator.member(keyPath, of: translator.translate(root))
    }
}

extension PredicateExpressions.Value: SQLTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        try translator.constant(value)
    }
}

extension PredicateExpressions.NilLiteral: SQLTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        .scalar(SQLFragment("NULL"), nil)
    }
}

/// Swift's `==` treats two nils as equal, so equality is SQL's null-safe `IS`.
private func equality(_ lhs: Any, _ rhs: Any, _ op: String, _ t: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
    let left = try t.translate(lhs), right = try t.translate(rhs)
    if let condition = try t.objectIDEquality(left, right, negated: op == "IS NOT") { return condition }
    let l = try t.scalar(left, "a comparison"), r = try t.scalar(right, "a comparison")
    return .scalar(SQLFragment("(", l, " \(op) ", r, ")"), .bool)
}

extension PredicateExpressions.Equal: SQLTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        try equality(lhs, rhs, "IS", &translator)
    }
}

extension PredicateExpressions.NotEqual: SQLTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        try equality(lhs, rhs, "IS NOT", &translator)
    }
}

extension PredicateExpressions.Comparison: SQLTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        let left = try translator.translate(lhs), right = try translator.translate(rhs)
        var l = try translator.scalar(left, "a comparison"), r = try translator.scalar(right, "a comparison")
        // Decimals are stored as text, which does not order numerically.
        if translator.attributeType(of: left) == .decimal || translator.attributeType(of: right) == .decimal {
            l = SQLFragment("CAST(", l, " AS REAL)")
            r = SQLFragment("CAST(", r, " AS REAL)")
        }
        let symbol =
            switch op {
            case .lessThan: "<"
            case .lessThanOrEqual: "<="
            case .greaterThan: ">"
            case .greaterThanOrEqual: ">="
            }
        return .scalar(SQLFragment("(", l, " \(symbol) ", r, ")"), .bool)
    }
}

/// `AND` and `OR` pass the filter position on: with NULL for `false` in an operand, their result
/// is NULL where it would be `false`, and the same otherwise.
private func logical(_ lhs: Any, _ rhs: Any, _ op: String, _ t: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
    let onlyFilters = t.nodeOnlyFilters
    let l = try t.scalar(t.translate(lhs, onlyFilters: onlyFilters), op)
    let r = try t.scalar(t.translate(rhs, onlyFilters: onlyFilters), op)
    return .scalar(SQLFragment("(", l, " \(op) ", r, ")"), .bool)
}

extension PredicateExpressions.Conjunction: SQLTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        try logical(lhs, rhs, "AND", &translator)
    }
}

extension PredicateExpressions.Disjunction: SQLTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        try logical(lhs, rhs, "OR", &translator)
    }
}

extension PredicateExpressions.Negation: SQLTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        let inner = try translator.scalar(translator.translate(wrapped), "!")
        return .scalar(SQLFragment("(NOT ", inner, ")"), .bool)
    }
}

extension PredicateExpressions.Arithmetic: SQLTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        let left = try translator.translate(lhs)
        let l = try translator.scalar(left, "arithmetic"), r = try translator.scalar(translator.translate(rhs), "arithmetic")
        let symbol =
            switch op {
            case .add: "+"
            case .subtract: "-"
            case .multiply: "*"
            }
        return .scalar(SQLFragment("(", l, " \(symbol) ", r, ")"), translator.attributeType(of: left))
    }
}

extension PredicateExpressions.UnaryMinus: SQLTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        let inner = try translator.translate(wrapped)
        return .scalar(SQLFragment("(-", try translator.scalar(inner, "-"), ")"), translator.attributeType(of: inner))
    }
}

extension PredicateExpressions.NilCoalesce: SQLTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        // `optional.flatMap { $0 < cutoff } ?? false` as a filter: NULL already excludes the row,
        // and `COALESCE` would hide the comparison from the column's index.
        if translator.nodeOnlyFilters, (rhs as? PredicateExpressions.Value<Bool>)?.value == false {
            return try translator.translate(lhs)
        }
        let left = try translator.translate(lhs)
        let l = try translator.scalar(left, "??"), r = try translator.scalar(translator.translate(rhs), "??")
        return .scalar(SQLFragment("COALESCE(", l, ", ", r, ")"), translator.attributeType(of: left))
    }
}

extension PredicateExpressions.OptionalFlatMap: SQLTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        translator.bind(variable.key, to: try translator.translate(wrapped))
        return try translator.translate(transform)
    }
}

extension PredicateExpressions.ForcedUnwrap: SQLTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        try translator.translate(inner)
    }
}

extension PredicateExpressions.Conditional: SQLTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        let condition = try translator.scalar(translator.translate(test), "a condition")
        let whenTrue = try translator.translate(trueBranch)
        let yes = try translator.scalar(whenTrue, "a condition"),
            no = try translator.scalar(translator.translate(falseBranch), "a condition")
        return .scalar("(CASE WHEN " + condition + " THEN " + yes + " ELSE " + no + " END)", translator.attributeType(of: whenTrue))
    }
}

extension PredicateExpressions.SequenceContains: SQLTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        let elementOperand = try translator.translate(element)
        switch try translator.translate(sequence) {
        case .constants(let values):
            let value = try translator.scalar(elementOperand, "contains")
            guard !values.isEmpty else { return .scalar(SQLFragment("0"), .bool) }
            return .scalar("(" + value + " IN " + SQL.list(values.map(\.databaseValue)) + ")", .bool)
        case .objectIDs(let ids):
            guard case let .objectID(mapping, access) = elementOperand else {
                throw translator.unsupported("contains on object IDs with an element that is not an object's ID")
            }
            let keys = ids.compactMap { translator.key(of: $0, in: mapping) }
            guard !keys.isEmpty else { return .scalar(SQLFragment("0"), .bool) }
            return .scalar(translator.keyTest(access, of: mapping, " IN " + SQL.list(keys)), .bool)
        case .objectID:
            throw translator.unsupported("contains on an object ID")
        case let .toMany(relationship, owner):
            let alias = translator.newAlias()
            let member = try translator.scalar(elementOperand, "contains")
            let from = translator.membersFrom(relationship, owner: owner, alias: alias)
            return .scalar(SQLFragment("EXISTS (SELECT 1 ", from, " AND \(alias).Z_PK = ", member, ")"), .bool)
        case .scalar(let string, _):
            // `String.contains(Character)`
            let value = try translator.scalar(elementOperand, "contains")
            return .scalar(SQLFragment("(instr(", string, ", ", value, ") > 0)"), .bool)
        case .row:
            throw translator.unsupported("contains on a to-one relationship")
        }
    }
}

/// `EXISTS` (or, for `allSatisfy`, `NOT EXISTS … NOT`) over a to-many relationship's members.
private func memberTest(
    _ sequence: Any, _ variable: PredicateExpressions.VariableID, _ test: Any, all: Bool,
    _ translator: inout PredicateTranslator
) throws -> PredicateTranslator.Operand {
    guard case let .toMany(relationship, owner) = try translator.translate(sequence) else {
        throw translator.unsupported("contains(where:) or allSatisfy on something other than a to-many relationship")
    }
    let alias = translator.newAlias()
    translator.bind(variable, to: .row(translator.store.mappings[relationship.destination], .alias(alias)))
    let condition = try translator.scalar(translator.translate(test), "contains(where:)")
    let from = translator.membersFrom(relationship, owner: owner, alias: alias)
    return all
        ? .scalar(SQLFragment("NOT EXISTS (SELECT 1 ", from, " AND NOT ", condition, ")"), .bool)
        : .scalar(SQLFragment("EXISTS (SELECT 1 ", from, " AND ", condition, ")"), .bool)
}

extension PredicateExpressions.SequenceContainsWhere: SQLTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        try memberTest(sequence, variable.key, test, all: false, &translator)
    }
}

extension PredicateExpressions.SequenceAllSatisfy: SQLTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        try memberTest(sequence, variable.key, test, all: true, &translator)
    }
}

extension PredicateExpressions.SequenceStartsWith: SQLTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        let string = try translator.scalar(translator.translate(base), "starts(with:)")
        let prefix = try translator.scalar(translator.translate(self.prefix), "starts(with:)")
        return .scalar("(substr(" + string + ", 1, length(" + prefix + ")) = " + prefix + ")", .bool)
    }
}

extension PredicateExpressions.CollectionContainsCollection: SQLTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        let string = try translator.scalar(translator.translate(base), "contains")
        let other = try translator.scalar(translator.translate(self.other), "contains")
        return .scalar(SQLFragment("(instr(", string, ", ", other, ") > 0)"), .bool)
    }
}
