import Foundation
import MoodyModel
import ObjectGraph
import Testing

/// Concurrent edits of a to-many relationship are not lost (issue 10, point 2): a save writes the
/// members added and removed, not the whole set as loaded, and a many-to-many change is a versioned
/// change of its owners, so that the merge policies see it.
@Suite struct ConcurrentToManyTests {
    static let policies: [MergePolicy] = [.error, .storeTrumps, .objectTrumps, .overwrite, .rollback]

    /// The song's playlists as the store has them, read by a fresh context.
    static func storedPlaylists(of song: ObjectID, in container: ObjectContainer) throws -> [String] {
        let context = container.newBackgroundContext()
        return try withExtendedLifetime(context) {  // objects hold their context weakly
            try context.existingObject(with: song, as: Song.self).playlists.map(\.name).sorted()
        }
    }

    /// A song on playlists One and Two; the first editor takes it off One and saves; the second,
    /// which loaded the playlists before, puts it on Three and saves with `policy`.
    @Test(arguments: policies)
    func manyToMany(policy: MergePolicy) throws {
        let container = try ObjectContainer(for: Playlist.self, configuration: .inMemory)
        let setUp = container.newBackgroundContext()
        let song = Song(title: "Song")
        let names = ["One", "Two", "Three"]
        let playlists = names.map { Playlist(name: $0) }
        for playlist in playlists.prefix(2) { playlist.songs = [song] }
        playlists[2].songs = [Song(title: "Filler")]  // a playlist holds at least one song
        for playlist in playlists { setUp.insert(playlist) }
        try setUp.save()

        let first = container.newBackgroundContext()
        let second = container.newBackgroundContext()
        for context in [first, second] { context.automaticallyMergesChanges = false }
        second.mergePolicy = policy
        let firstSong = try first.existingObject(with: song.objectID, as: Song.self)
        let secondSong = try second.existingObject(with: song.objectID, as: Song.self)
        #expect(secondSong.playlists.count == 2)  // loaded before the first editor's save

        firstSong.playlists = firstSong.playlists.filter { $0.name != "One" }
        try first.save()
        let three = try second.existingObject(with: playlists[2].objectID, as: Playlist.self)
        secondSong.playlists.insert(three)

        switch policy {
        case .error:
            let error = #expect(throws: ObjectGraphError.self) { try second.save() }
            guard let thrown = error, thrown.code == .conflict, case let conflicts = thrown.conflicts else {
                Issue.record("expected a conflict, got \(String(describing: error))")
                return
            }
            #expect(conflicts.map(\.objectID) == [song.objectID])
            #expect(try Self.storedPlaylists(of: song.objectID, in: container) == ["Two"])
        case .storeTrumps, .objectTrumps:
            try second.save()
            // Both edits survive: the link the first editor removed stays removed.
            #expect(try Self.storedPlaylists(of: song.objectID, in: container) == ["Three", "Two"])
        case .overwrite:
            try second.save()
            // The second editor's set, as it is there, replaces the store's.
            #expect(try Self.storedPlaylists(of: song.objectID, in: container) == ["One", "Three", "Two"])
        case .rollback:
            try second.save()
            #expect(try Self.storedPlaylists(of: song.objectID, in: container) == ["Two"])
            #expect(secondSong.playlists.map(\.name).sorted() == ["Two"])
        }
    }

    /// A country with two moods; the first editor moves one mood to Spain and saves; the second,
    /// which loaded the country's moods before, adds a third mood and saves with `policy`. The links
    /// are the moods' own (versioned) rows: nothing conflicts, and no link comes back.
    @Test(arguments: policies)
    func oneToMany(policy: MergePolicy) throws {
        let container = try makeContainer()
        let setUp = container.newBackgroundContext()
        let (_, france, spain) = try makeEurope(in: setUp)
        let moved = Mood(text: "moved", country: france)
        let stays = Mood(text: "stays", country: france)
        for mood in [moved, stays] { setUp.insert(mood) }
        try setUp.save()

        let first = container.newBackgroundContext()
        let second = container.newBackgroundContext()
        for context in [first, second] { context.automaticallyMergesChanges = false }
        second.mergePolicy = policy
        let firstMoved = try first.existingObject(with: moved.objectID, as: Mood.self)
        let secondFrance = try second.existingObject(with: france.objectID, as: Country.self)
        #expect(secondFrance.moods.count == 2)

        firstMoved.country = try first.existingObject(with: spain.objectID, as: Country.self)
        try first.save()
        let added = Mood(text: "added")
        second.insert(added)
        secondFrance.moods.insert(added)
        try second.save()

        let check = container.newBackgroundContext()
        let stored = try check.existingObject(with: france.objectID, as: Country.self)
        #expect(stored.moods.map(\.text).sorted() == ["added", "stays"])
        #expect(try check.existingObject(with: moved.objectID, as: Mood.self).country?.name == "Spain")
    }
}
