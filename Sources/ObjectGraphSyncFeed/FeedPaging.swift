/// Cuts the entries after a cursor into a page that holds whole transactions only, within a
/// count and a byte budget.
///
/// A storage reads up to `limit + 1` entries after the cursor, in the order of their positions,
/// and hands them one by one to a ``Reader``, stopping when it says the page is complete: an
/// entry past the count or the budget ends the page before its push (the push's entries already
/// taken are put back), so that a client that applies each page atomically never shows half of a
/// server transaction. A push that alone is past the count or the budget is served whole, alone:
/// the storage then reads the rest of it (``Reader/restToRead``). The budget bounds the memory a
/// read takes, whatever the size of the zone's records.
public struct FeedPaging: Sendable {
    /// The most changes a page holds, unless one push alone is longer.
    public var limit: Int
    /// The most bytes of records' fields a page holds, unless one push alone is larger.
    public var byteBudget: Int

    /// Paging by `limit` changes and `byteBudget` bytes.
    public init(limit: Int, byteBudget: Int = .max) {
        self.limit = limit
        self.byteBudget = byteBudget
    }

    /// The page size a client's `limit` comes to: at most the server's `maximum`; a limit below 1
    /// is refused.
    public static func limit(asked limit: Int, maximum: Int) throws(SyncRefusal) -> Int {
        guard limit >= 1 else { throw .badRequest("limit=\(limit) is not a positive whole number.") }
        return min(limit, maximum)
    }

    /// What an entry costs of the budget: its fields as stored, and what a change carries besides.
    public static func cost(of change: StoredChange) -> Int {
        change.fieldsJSON.utf8.count + change.entity.utf8.count + 128
    }

    /// A reader of one page.
    public func reader() -> Reader { Reader(limit: limit, budget: byteBudget) }

    /// A page being read, entry after entry in the order of their positions.
    public struct Reader: Sendable {
        /// The page so far.
        public private(set) var page: [StoredChange] = []
        /// Whether entries follow the page (the client reads again from its end).
        public private(set) var hasMore = false
        private let limit: Int
        private let budget: Int
        private var bytes = 0
        /// The push read whole because it alone is past the limits.
        private var wholeTransaction: Int64?
        /// Whether an entry after the whole push was seen (nothing of it is left to read).
        private var isComplete = false

        init(limit: Int, budget: Int) {
            self.limit = limit
            self.budget = budget
        }

        /// Takes the next entry; false when the page is complete (stop reading; the entry is not
        /// in it).
        public mutating func add(_ change: StoredChange) -> Bool {
            guard !isComplete else { return false }
            let cost = FeedPaging.cost(of: change)
            if let whole = wholeTransaction {
                guard change.transaction == whole else { return stop() }
                append(change, cost)
                return true
            }
            guard let last = page.last, page.count >= limit || bytes + cost > budget else {
                append(change, cost)  // within the limits, or the page's first entry
                return true
            }
            guard change.transaction == last.transaction else { return stop() }
            if page[0].transaction == last.transaction {
                // The page is this one push so far: it is read whole, alone.
                wholeTransaction = last.transaction
                hasMore = true
                append(change, cost)
                return true
            }
            // The page would end inside this push: it goes to the next page, whole.
            page.removeAll { $0.transaction == last.transaction }
            return stop()
        }

        /// The push to read the rest of (its entries after `after`), when the page is one push
        /// longer than the storage's first read held; nil when nothing is left to read.
        public var restToRead: (transaction: Int64, after: Int64)? {
            guard let whole = wholeTransaction, !isComplete, let last = page.last else { return nil }
            return (whole, last.position)
        }

        private mutating func append(_ change: StoredChange, _ cost: Int) {
            page.append(change)
            bytes += cost
        }

        private mutating func stop() -> Bool {
            isComplete = true
            hasMore = true
            return false
        }
    }
}
