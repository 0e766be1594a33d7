import Foundation
import ObjectGraph
import Testing

/// A renamed attribute or entity declares its original name and migrates, keeping its data (issue
/// 10, point 6).
@Suite struct RenameMigrationTests {
    /// A store file with two notes, made with the first version of the model.
    static func noteStore() throws -> String {
        let path = temporaryStorePath()
        let context = try ObjectContainer(for: NoteV1.self, configuration: .file(path)).newBackgroundContext()
        for text in ["first", "second"] { context.insert(NoteV1(text: text)) }
        try context.save()
        return path
    }

    @Test func aRenamedAttributeKeepsItsValues() throws {
        let path = try Self.noteStore()
        let context = try ObjectContainer(for: NoteRenamedText.self, configuration: .file(path)).newBackgroundContext()
        let notes = try context.fetch(FetchDescriptor<NoteRenamedText>(sortBy: [SortDescriptor(\.body)]))
        #expect(notes.map(\.body) == ["first", "second"])
        context.insert(NoteRenamedText(body: "third"))
        try context.save()
        // Opened again, the store is current: no second migration, nothing lost.
        let again = try ObjectContainer(for: NoteRenamedText.self, configuration: .file(path)).newBackgroundContext()
        #expect(try again.fetchCount(FetchDescriptor<NoteRenamedText>()) == 3)
    }

    @Test func aRenamedEntityKeepsItsRowsAndItsKeys() throws {
        let path = try Self.noteStore()
        let context = try ObjectContainer(for: Memo.self, configuration: .file(path)).newBackgroundContext()
        let memos = try context.fetch(FetchDescriptor<Memo>(sortBy: [SortDescriptor(\.text)]))
        #expect(memos.map(\.text) == ["first", "second"])
        let third = Memo(text: "third")
        context.insert(third)
        try context.save()
        #expect(third.objectID.uriRepresentation.hasSuffix("/Memo/p3"))  // keys go on from the old table's
    }

    @Test func aRenamedEntityKeepsItsManyToManyLinksWhenTheJoinTableChangesSides() throws {
        let path = temporaryStorePath()
        do {
            let context = try ObjectContainer(for: Playlist.self, configuration: .file(path)).newBackgroundContext()
            let road = Playlist(name: "Road")
            road.songs = [Song(title: "One"), Song(title: "Two")]
            context.insert(road)
            try context.save()
        }
        let container = try ObjectContainer(for: PlaylistV2.self, configuration: .file(path))
        let context = container.newBackgroundContext()
        let road = try #require(try context.fetch(FetchDescriptor<PlaylistV2>()).first)
        #expect(road.songs.map(\.title) == ["One", "Two"])
        let one = try #require(road.songs.first)
        #expect(one.playlists.map(\.name) == ["Road"])
        road.songs = [one]
        try context.save()
        let check = container.newBackgroundContext()
        #expect(try check.fetch(FetchDescriptor<PlaylistV2>()).first?.songs.map(\.title) == ["One"])
    }
}
