/// Cuts the entries after a cursor into a page that holds whole transactions only.
///
/// A storage reads up to `limit + 1` entries after the cursor and hands them here. When the page
/// would end inside a push, the push's tail is dropped; when that push alone is longer than the
/// limit, the storage reads the rest of it so the page holds it whole. Either way a client that
/// applies each page atomically never shows half of a server transaction.
public struct FeedPaging: Sendable {
    /// The most changes a page holds, unless one push alone is longer.
    public var limit: Int

    /// Paging by `limit` changes.
    public init(limit: Int) { self.limit = limit }

    /// The page size a client's `limit` comes to: at most the server's `maximum`; a limit below 1
    /// is refused.
    public static func limit(asked limit: Int, maximum: Int) throws(SyncRefusal) -> Int {
        guard limit >= 1 else { throw .badRequest("limit=\(limit) is not a positive whole number.") }
        return min(limit, maximum)
    }

    /// What to do with the entries read after a cursor.
    public enum Cut: Sendable, Equatable {
        /// The page, and whether more entries follow it.
        case page([StoredChange], hasMore: Bool)
        /// One transaction is longer than the page: append its entries after `after` to `page`.
        case readRest(page: [StoredChange], transaction: Int64, after: Int64)
    }

    /// Cuts `entries`, read in the order of their positions, `limit + 1` at most.
    public func cut(_ entries: [StoredChange]) -> Cut {
        guard entries.count > limit, let last = entries.last else { return .page(entries, hasMore: false) }
        var page = Array(entries.prefix(limit))
        let tail = page[page.count - 1]
        guard tail.transaction == last.transaction else { return .page(page, hasMore: true) }
        if let boundary = page.lastIndex(where: { $0.transaction != last.transaction }) {
            page.removeSubrange((boundary + 1)...)
            return .page(page, hasMore: true)
        }
        return .readRest(page: page, transaction: tail.transaction, after: tail.position)
    }
}
