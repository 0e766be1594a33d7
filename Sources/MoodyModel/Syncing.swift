public import ObjectGraphSync

// What of Moody syncs (seed 003): moods, their countries and continents. An object's global ID is
// its record's identifier, so `Mood.remoteIdentifier` (the seed's, set once a backend accepted the
// mood) stays local, and so does each entity's two-step deletion date: a mark is sent as the
// deletion it leads to (`RemoteDeleter`), not as a field.

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
