import Foundation
import GRDB

/// The string comparisons a predicate may make that SQLite has no exact equivalent for, as SQL
/// functions that call the very Foundation methods an in-memory evaluation calls.
///
/// SQLite's `lower()` and `LIKE` fold ASCII letters only, where Swift folds every script ("ÉCOLE"
/// and "école" are equal ignoring case in Swift, not in plain SQL), and `localizedStandardContains`
/// also ignores diacritics. A fetch answers from SQL for saved rows and from Swift for unsaved
/// objects; both must give one answer, so the SQL side calls Swift. Registered on every connection.
enum StringFunctions {
    /// The collation that orders strings as `comparator` does (in its forward order), or nil if
    /// SQLite has none: its own byte order for `.lexical` (Swift's `<` on the NFC strings that
    /// Swift writes), a collation calling Foundation for the localized comparators of Apple
    /// platforms.
    static func collation(for comparator: String.StandardComparator) -> String? {
        var forward = comparator
        forward.order = .forward
        if forward == .lexical { return "BINARY" }
        return localizedCollations.first { $0.comparator == forward }?.name
    }

    #if canImport(Darwin)
        private static let localizedCollations: [(comparator: String.StandardComparator, name: String)] = [
            (.localizedStandard, "OG_LOCALIZED_STANDARD"), (.localized, "OG_LOCALIZED")
        ]
    #else
        /// Foundation offers no localized comparator here.
        private static let localizedCollations: [(comparator: String.StandardComparator, name: String)] = []
    #endif

    static let caseInsensitiveCompareName = "OG_CASE_INSENSITIVE_COMPARE"
    static let localizedStandardContainsName = "OG_LOCALIZED_STANDARD_CONTAINS"

    /// Adds the functions to a connection. NULL in, NULL out, as SQL's own functions do.
    static func register(in db: Database) {
        db.add(
            function: DatabaseFunction(caseInsensitiveCompareName, argumentCount: 2, pure: true) { values in
                guard let lhs = String.fromDatabaseValue(values[0]), let rhs = String.fromDatabaseValue(values[1]) else { return nil }
                return StringComparisons.caseInsensitiveCompare(lhs, rhs).rawValue
            })
        db.add(
            function: DatabaseFunction(localizedStandardContainsName, argumentCount: 2, pure: true) { values in
                guard let string = String.fromDatabaseValue(values[0]), let other = String.fromDatabaseValue(values[1]) else { return nil }
                return StringComparisons.localizedStandardContains(string, other)
            })
        for (comparator, name) in localizedCollations {
            db.add(collation: DatabaseCollation(name) { lhs, rhs in comparator.compare(lhs, rhs) })
        }
    }
}
