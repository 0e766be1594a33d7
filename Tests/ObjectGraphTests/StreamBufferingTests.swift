import Foundation
import MoodyModel
import ObjectGraph
import Testing

/// The streams a context, a container and a list monitor hand out keep what their consumer has not
/// taken yet as their buffering policy says: by default the 128 newest values, so a consumer that
/// falls behind cannot make memory grow without bound.
@Suite struct StreamBufferingTests {
    /// Makes `count` changes, one notification each, then a last one named "last"; returns the texts
    /// of the moods inserted by the notifications the stream kept, read up to the last one.
    private func keptInsertions(count: Int, of stream: AsyncStream<ObjectsDidChange>, in context: ObjectContext) async -> [String] {
        for index in 1...count {
            context.insert(Mood(text: "\(index)"))
            context.processPendingChanges()
        }
        context.insert(Mood(text: "last"))
        context.processPendingChanges()
        var texts: [String] = []
        for await change in stream {
            let text = change.insertedObjects.compactMap { ($0 as? Mood)?.text }.first ?? "?"
            texts.append(text)
            if text == "last" { break }
        }
        return texts
    }

    @Test func aContextsNotificationStreamKeepsTheNewest128WhileItsConsumerFallsBehind() async throws {
        let context = try makeContainer().newBackgroundContext()
        let texts = await keptInsertions(count: 1_000, of: context.objectsDidChangeNotifications, in: context)
        #expect(texts.count == 128)
        #expect(texts.first == "874" && texts.last == "last")
    }

    @Test func aStreamKeepsWhatItsBufferingPolicySays() async throws {
        let context = try makeContainer().newBackgroundContext()
        let few = await keptInsertions(
            count: 100, of: context.objectsDidChangeNotifications(bufferingPolicy: .bufferingNewest(3)),
            in: context)
        #expect(few == ["99", "100", "last"])
        let all = await keptInsertions(
            count: 1_000, of: context.objectsDidChangeNotifications(bufferingPolicy: .unbounded),
            in: context)
        #expect(all.count == 1_001)
    }

    @Test func theContainersCommitStreamKeepsTheNewest128() async throws {
        let container = try makeContainer()
        let commits = container.commits
        let context = container.newBackgroundContext()
        var last: Int64?
        let token = context.observeDidSave { last = $0.sequence }
        for index in 1...200 {
            context.insert(Mood(text: "\(index)"))
            try context.save()
        }
        token.cancel()
        var sequences: [Int64] = []
        for await commit in commits {
            sequences.append(commit.sequence)
            if commit.sequence == last { break }
        }
        #expect(sequences.count == 128)
    }

    @Test func aListMonitorsChangesetStreamKeepsTheNewest128() async throws {
        let context = try makeContainer().newBackgroundContext()
        let monitor = try context.monitorList(FetchDescriptor<Mood>(sortBy: [SortDescriptor(\.text)]))
        let changes = monitor.changes
        for index in 1...200 {
            context.insert(Mood(text: "\(index)"))
            context.processPendingChanges()
        }
        context.insert(Mood(text: "last"))
        context.processPendingChanges()
        var count = 0
        for await changeset in changes {
            count += 1
            if changeset.changes.contains(where: { if case .insertObject(let mood, _) = $0 { mood.text == "last" } else { false } }) {
                break
            }
        }
        #expect(count == 128)
    }
}
