import Foundation
import ObjectGraphSyncFeed
import Testing

@Suite("Feed paging: whole pushes within a count and a byte budget")
struct FeedPagingTests {
    /// An entry of push `transaction` at `position` whose fields take about `bytes`.
    static func entry(_ position: Int64, push transaction: Int64, bytes: Int = 10) -> StoredChange {
        StoredChange(
            position: position, transaction: transaction, entity: "Note", id: UUID(), version: 1, deleted: false,
            fieldsJSON: #"{"t":""# + String(repeating: "x", count: bytes) + #""}"#)
    }

    /// What a reader keeps of `entries`, read until it says stop, and whether it needs the rest of a push.
    static func read(_ entries: [StoredChange], _ paging: FeedPaging) -> (positions: [Int64], hasMore: Bool, rest: Int64?) {
        var reader = paging.reader()
        for entry in entries {
            guard reader.add(entry) else { break }
        }
        return (reader.page.map(\.position), reader.hasMore, reader.restToRead?.transaction)
    }

    @Test("Under the count and the budget, every entry is taken and nothing more follows")
    func underTheLimits() {
        let entries = [Self.entry(1, push: 1), Self.entry(2, push: 1), Self.entry(3, push: 3)]
        let page = Self.read(entries, FeedPaging(limit: 10, byteBudget: 10_000))
        #expect(page.positions == [1, 2, 3] && !page.hasMore && page.rest == nil)
    }

    @Test("Past the budget, the page ends before the push it would cut, which goes whole to the next page")
    func budgetCutsAtWholePushes() {
        let entries = (1...6).map { Self.entry($0, push: $0 <= 2 ? 1 : 3, bytes: 1_000) }
        let budget = 3 * FeedPaging.cost(of: entries[0])
        let page = Self.read(entries, FeedPaging(limit: 100, byteBudget: budget))
        #expect(page.positions == [1, 2] && page.hasMore && page.rest == nil)
    }

    @Test("A push larger than the budget, or longer than the count, is served whole, alone; the storage reads the rest of it")
    func oversizePushAlone() {
        let large = (1...5).map { Self.entry($0, push: 1, bytes: 1_000) } + [Self.entry(6, push: 6)]
        let byBytes = Self.read(large, FeedPaging(limit: 100, byteBudget: 1_500))
        #expect(byBytes.positions == [1, 2, 3, 4, 5] && byBytes.hasMore && byBytes.rest == nil, "the next push seen: nothing left")
        let firstEntryAlone = Self.read(
            [Self.entry(1, push: 1, bytes: 10_000), Self.entry(2, push: 2)], FeedPaging(limit: 100, byteBudget: 100))
        #expect(firstEntryAlone.positions == [1] && firstEntryAlone.hasMore)
        // The storage read `limit + 1` entries, all of one push: the rest of it is to read.
        let long = Self.read((1...3).map { Self.entry($0, push: 1) }, FeedPaging(limit: 2))
        #expect(long.positions == [1, 2, 3] && long.hasMore && long.rest == 1)
    }
}
