import Foundation
import MoodyModel
import ObjectGraph
import Synchronization
import Testing

/// Every commit to a container's store reaches whoever observes the container: contexts' saves,
/// batch operations, and other writers' transactions.
@Suite struct ContainerCommitsTests {
    @Test func everyKindOfCommitReachesTheContainersObservers() throws {
        let path = temporaryStorePath()
        let container = try ObjectContainer(for: Mood.self, configuration: .file(path))
        let heard = Mutex<[DidSave]>([])
        let token = container.observeCommits { save in heard.withLock { $0.append(save) } }

        let context = container.newBackgroundContext()
        context.name = "editor"
        let mood = Mood(text: "Sunny", rating: 2)
        context.insert(mood)
        try context.save()
        _ = try context.batchUpdate(Mood.self, set: [.set(\.rating, to: 5)])
        let other = try ObjectContainer(for: Mood.self, configuration: .file(path)).newBackgroundContext()
        other.name = "other process"
        other.insert(Mood(text: "Rainy"))
        try other.save()
        try container.mergeChangesFromOtherProcesses()

        let saves = heard.withLock { $0 }
        #expect(saves.map(\.author) == ["editor", "editor", "other process"])
        #expect(saves[0].insertedObjectIDs == [mood.objectID])
        #expect(saves[1].updatedObjectIDs[mood.objectID] == ["rating"])
        #expect(saves[2].insertedObjectIDs.count == 1)
        #expect(saves.map(\.sequence) == saves.map(\.sequence).sorted())

        token.cancel()
        mood.rating = 1
        try context.save()
        #expect(heard.withLock { $0.count } == 3, "a cancelled token hears nothing more")
    }

    @Test func commitsArriveAsAnAsyncSequence() async throws {
        let container = try makeContainer()
        let commits = container.commits
        let context = container.newBackgroundContext()
        context.insert(Mood(text: "Sunny"))
        try context.save()
        var iterator = commits.makeAsyncIterator()
        let first = await iterator.next()
        #expect(first?.insertedObjectIDs.count == 1)
    }
}
