package import Foundation

// Sequences: the members of to-many relationships, constant collections, and text as a sequence of
// characters. A test that can fail is run on every element, as SQL runs it on every row, so that
// an element that fails makes the whole fail whatever the order of the elements.

extension PredicateExpressions.SequenceContains: CheckedPredicateExpression
where LHS: CheckedPredicateExpression, RHS: CheckedPredicateExpression {
    package func checkedEvaluate(_ bindings: PredicateBindings) throws -> Bool {
        let sequence = try sequence.checkedEvaluate(bindings)
        return TextOperations.contains(sequence, element: try element.checkedEvaluate(bindings))
    }

    package static var canFail: Bool { LHS.canFail || RHS.canFail }
}

extension PredicateExpressions.SequenceContainsWhere: CheckedPredicateExpression
where LHS: CheckedPredicateExpression, RHS: CheckedPredicateExpression {
    package func checkedEvaluate(_ bindings: PredicateBindings) throws -> Bool {
        var bindings = bindings
        var found = false
        for element in try sequence.checkedEvaluate(bindings) {
            bindings[variable] = element
            if try test.checkedEvaluate(bindings) {
                found = true
                if !RHS.canFail { break }
            }
        }
        return found
    }

    package static var canFail: Bool { LHS.canFail || RHS.canFail }
}

extension PredicateExpressions.SequenceAllSatisfy: CheckedPredicateExpression
where LHS: CheckedPredicateExpression, RHS: CheckedPredicateExpression {
    package func checkedEvaluate(_ bindings: PredicateBindings) throws -> Bool {
        var bindings = bindings
        var all = true
        for element in try sequence.checkedEvaluate(bindings) {
            bindings[variable] = element
            if try !test.checkedEvaluate(bindings) {
                all = false
                if !RHS.canFail { break }
            }
        }
        return all
    }

    package static var canFail: Bool { LHS.canFail || RHS.canFail }
}

extension PredicateExpressions.Filter: CheckedPredicateExpression
where LHS: CheckedPredicateExpression, RHS: CheckedPredicateExpression {
    package func checkedEvaluate(_ bindings: PredicateBindings) throws -> [Element] {
        var bindings = bindings
        return try sequence.checkedEvaluate(bindings).filter { element in
            bindings[variable] = element
            return try filter.checkedEvaluate(bindings)
        }
    }

    package static var canFail: Bool { LHS.canFail || RHS.canFail }
}

extension PredicateExpressions.SequenceMaximum: CheckedPredicateExpression where Elements: CheckedPredicateExpression {
    package func checkedEvaluate(_ bindings: PredicateBindings) throws -> Output {
        try elements.checkedEvaluate(bindings).max()
    }

    package static var canFail: Bool { Elements.canFail }
}

extension PredicateExpressions.SequenceMinimum: CheckedPredicateExpression where Elements: CheckedPredicateExpression {
    package func checkedEvaluate(_ bindings: PredicateBindings) throws -> Output {
        try elements.checkedEvaluate(bindings).min()
    }

    package static var canFail: Bool { Elements.canFail }
}

extension PredicateExpressions.SequenceStartsWith: CheckedPredicateExpression
where Base: CheckedPredicateExpression, Prefix: CheckedPredicateExpression {
    package func checkedEvaluate(_ bindings: PredicateBindings) throws -> Bool {
        TextOperations.starts(try base.checkedEvaluate(bindings), with: try prefix.checkedEvaluate(bindings))
    }

    package static var canFail: Bool { Base.canFail || Prefix.canFail }
}

extension PredicateExpressions.CollectionContainsCollection: CheckedPredicateExpression
where Base: CheckedPredicateExpression, Other: CheckedPredicateExpression {
    package func checkedEvaluate(_ bindings: PredicateBindings) throws -> Bool {
        TextOperations.contains(try base.checkedEvaluate(bindings), try other.checkedEvaluate(bindings))
    }

    package static var canFail: Bool { Base.canFail || Other.canFail }
}

extension PredicateExpressions.StringContainsRegex: CheckedPredicateExpression
where Subject: CheckedPredicateExpression, Regex: CheckedPredicateExpression {
    package func checkedEvaluate(_ bindings: PredicateBindings) throws -> Bool {
        let subject = try subject.checkedEvaluate(bindings), regex = try regex.checkedEvaluate(bindings)
        // A predicate's regular expression is its pattern (Foundation's `PredicateRegex` keeps no
        // more): compiled from it as SQL compiles it, so that both run the same expression.
        if let predicateRegex = regex as? PredicateExpressions.PredicateRegex {
            return TextOperations.contains(String(subject), regex: try CompiledPatterns.regex(predicateRegex.stringRepresentation))
        }
        return subject.contains(regex)
    }

    package static var canFail: Bool { Subject.canFail || Regex.canFail }
}
