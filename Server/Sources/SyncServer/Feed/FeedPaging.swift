/// Cuts the entries after a cursor into a page that holds whole transactions only.
///
/// A storage reads up to `limit + 1` entries after the cursor and hands them here. When the page
/// would end inside a push, the push's tail is dropped; when that push alone is longer than the
/// limit, the storage reads the rest of it so the page holds it whole. Either way a client that
/// applies each page atomically never shows half of a server transaction.
struct FeedPaging {
    var limit: Int

    enum Cut {
        /// The page, and whether more entries follow it.
        case page([StoredChange], hasMore: Bool)
        /// One transaction is longer than the page: append its entries after `after` to `page`.
        case readRest(page: [StoredChange], transaction: Int64, after: Int64)
    }

    func cut(_ entries: [StoredChange]) -> Cut {
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
