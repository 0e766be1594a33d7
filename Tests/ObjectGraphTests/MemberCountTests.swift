import Foundation
import ObjectGraph
import Testing

/// The counts of a deletion's rules, which read the stored members' keys of relationships that are
/// not loaded and correct them for the context's unsaved changes, and `count(of:)` elsewhere: these
/// tests hold them to a count made by hand, or to the members loaded, through random mixes of
/// insertions, moves, deletions (one at a time and in batches), marks set and cleared, saves,
/// rollbacks and other contexts' saves, merged or not.
@Suite struct MemberCountTests {
    /// What the context under test shows of a player: its team, and whether it is marked.
    private struct Shown: Equatable {
        var team: String?
        var isMarked = false
    }

    /// The players and teams as the context under test shows them, and as last saved.
    private struct Expected {
        var players: [String: Shown] = [:]
        var teams: Set<String> = []

        /// The count by hand: the team's players that are not marked.
        func count(of team: String) -> Int {
            players.values.count { $0.team == team && !$0.isMarked }
        }
    }

    private struct Scenario {
        let container: ObjectContainer
        let context: ObjectContext
        var random: SeededGenerator
        var shown = Expected()
        var saved = Expected()
        var names = 0

        init(seed: UInt64) throws {
            container = try ObjectContainer(for: CountedTeam.self, configuration: .inMemory)
            context = container.newBackgroundContext()
            random = SeededGenerator(state: seed)
        }

        mutating func newName(_ prefix: String) -> String {
            names += 1
            return "\(prefix)\(names)"
        }

        func team(_ name: String, in context: ObjectContext? = nil) throws -> CountedTeam {
            let found = try (context ?? self.context).fetch(FetchDescriptor<CountedTeam>(predicate: #Predicate { $0.name == name }))
            return try #require(found.first, "team \(name)")
        }

        func player(_ name: String, in context: ObjectContext? = nil) throws -> CountingPlayer {
            let found = try (context ?? self.context).fetch(
                FetchDescriptor<CountingPlayer>(predicate: #Predicate { $0.name == name }, includesMarkedForDeletion: true))
            return try #require(found.first, "player \(name)")
        }

        /// Now and then, one team's count against the count by hand, then its players loaded and
        /// counted too. Not every team at every step: a count outside a deletion pass loads the
        /// relationship, and the deletions' rules must meet relationships still unloaded, with
        /// changes waiting in them, to count them from the stored keys.
        mutating func check(_ step: String) throws {
            guard Int.random(in: 0..<3, using: &random) == 0 else { return }
            if let name = shown.teams.sorted().randomElement(using: &random) {
                #expect(try team(name).count(of: \.players) == shown.count(of: name), "\(name) after \(step)")
                let team = try team(name)
                let loaded = team.players.filter { !$0.isDeleted }.count
                #expect(loaded == shown.count(of: name), "\(name)'s loaded players after \(step)")
                #expect(team.count(of: \.players) == shown.count(of: name), "\(name), loaded, after \(step)")
            }
        }

        /// Makes one random change and describes it.
        mutating func step() throws -> String {
            let players = shown.players.keys.sorted()
            let teams = shown.teams.sorted()
            switch Int.random(in: 0..<13, using: &random) {
            case 0, 1:
                let name = newName("p")
                let teamName = teams.randomElement(using: &random)
                context.insert(CountingPlayer(name: name, team: try teamName.map { try team($0) }))
                shown.players[name] = Shown(team: teamName)
                return "insert \(name) into \(teamName ?? "no team")"
            case 2, 3:
                guard let name = players.randomElement(using: &random) else { return "nothing" }
                let teamName = (teams + [nil]).randomElement(using: &random) ?? nil
                try player(name).team = try teamName.map { try team($0) }
                shown.players[name]?.team = teamName
                return "move \(name) to \(teamName ?? "no team")"
            case 4:
                guard let name = players.randomElement(using: &random) else { return "nothing" }
                let player = try player(name)
                let teamName = shown.players[name]?.team
                shown.players[name] = nil
                context.delete(player)
                // Its rule counted its team without it, before and after doing nothing.
                let expected = teamName.map { [shown.count(of: $0), shown.count(of: $0)] } ?? []
                #expect(player.countsSeen == expected, "\(name)'s rule")
                return "delete \(name)"
            case 5, 11:
                let names = players.filter { _ in Int.random(in: 0..<4, using: &random) == 0 }
                let deleted = try names.map { try player($0) }
                let teamsBefore = names.map { shown.players[$0]?.team }
                for name in names { shown.players[name] = nil }
                context.delete(deleted)
                // Every rule ran once all of them were deleted: each counted its team without them.
                for (player, team) in zip(deleted, teamsBefore) {
                    let expected = team.map { [shown.count(of: $0), shown.count(of: $0)] } ?? []
                    #expect(player.countsSeen == expected, "\(player.name)'s rule in a batch of \(names.count)")
                }
                return "delete \(names) at once"
            case 6:
                guard let name = players.filter({ shown.players[$0]?.isMarked == false }).randomElement(using: &random) else {
                    return "nothing"
                }
                try player(name).markForLocalDeletion()
                shown.players[name]?.isMarked = true
                return "mark \(name)"
            case 7:
                guard let name = players.filter({ shown.players[$0]?.isMarked == true }).randomElement(using: &random) else {
                    return "nothing"
                }
                try player(name).markedForDeletionDate = nil
                shown.players[name]?.isMarked = false
                return "unmark \(name)"
            case 8:
                if teams.count < 4 || Bool.random(using: &random) {
                    let name = newName("T")
                    context.insert(CountedTeam(name: name))
                    shown.teams.insert(name)
                    return "insert team \(name)"
                }
                guard let name = teams.randomElement(using: &random) else { return "nothing" }
                context.delete(try team(name))
                shown.teams.remove(name)
                for (player, facts) in shown.players where facts.team == name { shown.players[player]?.team = nil }
                return "delete team \(name)"
            case 9:
                try context.save()
                saved = shown
                return "save"
            case 10:
                context.rollback()
                shown = saved
                return "rollback"
            default:
                return try changeElsewhere()
            }
        }

        /// Another context changes saved players and saves; the context under test merges that save.
        /// Only when it has nothing unsaved itself, so that the count by hand knows what it shows.
        mutating func changeElsewhere() throws -> String {
            guard !context.hasChanges else { return "nothing" }
            let other = container.newBackgroundContext()
            var saves: [DidSave] = []
            let token = other.observeDidSave { saves.append($0) }
            defer { _ = token }
            let players = saved.players.keys.sorted()
            let teams = saved.teams.sorted()
            let description: String
            switch Int.random(in: 0..<4, using: &random) {
            case 0:
                let name = newName("p")
                let teamName = teams.randomElement(using: &random)
                other.insert(CountingPlayer(name: name, team: try teamName.map { try team($0, in: other) }))
                saved.players[name] = Shown(team: teamName)
                description = "elsewhere, insert \(name) into \(teamName ?? "no team")"
            case 1:
                guard let name = players.randomElement(using: &random) else { return "nothing" }
                let teamName = (teams + [nil]).randomElement(using: &random) ?? nil
                try player(name, in: other).team = try teamName.map { try team($0, in: other) }
                saved.players[name]?.team = teamName
                description = "elsewhere, move \(name) to \(teamName ?? "no team")"
            case 2:
                guard let name = players.randomElement(using: &random) else { return "nothing" }
                other.delete(try player(name, in: other))
                saved.players[name] = nil
                description = "elsewhere, delete \(name)"
            default:
                guard let name = players.filter({ saved.players[$0]?.isMarked == false }).randomElement(using: &random) else {
                    return "nothing"
                }
                try player(name, in: other).markForLocalDeletion()
                saved.players[name]?.isMarked = true
                description = "elsewhere, mark \(name)"
            }
            try other.save()
            // A move to where the player is saves nothing, and tells nothing.
            for save in saves { context.mergeChanges(from: save) }
            shown = saved
            return description
        }
    }

    @Test func rulesCountingSeveralTeamsFromStoredKeysSeeMembersMovedOutAndIn() throws {
        let container = try ObjectContainer(for: CountedTeam.self, configuration: .inMemory)
        let writer = container.newBackgroundContext()
        let reds = CountedTeam(name: "Reds")
        let blues = CountedTeam(name: "Blues")
        for name in ["a", "b", "c"] { writer.insert(CountingPlayer(name: name, team: reds)) }
        writer.insert(CountingPlayer(name: "z", team: blues))
        try writer.save()

        let context = container.newBackgroundContext()
        var players: [String: CountingPlayer] = [:]
        for player in try context.fetch(FetchDescriptor<CountingPlayer>()) { players[player.name] = player }
        let (a, b, z) = try (#require(players["a"]), #require(players["b"]), #require(players["z"]))
        // a moves to the Blues while neither team's players are loaded: a removal and an addition wait.
        a.team = z.team
        context.delete([b, z])

        #expect(b.countsSeen == [1, 1])  // the Reds keep c: a moved out, b deleted
        #expect(z.countsSeen == [1, 1])  // the Blues have a: moved in, z deleted
        try context.save()
        let reader = container.newBackgroundContext()
        let teams = try reader.fetch(FetchDescriptor<CountedTeam>(sortBy: [SortDescriptor(\.name)]))
        #expect(teams.map { $0.players.map(\.name) } == [["a"], ["c"]])
    }

    /// Before a merge, a context hides the marks it last read; its count must hide the same, when
    /// the store's marks changed since.
    @Test func aCountBeforeAMergeHidesTheMarksTheContextLastReadAsItsRelationshipsDo() throws {
        let container = try ObjectContainer(for: CountedTeam.self, configuration: .inMemory)
        let writer = container.newBackgroundContext()
        let reds = CountedTeam(name: "Reds")
        let blues = CountedTeam(name: "Blues")
        let players = ["a", "b", "c"].map { CountingPlayer(name: $0, team: reds) }
        writer.insert(CountingPlayer(name: "z", team: blues))
        players[1].markForLocalDeletion()
        for player in players { writer.insert(player) }
        try writer.save()

        let context = container.newBackgroundContext()
        context.automaticallyMergesChanges = false
        func team(_ name: String) throws -> CountedTeam {
            try #require(try context.fetch(FetchDescriptor<CountedTeam>(predicate: #Predicate { $0.name == name })).first)
        }
        // The context reads the players' marks (b marked), counting nothing.
        #expect(try team("Blues").players.count == 1)

        // Elsewhere, b is unmarked; the context has not merged that.
        let other = container.newBackgroundContext()
        for player in try other.fetch(FetchDescriptor<CountingPlayer>(includesMarkedForDeletion: true)) where player.name == "b" {
            player.markedForDeletionDate = nil
        }
        var saves: [DidSave] = []
        let token = other.observeDidSave { saves.append($0) }
        try other.save()
        _ = token

        #expect(try team("Reds").count(of: \.players) == 2)  // a and c: b, as last read, is marked
        #expect(Set(try team("Reds").players.map(\.name)) == ["a", "c"])

        context.mergeChanges(from: try #require(saves.first))
        #expect(try team("Reds").count(of: \.players) == 3)
        #expect(Set(try team("Reds").players.map(\.name)) == ["a", "b", "c"])
    }

    /// A context that does not merge by itself sees the store change under it: another context
    /// inserts, moves, deletes, marks and unmarks players and saves, while this one changes its own
    /// view, deletes several players at once (their rules count their teams from the stored keys),
    /// saves now and then (the store's version wins a clash), and merges now and then. Each rule's
    /// count must equal the team's players once loaded, and after every step one team's count
    /// too: both read the store as it is now and hide the marks as this context last read them.
    @Test(arguments: 1...6 as ClosedRange<UInt64>)
    func aCountEqualsTheLoadedMembersWhileAnotherContextsSavesWaitToBeMerged(seed: UInt64) throws {
        var random = SeededGenerator(state: seed)
        let container = try ObjectContainer(for: CountedTeam.self, configuration: .inMemory)
        let writer = container.newBackgroundContext()
        let teams = ["Reds", "Blues", "Greens"].map { CountedTeam(name: $0) }
        for index in 0..<12 { writer.insert(CountingPlayer(name: "p\(index)", team: teams[index % 3])) }
        try writer.save()

        let context = container.newBackgroundContext()
        context.automaticallyMergesChanges = false
        context.mergePolicy = .storeTrumps
        let other = container.newBackgroundContext()
        var unmerged: [DidSave] = []
        let token = other.observeDidSave { unmerged.append($0) }
        defer { _ = token }
        var names = 12

        for index in 0..<300 {
            let actor = Bool.random(using: &random) ? context : other
            let players = try actor.fetch(
                FetchDescriptor<CountingPlayer>(sortBy: [SortDescriptor(\.name)], includesMarkedForDeletion: true))
            let teams = try actor.fetch(FetchDescriptor<CountedTeam>(sortBy: [SortDescriptor(\.name)]))
            let player = players.randomElement(using: &random)
            var step: String
            switch Int.random(in: 0..<8, using: &random) {
            case 0:
                names += 1
                actor.insert(CountingPlayer(name: "p\(names)", team: teams.randomElement(using: &random)))
                step = "insert p\(names)"
            case 1, 2:
                player?.team = teams.randomElement(using: &random)
                step = "move \(player?.name ?? "nobody")"
            case 3:
                if let player { actor.delete(player) }
                step = "delete \(player?.name ?? "nobody")"
            case 4:
                player?.markForLocalDeletion()
                step = "mark \(player?.name ?? "nobody")"
            case 5:
                player?.markedForDeletionDate = nil
                step = "unmark \(player?.name ?? "nobody")"
            case 6:
                for save in unmerged { context.mergeChanges(from: save) }
                unmerged = []
                step = "merge"
            default:
                // Several at once: their rules count their teams together, from the stored keys.
                let deleted = Array(players.shuffled(using: &random).prefix(3))
                actor.delete(deleted)
                step = "delete \(deleted.map(\.name)) at once"
                guard actor === context else { break }
                for player in deleted {
                    // A deleted object keeps its links: the team its rule counted.
                    let loaded = player.team.map { $0.players.filter { !$0.isDeleted }.count }
                    #expect(player.countsSeen == loaded.map { [$0, $0] } ?? [], "\(player.name)'s rule, step \(index) (seed \(seed))")
                }
            }
            step += actor === context ? " here" : " elsewhere"
            if actor === other {
                try other.save()
            } else if Int.random(in: 0..<6, using: &random) == 0 {
                do {
                    try context.save()
                    step += ", saved"
                } catch {
                    context.rollback()
                    step += ", rolled back (\(error))"
                }
            }
            // One team at a time: the others' relationships stay unloaded, changes waiting in them,
            // for the rules of the next deletions to count from the stored keys.
            if let team = try context.fetch(FetchDescriptor<CountedTeam>(sortBy: [SortDescriptor(\.name)])).randomElement(using: &random) {
                let counted = team.count(of: \.players)
                let loaded = team.players.filter { !$0.isDeleted }.count
                #expect(counted == loaded, "\(team.name) after step \(index), \(step) (seed \(seed))")
            }
        }
    }

    @Test(arguments: 1...8 as ClosedRange<UInt64>)
    func aCountOfMembersNotLoadedEqualsTheCountByHandAfterEveryMix(seed: UInt64) throws {
        var scenario = try Scenario(seed: seed)
        for _ in 0..<3 { _ = try scenario.step() }
        for index in 0..<160 {
            let step = try scenario.step()
            try scenario.check("step \(index), \(step) (seed \(seed))")
        }
    }
}
