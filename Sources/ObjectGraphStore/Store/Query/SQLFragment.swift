package import GRDB
import ObjectGraphModel

/// A piece of SQL with its arguments, kept in order. A string literal is a fragment without arguments.
package struct SQLFragment: ExpressibleByStringLiteral {
    package var sql: String
    package var arguments: [DatabaseValue]

    package init(_ sql: String, arguments: [DatabaseValue] = []) {
        self.sql = sql
        self.arguments = arguments
    }

    package init(stringLiteral value: String) {
        self.init(value)
    }

    package static func + (lhs: SQLFragment, rhs: SQLFragment) -> SQLFragment {
        SQLFragment(lhs.sql + rhs.sql, arguments: lhs.arguments + rhs.arguments)
    }

    /// `a` + `b` + `c`, arguments in order.
    package init(_ a: String, _ b: SQLFragment, _ c: String = "") {
        self.init(a + b.sql + c, arguments: b.arguments)
    }

    /// `a` + `b` + `c` + `d` + `e`, arguments in order.
    package init(_ a: String, _ b: SQLFragment, _ c: String, _ d: SQLFragment, _ e: String = "") {
        self.init(a + b.sql + c + d.sql + e, arguments: b.arguments + d.arguments)
    }
}
