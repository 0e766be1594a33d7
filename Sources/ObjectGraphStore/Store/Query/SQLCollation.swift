package import Foundation
package import GRDB
import ObjectGraphModel

/// The collations ObjectGraph adds to every connection, for sorts SQLite's byte order would get
/// wrong: decimals in their numeric order, and on Apple platforms the localized string orders.
package enum SQLCollation {
    /// Orders the text of `Decimal` values as `Decimal`'s `<` does: `"12345678901234567890.4"`
    /// before `"12345678901234567890.5"`, which a sort by their `Double`s (the same number) does not
    /// tell apart.
    package static let decimal = "OG_DECIMAL"

    /// The collation that orders strings as `comparator` does (in its forward order), or nil if
    /// SQLite has none: its own byte order for `.lexical` (Swift's `<`, on the NFC text ObjectGraph
    /// stores), a collation calling Foundation for the localized comparators of Apple platforms.
    package static func collation(for comparator: String.StandardComparator) -> String? {
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

    package static func register(in db: Database) {
        db.add(collation: DatabaseCollation(decimal, function: compareDecimals))
        for (comparator, name) in localizedCollations {
            db.add(collation: DatabaseCollation(name) { lhs, rhs in comparator.compare(lhs, rhs) })
        }
    }

    /// Text that is no decimal (written by another program) sorts after every decimal, by its bytes:
    /// a collation cannot fail, and its order must be total.
    private static func compareDecimals(_ lhs: String, _ rhs: String) -> ComparisonResult {
        switch (Decimal(storedValue: .text(lhs)), Decimal(storedValue: .text(rhs))) {
        case let (lhs?, rhs?): lhs < rhs ? .orderedAscending : rhs < lhs ? .orderedDescending : .orderedSame
        case (.some, nil): .orderedAscending
        case (nil, .some): .orderedDescending
        case (nil, nil): lhs < rhs ? .orderedAscending : lhs == rhs ? .orderedSame : .orderedDescending
        }
    }
}
