import Foundation
import MoodyModel
import ObjectGraph
import Testing

/// The history keeps one record per transaction, entity and kind of change (issue 49, point 1):
/// whatever a transaction does, reading it gives back each object's change, with its global ID and
/// tombstone, as a log kept beside it says. Seeded mixes of saves and batch operations, read back
/// in full, after random tokens, and by entity.
@Suite struct HistoryRecordTests {
    /// One object's change, as the log beside the store expects it.
    struct Expected: Hashable, Comparable {
        var kind: String
        var object: String
        var globalID: UUID
        var changedKeys: [String]
        var remoteIdentifier: String?

        init(_ kind: HistoryChange.Kind, _ id: ObjectID, _ globalID: UUID, changedKeys: Set<String> = [], remoteIdentifier: String? = nil) {
            self.kind = "\(kind)"
            self.object = "\(id)"
            self.globalID = globalID
            self.changedKeys = changedKeys.sorted()
            self.remoteIdentifier = remoteIdentifier
        }

        init(_ change: HistoryChange) throws {
            self.init(
                change.kind, change.objectID, change.globalID, changedKeys: change.changedKeys,
                remoteIdentifier: try change.tombstone?.value("remoteIdentifier", as: String.self))
        }

        static func < (lhs: Self, rhs: Self) -> Bool { "\(lhs)" < "\(rhs)" }
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func everyObjectsChangeIsReadBackFromTheRecords(seed: UInt64) throws {
        var random = SeededGenerator(state: seed)
        let container = try ObjectContainer(for: Mood.self, configuration: .file(temporaryStorePath()))
        let context = container.newBackgroundContext()
        var live: [Mood] = []
        var globalIDs: [ObjectID: UUID] = [:]
        var remoteIdentifiers: [ObjectID: String] = [:]
        var log: [[Expected]] = []
        var serial = 0
        for _ in 0..<24 {
            var changes: [Expected] = []
            switch Int.random(in: 0..<10, using: &random) {
            case 0:
                // A batch update of every mood of one rating.
                let rating = Int.random(in: 1...5, using: &random)
                let ids = try context.batchUpdate(Mood.self, where: #Predicate { $0.rating == rating }, set: [.set(\.text, to: "batch")])
                changes = ids.map { Expected(.update, $0, globalIDs[$0]!, changedKeys: ["text"]) }
                context.processPendingChanges()
            case 1:
                // A batch deletion of every mood of one rating.
                let rating = Int.random(in: 1...5, using: &random)
                let ids = try context.batchDelete(Mood.self, where: #Predicate { $0.rating == rating })
                changes = ids.map { Expected(.delete, $0, globalIDs[$0]!, remoteIdentifier: remoteIdentifiers[$0]) }
                context.processPendingChanges()
                live.removeAll { ids.contains($0.objectID) }
            default:
                // A save: insertions (some in runs, some remote), updates, deletions.
                var inserted: [Mood] = []
                for _ in 0..<Int.random(in: 0...40, using: &random) {
                    serial += 1
                    let mood = Mood(text: "mood \(serial) 🌧️\u{301}", rating: Int.random(in: 1...5, using: &random))
                    if Bool.random(using: &random) { mood.remoteIdentifier = "remote-\(serial)\u{0}" }
                    context.insert(mood)
                    inserted.append(mood)
                }
                var updated: [ObjectIdentifier: (Mood, Set<String>)] = [:]
                for _ in 0..<Int.random(in: 0...(live.count / 2), using: &random) {
                    let mood = live.randomElement(using: &random)!
                    let key = Bool.random(using: &random) ? "rating" : "text"
                    if key == "rating" { mood.rating = mood.rating % 5 + 1 } else { mood.text += "!" }
                    updated[ObjectIdentifier(mood), default: (mood, [])].1.insert(key)
                }
                var deleted: [(ObjectID, UUID, String?)] = []
                for _ in 0..<Int.random(in: 0...(live.count / 4), using: &random) where !live.isEmpty {
                    let mood = live.remove(at: Int.random(in: 0..<live.count, using: &random))
                    updated[ObjectIdentifier(mood)] = nil
                    deleted.append((mood.objectID, mood.objectGlobalID, mood.remoteIdentifier))
                    context.delete(mood)
                }
                try context.save()
                for mood in inserted {
                    globalIDs[mood.objectID] = mood.objectGlobalID
                    remoteIdentifiers[mood.objectID] = mood.remoteIdentifier
                    changes.append(Expected(.insert, mood.objectID, mood.objectGlobalID))
                }
                for (mood, keys) in updated.values {
                    changes.append(Expected(.update, mood.objectID, globalIDs[mood.objectID]!, changedKeys: keys))
                }
                for (id, globalID, remote) in deleted {
                    changes.append(Expected(.delete, id, globalID, remoteIdentifier: remote))
                }
                live += inserted
            }
            // A transaction that changed nothing is not recorded.
            if !changes.isEmpty { log.append(changes.sorted()) }
        }

        let history = try container.fetchHistory()
        #expect(try history.map { try $0.changes.map(Expected.init).sorted() } == log)
        // From any token on, and with the entity named, the same changes.
        for _ in 0..<4 {
            let start = Int.random(in: 0..<history.count, using: &random)
            let later = try container.fetchHistory(HistoryRequest(after: history[start].token, entityNames: ["Mood"]))
            #expect(try later.map { try $0.changes.map(Expected.init).sorted() } == Array(log[(start + 1)...]))
        }
        #expect(try container.fetchHistory(HistoryRequest(entityNames: ["Country"])).isEmpty)
    }
}
