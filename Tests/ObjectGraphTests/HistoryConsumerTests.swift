import Foundation
import MoodyModel
import ObjectGraph
import Testing

/// A purge of the history never passes what a registered reader has not read, and a reader that
/// did not register learns of a purge instead of missing transactions (issue 44, point 4).
@Suite("History consumers: a purge never loses what a reader has not read")
struct HistoryConsumerTests {
    /// A container with `count` transactions of one mood each; their tokens.
    static func containerWithTransactions(_ count: Int) throws -> (ObjectContainer, ObjectContext, [HistoryToken]) {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        for index in 0..<count {
            context.insert(Mood(text: "mood \(index)"))
            try context.save()
        }
        return (container, context, try container.fetchHistory().map(\.token))
    }

    @Test("A purge through a token past a registered consumer is refused, naming the consumer, and purges nothing")
    func purgeByTokenIsRefused() throws {
        let (container, _, tokens) = try Self.containerWithTransactions(4)
        try container.setHistoryPosition(tokens[1], ofConsumer: "exporter")
        do {
            try container.purgeHistory(through: tokens[3])
            Issue.record("the purge passed the consumer")
        } catch let error as ObjectGraphError {
            #expect(error.code == .historyInUse && error.historyConsumer == "exporter")
            #expect(error.description.contains("exporter") && error.description.contains("\(tokens[1].sequence)"))
        }
        #expect(try container.fetchHistory().map(\.token) == tokens, "nothing purged")
        #expect(try container.purgeHistory(through: tokens[1]) == 2, "up to the consumer's position, it purges")
    }

    @Test("A purge by date stops at the consumer furthest behind; one that read nothing keeps everything")
    func purgeByDateStopsAtTheOldestConsumer() throws {
        let (container, _, tokens) = try Self.containerWithTransactions(4)
        try container.setHistoryPosition(tokens[2], ofConsumer: "fast")
        try container.setHistoryPosition(tokens[0], ofConsumer: "slow")
        #expect(try container.historyConsumers().map(\.name) == ["slow", "fast"], "furthest behind first")
        #expect(try container.historyConsumers().map(\.position) == [tokens[0], tokens[2]])
        #expect(try container.purgeHistory(before: Date.distantFuture) == 1)
        #expect(try container.fetchHistory().map(\.token) == Array(tokens.dropFirst()))

        try container.setHistoryPosition(nil, ofConsumer: "slow")
        #expect(try container.purgeHistory(before: Date.distantFuture) == 0)
        try container.removeHistoryConsumer(named: "slow")
        #expect(try container.purgeHistory(before: Date.distantFuture) == 2, "up to the remaining consumer")
        #expect(try container.fetchHistory().map(\.token) == [tokens[3]])
    }

    @Test("Reading after a token whose next transactions were purged throws historyExpired, never an empty or partial answer")
    func readingPastAPurgeIsAnError() throws {
        let (container, _, tokens) = try Self.containerWithTransactions(3)
        try container.purgeHistory(through: tokens[1])
        #expect(throws: ObjectGraphError.self) { try container.fetchHistory(HistoryRequest(after: tokens[0])) }
        do {
            _ = try container.fetchHistory(HistoryRequest(after: tokens[0]))
        } catch let error as ObjectGraphError {
            #expect(error.code == .historyExpired && error.description.contains("\(tokens[1].sequence)"))
        }
        #expect(try container.fetchHistory(HistoryRequest(after: tokens[1])).map(\.token) == [tokens[2]])
        #expect(try container.fetchHistory().map(\.token) == [tokens[2]], "without a token, what there is")
    }

    @Test("Purged to its end, the history still knows its last token, and a reader after an earlier one is told")
    func lastTokenSurvivesAFullPurge() throws {
        let (container, context, tokens) = try Self.containerWithTransactions(2)
        try container.purgeHistory(through: tokens[1])
        #expect(try container.lastHistoryToken() == tokens[1])
        #expect(throws: ObjectGraphError.self) { try container.fetchHistory(HistoryRequest(after: tokens[0])) }
        #expect(try container.fetchHistory(HistoryRequest(after: tokens[1])).isEmpty)
        context.insert(Mood(text: "after"))
        try context.save()
        #expect(try container.fetchHistory(HistoryRequest(after: tokens[1])).count == 1)
    }
}
