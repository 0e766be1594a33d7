import GRDB

/// A piece of SQL with its arguments, kept in order. A string literal is a fragment without arguments.
struct SQLFragment: ExpressibleByStringLiteral {
    var sql: String
    var arguments: [DatabaseValue]

    init(_ sql: String, arguments: [DatabaseValue] = []) {
        self.sql = sql
        self.arguments = arguments
    }

    init(stringLiteral value: String) {
        self.init(value)
    }

    static func + (lhs: SQLFragment, rhs: SQLFragment) -> SQLFragment {
        SQLFragment(lhs.sql + rhs.sql, arguments: lhs.arguments + rhs.arguments)
    }

    /// `a` + `b` + `c`, arguments in order.
    init(_ a: String, _ b: SQLFragment, _ c: String = "") {
        self.init(a + b.sql + c, arguments: b.arguments)
    }

    /// `a` + `b` + `c` + `d` + `e`, arguments in order.
    init(_ a: String, _ b: SQLFragment, _ c: String, _ d: SQLFragment, _ e: String = "") {
        self.init(a + b.sql + c + d.sql + e, arguments: b.arguments + d.arguments)
    }
}
