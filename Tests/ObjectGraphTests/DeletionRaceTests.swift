import Foundation
import MoodyModel
import ObjectGraph
import Testing

/// Seed 001's race, run many times on real threads: context B deletes a mood and saves while context
/// A, on another task, reads it; A then merges (by itself, or from B's save) and reads again.
@Suite struct DeletionRaceTests {
    /// What context A saw, returned to the test (expectations inside a detached task would not be
    /// attributed to the test).
    private struct ReaderOutcome: Sendable {
        var readBeforeMerging: String
        var readAfterMerging: String
        var isDeletedAfterMerging: Bool
        var deletionsPosted: Int
        var lookupAfterMerging: ObjectGraphError?
        var saveError: String?
    }

    @Test(.timeLimit(.minutes(1)), arguments: [(true, true), (true, false), (false, true), (false, false)])
    func aDeletionRacingAReadNeverCrashesAndEndsDeleted(automaticMerging: Bool, deleteInaccessibleFaults: Bool) async throws {
        let container = try ObjectContainer(for: Mood.self, configuration: .file(temporaryStorePath()))
        let setUp = container.newBackgroundContext()
        for round in 0..<100 {
            let text = "Round \(round)"
            let mood = Mood(text: text, rating: 5)
            setUp.insert(mood)
            try setUp.save()
            let id = mood.objectID

            // The writer starts once the reader holds its fault, as in the seed; then they race.
            let (readerHoldsFault, holding) = AsyncStream<Void>.makeStream()
            let writer = Task.detached { () throws -> DidSave? in
                for await _ in readerHoldsFault { break }
                let context = container.newBackgroundContext()
                var saves: [DidSave] = []
                let token = context.observeDidSave { saves.append($0) }
                context.delete(try context.existingObject(with: id, as: Mood.self))
                try context.save()
                withExtendedLifetime(token) {}
                return saves.first
            }
            let reader = Task.detached { () async throws -> ReaderOutcome? in
                let context = container.newBackgroundContext()
                context.automaticallyMergesChanges = automaticMerging
                context.shouldDeleteInaccessibleFaults = deleteInaccessibleFaults
                var deletions = 0
                let token = context.observeObjectsDidChange { deletions += $0.deletedObjects.count }
                guard let mood = context.object(with: id, as: Mood.self) else { return nil }
                holding.yield()
                // Every third round reads once the writer has saved (the row is surely gone); the
                // others race it, reading a little later each round.
                let readsAfterTheSave = round.isMultiple(of: 3)
                var save = readsAfterTheSave ? try await writer.value : nil
                if !readsAfterTheSave { try await Task.sleep(for: .microseconds(100 * (round % 20))) }
                let before = mood.text
                if save == nil { save = try await writer.value }
                guard let save else { return nil }
                if automaticMerging { context.processPendingChanges() } else { context.mergeChanges(from: save) }
                var outcome = ReaderOutcome(
                    readBeforeMerging: before, readAfterMerging: mood.text, isDeletedAfterMerging: mood.isDeleted,
                    deletionsPosted: 0)
                do { _ = try context.existingObject(with: id) } catch { outcome.lookupAfterMerging = error as? ObjectGraphError }
                do { try context.save() } catch { outcome.saveError = "\(error)" }
                outcome.deletionsPosted = deletions
                withExtendedLifetime(token) {}
                return outcome
            }
            let outcome = try #require(try await reader.value)
            // Read before the deletion: the mood's values; after: the defaults of a deleted object.
            if round.isMultiple(of: 3) {
                #expect(outcome.readBeforeMerging == "")
            } else {
                #expect(outcome.readBeforeMerging == text || outcome.readBeforeMerging == "")
            }
            #expect(outcome.readAfterMerging == outcome.readBeforeMerging)
            #expect(outcome.isDeletedAfterMerging)
            #expect(outcome.deletionsPosted == 1)
            #expect(outcome.lookupAfterMerging == ObjectGraphError.objectNotFound(id))
            #expect(outcome.saveError == nil)
        }
        try #expect(setUp.fetchCount(FetchDescriptor<Mood>()) == 0)
    }
}
