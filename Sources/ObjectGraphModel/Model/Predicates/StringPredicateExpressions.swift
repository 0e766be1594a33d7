public import Foundation

// Foundation on Apple platforms lets `#Predicate` call `caseInsensitiveCompare` and
// `localizedStandardContains`; on Linux it does not. `#Predicate` turns `a.name(b)` into
// `PredicateExpressions.build_name(a, b)`, so supplying those builders here makes the same predicates
// compile everywhere. Both translate to SQL (`Store/Query/StringPredicates+SQL.swift`), and
// evaluate in memory for unsaved objects, through the same Foundation methods.

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
        TextOperations.caseInsensitiveCompare(String(try root.evaluate(bindings)), String(try other.evaluate(bindings)))
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
        TextOperations.localizedStandardContains(String(try root.evaluate(bindings)), String(try other.evaluate(bindings)))
    }
}

extension CaseInsensitiveCompareExpression: CheckedPredicateExpression
where Root: CheckedPredicateExpression, Other: CheckedPredicateExpression {
    package func checkedEvaluate(_ bindings: PredicateBindings) throws -> ComparisonResult {
        TextOperations.caseInsensitiveCompare(String(try root.checkedEvaluate(bindings)), String(try other.checkedEvaluate(bindings)))
    }

    package static var canFail: Bool { Root.canFail || Other.canFail }
}

extension CaseInsensitiveContainsExpression: CheckedPredicateExpression
where Root: CheckedPredicateExpression, Other: CheckedPredicateExpression {
    package func checkedEvaluate(_ bindings: PredicateBindings) throws -> Bool {
        TextOperations.localizedStandardContains(String(try root.checkedEvaluate(bindings)), String(try other.checkedEvaluate(bindings)))
    }

    package static var canFail: Bool { Root.canFail || Other.canFail }
}

#if canImport(Darwin)
    extension PredicateExpressions.StringCaseInsensitiveCompare: CheckedPredicateExpression
    where Root: CheckedPredicateExpression, Other: CheckedPredicateExpression {
        package func checkedEvaluate(_ bindings: PredicateBindings) throws -> ComparisonResult {
            TextOperations.caseInsensitiveCompare(String(try root.checkedEvaluate(bindings)), String(try other.checkedEvaluate(bindings)))
        }

        package static var canFail: Bool { Root.canFail || Other.canFail }
    }

    extension PredicateExpressions.StringLocalizedStandardContains: CheckedPredicateExpression
    where Root: CheckedPredicateExpression, Other: CheckedPredicateExpression {
        package func checkedEvaluate(_ bindings: PredicateBindings) throws -> Bool {
            TextOperations.localizedStandardContains(
                String(try root.checkedEvaluate(bindings)), String(try other.checkedEvaluate(bindings)))
        }

        package static var canFail: Bool { Root.canFail || Other.canFail }
    }
#endif

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
