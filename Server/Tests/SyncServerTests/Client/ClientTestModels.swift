import Foundation
import ObjectGraph
import ObjectGraphSync

// Entities of the client's tests against the real server (the in-process tests of the root
// package declare their own).

/// A note whose body is `text` on the server and whose draft stays on the device.
@Entity final class MappedNote: Syncable {
    var title: String
    var body = ""
    var draft = ""
    init(title: String) { self.title = title }

    static var syncConfiguration: SyncConfiguration {
        SyncConfiguration(recordType: "Memo", excluding: ["draft"], fieldNames: ["body": "text"])
    }
}

// A many-to-many relationship, for the sync of memberships.

@Entity final class Playlist: Syncable {
    var name: String
    @Relationship(inverse: \Track.playlists) var tracks: Set<Track> = []
    init(name: String) { self.name = name }
}

@Entity final class Track: Syncable {
    var title: String
    var playlists: Set<Playlist> = []
    init(title: String) { self.title = title }
}

// An ordered to-many relationship, for the random convergence test.

/// A trip whose stops are in the order the traveller chose.
@Entity final class Trip: Syncable {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Stop.trip) var stops: [Stop] = []
    init(name: String) { self.name = name }
}

@Entity final class Stop: Syncable {
    var name: String
    var trip: Trip?
    init(name: String) { self.name = name }
}

// A value kept in a file, for the sync of large values.

/// A photo whose image is kept in a file beside the store when it is large.
@Entity final class Photo: Syncable {
    var caption: String
    @Attribute(.externalStorage) var image: Data?
    init(caption: String, image: Data? = nil) {
        self.caption = caption
        self.image = image
    }
}
