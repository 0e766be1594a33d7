public import Foundation
import ObjectGraphModel

// Ranges: `(lower...upper).contains(x)`, `(lower..<upper).contains(x)`, and a constant range of
// any of Swift's kinds (`thisWeek.contains($0.date)` with `let thisWeek = monday...`), compared as
// Swift compares their bounds. A range built from bounds out of order fails, where Swift's `...`
// traps.

/// A range built from two operands, with the check that its bounds are in order; made of two
/// constants in order (`(3...5).contains($0.number)`), compared as a constant range.
private func range<Bound: Comparable>(
    _ lower: Any, _ upper: Any, of _: Bound.Type, includesUpper: Bool, _ translator: inout PredicateTranslator
) throws -> PredicateTranslator.Operand {
    let low = try translator.scalar(of: lower, "a range"), high = try translator.scalar(of: upper, "a range")
    // Two constants in order need no check (bounds out of order fail only where the range is
    // evaluated: `false && (5...3).contains(x)` is false).
    if let lower = (lower as? PredicateExpressions.Value<Bound>)?.value, let upper = (upper as? PredicateExpressions.Value<Bound>)?.value,
        lower <= upper
    {
        return .range(lower: low, upper: high, includesUpper: includesUpper, check: nil)
    }
    guard let kind = SQLValueKind(Bound.self) else { throw translator.unsupported("a range of \(Bound.self)") }
    let check = PredicateTranslator.Scalar(
        sql: SQLFunction.checkRange(kind.sql, low.sql, high.sql), traits: .init(mayFail: true))
    return .range(lower: low, upper: high, includesUpper: includesUpper, check: check)
}

extension PredicateExpressions.ClosedRange: SQLTranslatable {
    package func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        try range(lower, upper, of: LHS.Output.self, includesUpper: true, &translator)
    }
}

extension PredicateExpressions.Range: SQLTranslatable {
    package func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        try range(lower, upper, of: LHS.Output.self, includesUpper: false, &translator)
    }
}

extension PredicateExpressions.RangeExpressionContains: SQLTranslatable {
    package func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        guard case let .range(lower, upper, includesUpper, check) = try translator.translate(range) else {
            throw translator.unsupported("contains on a range that is neither a constant nor built with ... or ..<")
        }
        let value = try translator.scalar(of: element, "contains")
        var tests: [PredicateTranslator.Scalar] = []
        if let lower { tests.append(translator.compare(lower, .lessThanOrEqual, value, as: Element.Output.self)) }
        if let upper {
            tests.append(translator.compare(value, includesUpper ? .lessThanOrEqual : .lessThan, upper, as: Element.Output.self))
        }
        guard var test = tests.first else { throw translator.unsupported("a range without bounds") }
        for other in tests.dropFirst() { test = translator.logical(test, and: true, other) }
        guard let check else { return .scalar(test) }
        // The bounds are checked before the element is looked at, as Swift makes the range first.
        return .scalar(
            PredicateTranslator.Scalar(
                sql: "(CASE WHEN " + check.sql + " THEN " + test.sql + " END)", traits: .lenient(check.traits, test.traits)))
    }
}
