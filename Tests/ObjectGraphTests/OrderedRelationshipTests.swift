import Foundation
import ObjectGraph
import Testing

/// Ordered to-many relationships keep their order through a save, whatever the mix of changes
/// (issue 26, point 2): members appended, inserted in the middle, moved, removed, taken from another
/// owner, in the save that inserts them or in a later one, read back by a fresh context.
@Suite struct OrderedRelationshipTests {
    @Test func aMemberInsertedInTheSaveThatAddsItKeepsItsPlace() throws {
        let container = try ObjectContainer(for: Album.self, configuration: .inMemory)
        let context = container.newBackgroundContext()
        let album = Album(title: "Blue")
        context.insert(album)
        album.tracks = ["a", "b"].map(Track.init(title:))
        try context.save()

        // A new track in the middle, in the save that inserts it.
        album.tracks.insert(Track(title: "new"), at: 1)
        try context.save()

        let reader = container.newBackgroundContext()
        let copy = try reader.existingObject(with: album.objectID, as: Album.self)
        #expect(copy.tracks.map(\.title) == ["a", "new", "b"])
    }

    /// The two storages of an ordered to-many relationship: the members' order column (one-to-many)
    /// and the join table's (many-to-many).
    enum Storage: CaseIterable, Sendable {
        case oneToMany, manyToMany
    }

    /// Random sequences of changes to two owners' ordered members, saved at random points; after
    /// each save a fresh context reads every owner's members in the order expected. 25 sequences
    /// of 30 steps per storage.
    @Test(arguments: Storage.allCases)
    func randomOrderedChangesReadBackInOrder(storage: Storage) throws {
        for seed in UInt64(0)..<25 {
            try runRandomSequence(storage, seed: seed)
        }
    }

    private func runRandomSequence(_ storage: Storage, seed: UInt64) throws {
        var random = SeededGenerator(state: seed)
        let container = try ObjectContainer(for: Album.self, Mixtape.self, configuration: .inMemory)
        let context = container.newBackgroundContext()
        let owners = OwnerPair(storage, in: context)
        // What each owner should hold, by member title; titles are unique.
        var expected: [[String]] = [[], []]
        var loose: [String] = []  // saved members of no owner (one-to-many) or of any (many-to-many)
        var count = 0
        func newTitle() -> String {
            count += 1
            return "m\(count)"
        }
        var steps: [String] = []
        for step in 0..<30 {
            let owner = Int.random(in: 0...1, using: &random)
            let current = expected[owner]
            switch Int.random(in: 0..<6, using: &random) {
            case 0:
                let title = newTitle()
                owners.insertNew(title, into: owner, at: current.count)
                expected[owner].append(title)
                steps.append("append new \(title) to \(owner)")
            case 1:
                let title = newTitle()
                let index = Int.random(in: 0...current.count, using: &random)
                owners.insertNew(title, into: owner, at: index)
                expected[owner].insert(title, at: index)
                steps.append("insert new \(title) into \(owner) at \(index)")
            case 2:
                guard current.count > 1 else { continue }
                let from = Int.random(in: 0..<current.count, using: &random)
                var members = current
                let title = members.remove(at: from)
                let to = Int.random(in: 0...members.count, using: &random)
                members.insert(title, at: to)
                try owners.setMembers(members, of: owner)
                expected[owner] = members
                steps.append("move \(title) of \(owner) from \(from) to \(to)")
            case 3:
                guard !current.isEmpty else { continue }
                let title = current[Int.random(in: 0..<current.count, using: &random)]
                expected[owner].removeAll { $0 == title }
                try owners.setMembers(expected[owner], of: owner)
                if storage == .oneToMany || !expected[1 - owner].contains(title) { loose.append(title) }
                steps.append("remove \(title) from \(owner)")
            case 4:
                // A member of the other owner joins this one in the middle: it leaves the other
                // owner when the relationship is one-to-many.
                let others = expected[1 - owner].filter { !current.contains($0) }
                guard let title = others.randomElement(using: &random) else { continue }
                let index = Int.random(in: 0...current.count, using: &random)
                var members = current
                members.insert(title, at: index)
                try owners.setMembers(members, of: owner)
                expected[owner] = members
                if storage == .oneToMany { expected[1 - owner].removeAll { $0 == title } }
                steps.append("take \(title) into \(owner) at \(index)")
            default:
                // A saved member of no owner joins one.
                let candidates = loose.filter { !current.contains($0) }
                guard let title = candidates.randomElement(using: &random) else { continue }
                let index = Int.random(in: 0...current.count, using: &random)
                var members = current
                members.insert(title, at: index)
                try owners.setMembers(members, of: owner)
                expected[owner] = members
                loose.removeAll { $0 == title }
                steps.append("put loose \(title) into \(owner) at \(index)")
            }
            #expect(
                owners.members(of: 0) == expected[0] && owners.members(of: 1) == expected[1],
                "\(storage), seed \(seed), step \(step): in memory")
            guard Bool.random(using: &random) || step == 29 else { continue }
            try context.save()
            steps.append("save")
            let read = try OwnerPair(storage, reading: owners, in: container.newBackgroundContext())
            let found = [read.members(of: 0), read.members(of: 1)]
            #expect(found == expected, "\(storage), seed \(seed), step \(step): read back \(found), expected \(expected) after \(steps)")
            if found != expected { return }
        }
    }
}

/// Two owners of an ordered to-many relationship, of either storage, and the members they hold by
/// title: the randomized test drives both storages through one interface.
private struct OwnerPair {
    let context: ObjectContext
    let albums: [Album]
    let mixtapes: [Mixtape]

    init(_ storage: OrderedRelationshipTests.Storage, in context: ObjectContext) {
        self.context = context
        switch storage {
        case .oneToMany:
            albums = [Album(title: "A"), Album(title: "B")]
            mixtapes = []
            albums.forEach(context.insert)
        case .manyToMany:
            albums = []
            mixtapes = [Mixtape(name: "A"), Mixtape(name: "B")]
            mixtapes.forEach(context.insert)
        }
    }

    /// The same owners, read in another context.
    init(_ storage: OrderedRelationshipTests.Storage, reading pair: OwnerPair, in context: ObjectContext) throws {
        self.context = context
        albums = try pair.albums.map { try context.existingObject(with: $0.objectID, as: Album.self) }
        mixtapes = try pair.mixtapes.map { try context.existingObject(with: $0.objectID, as: Mixtape.self) }
    }

    func members(of owner: Int) -> [String] {
        albums.isEmpty ? mixtapes[owner].tunes.map(\.title) : albums[owner].tracks.map(\.title)
    }

    func insertNew(_ title: String, into owner: Int, at index: Int) {
        if albums.isEmpty {
            mixtapes[owner].tunes.insert(Tune(title: title), at: index)
        } else {
            albums[owner].tracks.insert(Track(title: title), at: index)
        }
    }

    /// Gives `owner` these members, by title, found among every member the context knows.
    func setMembers(_ titles: [String], of owner: Int) throws {
        if albums.isEmpty {
            let all = try context.fetch(FetchDescriptor<Tune>())
            let byTitle = Dictionary(all.map { ($0.title, $0) }, uniquingKeysWith: { first, _ in first })
            mixtapes[owner].tunes = titles.compactMap { byTitle[$0] }
        } else {
            let all = try context.fetch(FetchDescriptor<Track>())
            let byTitle = Dictionary(all.map { ($0.title, $0) }, uniquingKeysWith: { first, _ in first })
            albums[owner].tracks = titles.compactMap { byTitle[$0] }
        }
    }
}
