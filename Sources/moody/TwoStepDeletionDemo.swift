import ArgumentParser
import Foundation
import MoodyModel
import ObjectGraph

/// Two-step deletion: a mood marked disappears from every list at once, its empty
/// country and continent with it; a later clean-up deletes the rows in one batch.
enum TwoStepDeletionDemo {
    static func run() throws {
        print("\nTwo-step deletion:")
        let container = try ObjectContainer(for: Mood.self, configuration: .inMemory)
        let context = container.newBackgroundContext()
        context.name = "app"
        let asia = Continent(name: "Asia")
        let japan = Country(name: "Japan", continent: asia)
        let mood = Mood(text: "Cherry blossoms", rating: 5, country: japan)
        context.insert(mood)
        context.insert(japan)
        context.insert(asia)
        try context.save()
        let list = container.newBackgroundContext()  // another screen's context
        print("  Moods listed: \(try list.fetch(FetchDescriptor<Mood>()).map(\.text))")

        mood.markForLocalDeletion(at: Date(timeIntervalSinceNow: -180))  // marked three minutes ago
        try context.save()
        print(
            "  Marked '\(mood.text)'; Japan and Asia were left empty, so they were marked too: "
                + "\(japan.isMarkedForDeletion), \(asia.isMarkedForDeletion)")
        print(
            "  Moods listed: \(try list.fetch(FetchDescriptor<Mood>()).map(\.text)); "
                + "countries: \(try list.fetch(FetchDescriptor<Country>()).map(\.name)); "
                + "rows still stored: \(try list.fetchCount(FetchDescriptor<Mood>(includesMarkedForDeletion: true)))")

        let cleaner = container.newBackgroundContext()
        cleaner.name = "clean-up"
        let deleted = try cleaner.deleteMarkedObjects()  // marked over two minutes ago
        print("  Clean-up batch-deleted \(deleted.count) rows: \(deleted.map(\.entityName).sorted())")
        context.processPendingChanges()  // a background context merges other commits when next used
        print("  The app's objects learned of it: mood deleted \(mood.isDeleted), Japan \(japan.isDeleted), Asia \(asia.isDeleted)")
        let transaction = try requireLastTransaction(container.fetchHistory())
        print(
            "  History: transaction \(transaction.token) by \(transaction.author ?? "?") deleted "
                + "\(transaction.changes.filter { $0.kind == .delete }.count) objects")
    }

    private static func requireLastTransaction(_ transactions: [HistoryTransaction]) throws -> HistoryTransaction {
        guard let last = transactions.last else { throw ValidationError("the history is empty") }
        return last
    }
}
