package import Foundation

/// What predicates do with text, as Swift does it: by `Character`, with canonically equivalent
/// characters equal (`"e\u{301}"` is one character, equal to `"\u{E9}"`).
///
/// SQLite's own `instr`, `substr` and `length` work on code points and stop at a NUL, and its
/// `lower()` folds ASCII only; each operation here has an SQL function that calls it (see
/// `Store/Query/SQLFunctions.swift`), and the in-memory evaluation calls it too. Each calls what
/// Foundation's `PredicateExpressions` call, through a generic function with the same constraints,
/// so that the same overload runs (`String.contains` from Foundation differs: it finds "👨" in a
/// family emoji, which `Collection.contains` does not).
package enum TextOperations {
    /// `base.contains(other)`: whether `other`'s characters appear in `base` in a row
    /// (`PredicateExpressions.CollectionContainsCollection`).
    package static func contains<Base: Collection, Other: Collection>(_ base: Base, _ other: Other) -> Bool
    where Base.Element == Other.Element, Base.Element: Equatable {
        base.contains(other)
    }

    /// `base.contains(element)` (`PredicateExpressions.SequenceContains`).
    package static func contains<Base: Sequence>(_ base: Base, element: Base.Element) -> Bool where Base.Element: Equatable {
        base.contains(element)
    }

    /// `base.starts(with: prefix)`, character by character (`PredicateExpressions.SequenceStartsWith`).
    package static func starts<Base: Sequence, Prefix: Sequence>(_ base: Base, with prefix: Prefix) -> Bool
    where Base.Element == Prefix.Element, Base.Element: Equatable {
        base.starts(with: prefix)
    }

    /// The number of characters.
    package static func count(_ text: String) -> Int {
        text.count
    }

    /// `caseInsensitiveCompare`.
    package static func caseInsensitiveCompare(_ lhs: String, _ rhs: String) -> ComparisonResult {
        lhs.caseInsensitiveCompare(rhs)
    }

    /// `localizedStandardContains`: containment ignoring case and diacritics.
    package static func localizedStandardContains(_ string: String, _ other: String) -> Bool {
        string.localizedStandardContains(other)
    }

    /// `subject.contains(regex)` (`PredicateExpressions.StringContainsRegex`).
    package static func contains(_ subject: String, regex: Regex<AnyRegexOutput>) -> Bool {
        subject.contains(regex)
    }
}
