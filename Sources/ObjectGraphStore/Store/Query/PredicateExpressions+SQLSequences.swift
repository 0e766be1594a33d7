public import Foundation
package import ObjectGraphModel

// Sequences: the members of to-many relationships, constant collections, and text as characters.

extension PredicateTranslator {
    /// `value` in `values` (and nil, when `holdsNil`), for values of `type`.
    package func membership(_ value: Scalar, in values: [StoredValue], holdsNil: Bool, as type: Any.Type) -> Scalar {
        var tests: [SQLFragment] = holdsNil ? ["(" + value.sql + " IS NULL)"] : []
        if !values.isEmpty {
            if SQLValueKind(type) == .decimal || value.traits.mayBeNaN {
                // Compared as Swift compares them: `og_equal` for each value, read from one argument.
                let kind = SQLValueKind(type)?.sql ?? "0"
                tests.append(
                    "EXISTS (SELECT 1 FROM json_each(" + Self.jsonArgument(values) + ") WHERE "
                        + SQLFunction.equal(kind, value.sql, "value") + ")")
            } else if unwrappedType(type) != type {
                // nil is in no list of values: false, where `IN` would give NULL (true under `!`).
                tests.append("(" + value.sql + " IS NOT NULL AND " + value.sql + " IN " + SQL.list(values.map(\.databaseValue)) + ")")
            } else {
                tests.append("(" + value.sql + " IN " + SQL.list(values.map(\.databaseValue)) + ")")
            }
        }
        guard let first = tests.first else {
            // Nothing matches; the value is computed all the same, as Swift computes it.
            return Scalar(sql: "(CASE WHEN " + value.sql + " IS NULL THEN 0 ELSE 0 END)", traits: .lenient(value.traits))
        }
        return Scalar(sql: "(" + tests.dropFirst().reduce(first) { $0 + " OR " + $1 } + ")", traits: .lenient(value.traits))
    }

    /// Values as one JSON array argument (decimals are text, reals finite: NaN is left out).
    private static func jsonArgument(_ values: [StoredValue]) -> SQLFragment {
        let elements = values.map { value -> String in
            switch value {
            case .integer(let integer): String(integer)
            case .real(let real): real.isFinite ? "\(real)" : (real < 0 ? "-1e999" : "1e999")
            case .text(let text):
                "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
            case .null, .blob: "null"
            }
        }
        return SQLFragment("?", arguments: ["[" + elements.joined(separator: ",") + "]"].map(\.databaseValue))
    }

    /// A test on each member of `members`, `variable` standing for the member: whether one passes
    /// (or, `all`, whether all do).
    package mutating func memberTest(
        _ members: Members, _ variable: PredicateExpressions.VariableID, _ test: Any, all: Bool
    ) throws -> Scalar {
        let condition = try membersCondition(members, variable, test)
        let from = membersFrom(members)
        let traits = Traits.lenient(members.traits, condition.traits)
        guard condition.traits.mayFail || members.traits.mayFail else {
            return Scalar(
                sql: all
                    ? SQLFragment("NOT EXISTS (SELECT 1 ", from, " AND NOT ", condition.sql, ")")
                    : SQLFragment("EXISTS (SELECT 1 ", from, " AND ", condition.sql, ")"),
                traits: traits)
        }
        // A test that can fail runs on every member, as the in-memory evaluation runs it: a count
        // has no early end, where `EXISTS` stops at the first row.
        return Scalar(
            sql: all
                ? SQLFragment("((SELECT COUNT(*) ", from, " AND NOT ", condition.sql, ") = 0)")
                : SQLFragment("((SELECT COUNT(*) ", from, " AND ", condition.sql, ") > 0)"),
            traits: traits)
    }

    /// `test` with `variable` standing for a member of `members`.
    package mutating func membersCondition(_ members: Members, _ variable: PredicateExpressions.VariableID, _ test: Any) throws -> Scalar {
        bind(variable, to: .row(Row(mapping: store.mappings[members.relationship.destination], access: .alias(members.alias))))
        return try scalar(of: test, "a test of members")
    }

    /// Whether `type` is text, for the operations that are by character.
    package func requireText(_ type: Any.Type, _ operation: String) throws {
        guard SQLValueKind(type) == .text else { throw unsupported("\(operation) on \(type): it applies to text here") }
    }
}

extension PredicateExpressions.SequenceContains: SQLTranslatable {
    package func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        let elementOperand = try translator.translate(element)
        switch try translator.translate(sequence) {
        case let .constants(values, holdsNil):
            let value = try translator.scalar(elementOperand, "contains")
            return .scalar(translator.membership(value, in: values, holdsNil: holdsNil, as: RHS.Output.self))
        case .objectIDs(let ids):
            guard case let .objectID(mapping, access) = elementOperand else {
                throw translator.unsupported("contains on object IDs with an element that is not an object's ID")
            }
            let keys = ids.compactMap { translator.key(of: $0, in: mapping) }
            guard !keys.isEmpty else { return .scalar(PredicateTranslator.Scalar(sql: "0")) }
            return .scalar(PredicateTranslator.Scalar(sql: translator.keyTest(access, of: mapping, " IN " + SQL.list(keys))))
        case .members(let members):
            let member = try translator.scalar(elementOperand, "contains")
            return .scalar(
                PredicateTranslator.Scalar(
                    sql: SQLFragment("EXISTS (SELECT 1 ", translator.membersFrom(members), " AND \(members.alias).Z_PK = ") + member.sql
                        + ")",
                    traits: .lenient(members.traits, member.traits)))
        case .scalar(let text):
            // `String.contains(Character)`: by character, as `Collection.contains` of the one-character text.
            try translator.requireText(LHS.Output.self, "contains")
            let character = try translator.scalar(elementOperand, "contains")
            return .scalar(
                PredicateTranslator.Scalar(
                    sql: SQLFunction.contains(text.sql, character.sql), traits: .strict(text.traits, character.traits)))
        default:
            throw translator.unsupported("contains on \(LHS.Output.self)")
        }
    }
}

/// `contains(where:)` and `allSatisfy` over a to-many relationship's members.
private func memberTest(
    _ sequence: Any, _ variable: PredicateExpressions.VariableID, _ test: Any, all: Bool,
    _ translator: inout PredicateTranslator
) throws -> PredicateTranslator.Operand {
    guard case .members(let members) = try translator.translate(sequence) else {
        throw translator.unsupported("contains(where:) or allSatisfy on something other than a to-many relationship")
    }
    return .scalar(try translator.memberTest(members, variable, test, all: all))
}

extension PredicateExpressions.SequenceContainsWhere: SQLTranslatable {
    package func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        try memberTest(sequence, variable.key, test, all: false, &translator)
    }
}

extension PredicateExpressions.SequenceAllSatisfy: SQLTranslatable {
    package func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        try memberTest(sequence, variable.key, test, all: true, &translator)
    }
}

extension PredicateExpressions.Filter: SQLTranslatable {
    package func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        guard case .members(var members) = try translator.translate(sequence) else {
            throw translator.unsupported("filter on something other than a to-many relationship")
        }
        let condition = try translator.membersCondition(members, variable.key, filter)
        members.conditions.append(condition.sql)
        members.traits.mayFail = members.traits.mayFail || condition.traits.mayFail
        return .members(members)
    }
}

extension PredicateExpressions.SequenceStartsWith: SQLTranslatable {
    package func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        try translator.requireText(Base.Output.self, "starts(with:)")
        return try translator.textFunction(.startsWith, base, prefix, "starts(with:)")
    }
}

extension PredicateExpressions.CollectionContainsCollection: SQLTranslatable {
    package func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        try translator.requireText(Base.Output.self, "contains")
        return try translator.textFunction(.contains, base, other, "contains")
    }
}

extension PredicateExpressions.StringContainsRegex: SQLTranslatable {
    package func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        guard regex is PredicateExpressions.Value<PredicateExpressions.PredicateRegex> else {
            throw translator.unsupported("a regular expression that is not a constant of the predicate")
        }
        let text = try translator.scalar(of: subject, "contains"), pattern = try translator.scalar(of: regex, "contains")
        return .scalar(PredicateTranslator.Scalar(sql: SQLFunction.regexContains(text.sql, pattern.sql), traits: .strict(text.traits)))
    }
}

/// `max()` (or `min()`) over a to-many relationship: the member that comes last (or first) in the
/// order of an entity that is ``OrderedByAttribute``, ties in the store's order, as Swift's
/// `max()` finds it with that entity's `<`.
private func extremeMember(_ elements: Any, greatest: Bool, _ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
    let name = greatest ? "max()" : "min()"
    guard case .members(let members) = try translator.translate(elements) else {
        throw translator.unsupported("\(name) on something other than a to-many relationship")
    }
    let destination = translator.store.mappings[members.relationship.destination]
    guard let ordered = destination.declaration.type as? any OrderedByAttribute.Type,
        let index = destination.declaration.propertyIndex(for: ordered.orderingKeyPath),
        case .attribute(let slot) = destination.declaration.layout.slots[index]
    else {
        throw translator.unsupported(
            "\(name) over \(destination.name) objects, which compare with their own <, code SQL cannot run: adopt OrderedByAttribute")
    }
    translator.read(index, of: destination)
    let direction = greatest ? " DESC" : " ASC"
    let collation = destination.description.attributes[slot].type == .decimal ? " COLLATE \(SQLCollation.decimal)" : ""
    let alias = members.alias
    let key =
        SQLFragment("(SELECT \(alias).Z_PK ", translator.membersFrom(members), "")
        + SQLFragment(
            " ORDER BY \(destination.valueSQL(ofSlot: slot, column: "\(alias).\(destination.quotedAttributeColumns[slot])"))"
                + "\(collation)\(direction), \(alias).Z_PK\(direction) LIMIT 1)")
    return .row(PredicateTranslator.Row(mapping: destination, access: .key(key), traits: .lenient(members.traits)))
}

extension PredicateExpressions.SequenceMaximum: SQLTranslatable {
    package func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        try extremeMember(elements, greatest: true, &translator)
    }
}

extension PredicateExpressions.SequenceMinimum: SQLTranslatable {
    package func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        try extremeMember(elements, greatest: false, &translator)
    }
}
