public import ObjectGraph
public import ObjectGraphSync

// What of Moody syncs: moods, their countries and continents. An object's global ID is its
// record's identifier, so `Mood.remoteIdentifier` (set once a backend accepted the mood) stays
// local, and so does each entity's two-step deletion date: a mark is sent as the deletion it leads
// to (`RemoteDeleter`), not as a field.

extension Mood: Syncable {
    public static var syncConfiguration: SyncConfiguration {
        SyncConfiguration(excluding: ["remoteIdentifier", "markedForDeletionDate"])
    }
}

extension Country: Syncable {
    public static var syncConfiguration: SyncConfiguration {
        SyncConfiguration(excluding: ["markedForDeletionDate"])
    }
}

extension Continent: Syncable {
    public static var syncConfiguration: SyncConfiguration {
        SyncConfiguration(excluding: ["markedForDeletionDate"])
    }
}

/// What a Moody store holds when it syncs.
public enum MoodyStore {
    /// The entities that sync, for a ``SyncCoordinator``.
    public static let syncedTypes: [any Syncable.Type] = [Mood.self, Country.self, Continent.self]

    /// What acts on the changes: the built-in uploader and downloader, and a remote deleter for
    /// each entity, so that a mark (`moody delete`) is sent as a deletion at once instead of when
    /// the clean-up deletes the marked object for good.
    public static let syncProcessors: [any ChangeProcessor] = [
        Uploader(), RemoteDeleter<Mood>(), RemoteDeleter<Country>(), RemoteDeleter<Continent>(), Downloader()
    ]

    /// Moody's entities and the sync's own.
    public static func schema() throws -> Schema { try Schema(syncedTypes + SyncCoordinator.entities) }
}
