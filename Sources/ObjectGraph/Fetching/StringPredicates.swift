public import Foundation

// Foundation on Apple platforms lets `#Predicate` call `caseInsensitiveCompare` and
// `localizedStandardContains`; on Linux it does not. `#Predicate` turns `a.name(b)` into
// `PredicateExpressions.build_name(a, b)`, so supplying those builders here makes the same predicates
// compile everywhere. Both translate to SQL, and evaluate in memory for unsaved objects.

/// `lhs.caseInsensitiveCompare(rhs)` in a predicate.
public struct CaseInsensitiveCompareExpression<Root: PredicateExpression, Other: PredicateExpression>: PredicateExpression
where Root.Output: StringProtocol, Other.Output: StringProtocol {
    public typealias Output = ComparisonResult
    /// The string compared.
    public let root: Root
    /// The string it is compared with.
    public let other: Other

    /// Compares the two strings, ignoring case, as Foundation's `caseInsensitiveCompare` does.
    public func evaluate(_ bindings: PredicateBindings) throws -> ComparisonResult {
        StringFunctions.caseInsensitiveCompare(String(try root.evaluate(bindings)), String(try other.evaluate(bindings)))
    }
}

/// `lhs.localizedStandardContains(rhs)` in a predicate: case-insensitive containment.
public struct CaseInsensitiveContainsExpression<Root: PredicateExpression, Other: PredicateExpression>: PredicateExpression
where Root.Output: StringProtocol, Other.Output: StringProtocol {
    public typealias Output = Bool
    /// The string searched.
    public let root: Root
    /// The string looked for.
    public let other: Other

    /// Whether `root` contains `other`, ignoring case and diacritics, as Foundation's
    /// `localizedStandardContains` does.
    public func evaluate(_ bindings: PredicateBindings) throws -> Bool {
        StringFunctions.localizedStandardContains(String(try root.evaluate(bindings)), String(try other.evaluate(bindings)))
    }
}

extension CaseInsensitiveCompareExpression: Sendable where Root: Sendable, Other: Sendable {}
extension CaseInsensitiveCompareExpression: Codable where Root: Codable, Other: Codable {}
extension CaseInsensitiveCompareExpression: StandardPredicateExpression
where Root: StandardPredicateExpression, Other: StandardPredicateExpression {}
extension CaseInsensitiveContainsExpression: Sendable where Root: Sendable, Other: Sendable {}
extension CaseInsensitiveContainsExpression: Codable where Root: Codable, Other: Codable {}
extension CaseInsensitiveContainsExpression: StandardPredicateExpression
where Root: StandardPredicateExpression, Other: StandardPredicateExpression {}

#if !canImport(Darwin)
extension PredicateExpressions {
    /// What `#Predicate` calls for `a.caseInsensitiveCompare(b)`.
    public static func build_caseInsensitiveCompare<Root, Other>(
        _ root: Root, _ other: Other
    ) -> CaseInsensitiveCompareExpression<Root, Other> {
        CaseInsensitiveCompareExpression(root: root, other: other)
    }

    /// What `#Predicate` calls for `a.localizedStandardContains(b)`.
    public static func build_localizedStandardContains<Root, Other>(
        _ root: Root, _ other: Other
    ) -> CaseInsensitiveContainsExpression<Root, Other> {
        CaseInsensitiveContainsExpression(root: root, other: other)
    }
}
#endif

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
