import Foundation

/// Regular expressions compiled from their patterns, each once per process: a predicate's pattern
/// is compiled for every evaluation otherwise.
package enum CompiledPatterns {
    /// A compiled expression, shared across threads: `Regex` is `Sendable` only where its output is.
    private struct Compiled: @unchecked Sendable {
        package let regex: Regex<AnyRegexOutput>
    }

    /// Bounded by the distinct patterns of the predicates a program evaluates.
    private static let compiled = Locked<[String: Compiled]>([:])

    /// The expression of `pattern`.
    ///
    /// - Throws: ``PredicateFailure/unexpectedValue(_:)`` for a pattern that does not compile.
    package static func regex(_ pattern: String) throws -> Regex<AnyRegexOutput> {
        if let known = compiled.withLock({ $0[pattern] }) { return known.regex }
        let regex: Regex<AnyRegexOutput>
        do {
            regex = try Regex(pattern)
        } catch {
            throw PredicateFailure.unexpectedValue("the pattern \(pattern) does not compile: \(error)")
        }
        compiled.withLock { $0[pattern] = Compiled(regex: regex) }
        return regex
    }
}
