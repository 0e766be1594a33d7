import Foundation
import ObjectGraph
import ObjectGraphSync
import ObjectGraphSyncProtocol
import ObjectGraphSyncTesting
import Testing

/// A note of an app's first version.
@Entity("Jotting") final class JottingV1: Syncable {
    var title: String
    init(title: String) { self.title = title }
    static var syncConfiguration: SyncConfiguration { SyncConfiguration(recordType: "Jotting") }
}

/// The same note in the next version, which a stage fills.
@Entity("Jotting") final class JottingV2: Syncable {
    var title: String
    var words: Int
    init(title: String, words: Int) {
        self.title = title
        self.words = words
    }
    static var syncConfiguration: SyncConfiguration { SyncConfiguration(recordType: "Jotting") }
}

@Suite("Sync client: what a migration stage writes reaches the other devices")
struct SyncMigrationTests {
    @Test("A stage that deletes a row, edits another and fills a new attribute: the server hears all of it at the next sync")
    func stageWritesAreSent() async throws {
        let server = InMemorySyncServer()
        do {
            let path = SyncDevice.newStorePath()
            do {
                let container = try ObjectContainer(schema: Schema([JottingV1.self] + SyncCoordinator.entities), configuration: .file(path))
                let context = container.newBackgroundContext()
                for title in ["keep me", "obsolete", "rename me"] { context.insert(JottingV1(title: title)) }
                try context.save()
                let sync = try SyncCoordinator(
                    container: container, remote: server.remote(user: "alice"), zone: "notes", syncing: [JottingV1.self])
                try await sync.syncNow()
            }
            let plan = MigrationPlan(stages: [
                MigrationStage(
                    from: try Schema([JottingV1.self] + SyncCoordinator.entities),
                    to: try Schema([JottingV2.self] + SyncCoordinator.entities),
                    name: "count words",
                    didMigrate: { migration in
                        for var row in try migration.rows(of: "Jotting") {
                            let title = try row.value("title", as: String.self) ?? ""
                            if title == "obsolete" {
                                try migration.delete(row)
                                continue
                            }
                            if title == "rename me" { try row.setValue("renamed", for: "title") }
                            try row.setValue(((title == "rename me" ? "renamed" : title).split(separator: " ")).count, for: "words")
                            try migration.update(row)
                        }
                    })
            ])
            let container = try ObjectContainer(
                schema: Schema([JottingV2.self] + SyncCoordinator.entities), migrationPlan: plan, configuration: .file(path))
            let sync = try SyncCoordinator(
                container: container, remote: server.remote(user: "alice"), zone: "notes", syncing: [JottingV2.self])
            try await sync.syncNow()

            let feed = try await server.allChanges("notes")
            let latest = Dictionary(feed.map { ($0.record.id, $0.record) }, uniquingKeysWith: { $1 }).values
            let live = latest.filter { !$0.deleted }.map { record in
                (record.fields["title"].flatMap { if case .string(let text) = $0 { text } else { nil } } ?? "", record.fields["words"])
            }
            #expect(Set(live.map(\.0)) == ["keep me", "renamed"], "the deletion and the edit reached the server")
            #expect(live.allSatisfy { $0.1 != nil }, "the new attribute too")
            #expect(sync.status.current.pendingChanges == 0)
        }
    }
}
