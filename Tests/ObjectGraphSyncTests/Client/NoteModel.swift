import Foundation
import ObjectGraph
import ObjectGraphSync
import ObjectGraphSyncProtocol

// Entities for the sync client's conflict tests: the same note three times, each settling conflicts
// its own way.

/// The defaults: the server's value wins a conflict of one field, and a deletion wins over an edit.
@Entity final class Note: Syncable {
    var title: String
    var body = ""
    var stars = 0
    init(title: String) { self.title = title }
}

/// This device's value wins a conflict, and an edit wins over a deletion.
@Entity final class LocalFirstNote: Syncable {
    var title: String
    var body = ""
    var stars = 0
    init(title: String) { self.title = title }

    static var syncConfiguration: SyncConfiguration {
        SyncConfiguration(conflictPolicy: .clientWins, deletionRule: .editWins)
    }
}

/// A closure settles a conflict: texts are joined, numbers added to the base's.
@Entity final class MergedNote: Syncable {
    var title: String
    var body = ""
    var stars = 0
    init(title: String) { self.title = title }

    static var syncConfiguration: SyncConfiguration {
        SyncConfiguration(
            conflictPolicy: .merge { conflict in
                switch (conflict.base, conflict.local, conflict.server) {
                case let (_, .string(local), .string(server)):
                    return .string([server, local].sorted().joined(separator: " + "))
                case let (.integer(base)?, .integer(local), .integer(server)):
                    return .integer(local + server - base)
                default:
                    return conflict.server
                }
            })
    }
}
