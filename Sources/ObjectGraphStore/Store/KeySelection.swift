import GRDB
import ObjectGraphModel

/// Many rows' primary keys, arranged for the statements of a set-wise write: each run of
/// consecutive keys as a range (SQLite walks it directly; new rows and deleted subtrees are mostly
/// made of such runs), the other keys in lists short enough to bind whatever SQLite's variable
/// limit. Arranged once, used by every statement that touches the same rows.
package struct KeySelection {
    private var ranges: [ClosedRange<Int64>] = []
    /// `(?, ?, …)` with the keys as arguments, built once for every statement that uses them.
    private var lists: [SQLFragment] = []

    /// Runs shorter than this go to the lists: a range costs a statement of its own.
    private static let shortestRange = 8

    package init(_ keys: [Int64]) {
        let sorted = keys.sorted()
        var scattered: [DatabaseValue] = []
        var start = 0
        for end in sorted.indices where end == sorted.count - 1 || sorted[end + 1] != sorted[end] + 1 {
            if end - start + 1 >= Self.shortestRange {
                ranges.append(sorted[start]...sorted[end])
            } else {
                for key in sorted[start...end] { scattered.append(key.databaseValue) }
            }
            start = end + 1
        }
        var offset = 0
        while offset < scattered.count {
            let end = min(offset + SQL.inlineListLimit, scattered.count)
            lists.append(SQL.list(Array(scattered[offset..<end])))
            offset = end
        }
    }

    /// One condition per statement, selecting the keys in `column` between them.
    package func conditions(on column: String) -> [SQLFragment] {
        ranges.map { SQLFragment("\(column) BETWEEN ? AND ?", arguments: [$0.lowerBound.databaseValue, $0.upperBound.databaseValue]) }
            + lists.map { SQLFragment("\(column) IN ", $0) }
    }
}
