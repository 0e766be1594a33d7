import Foundation
import GRDB
import ObjectGraph
import Testing

/// A club member: no two share a first and last name, nor an email (SwiftData's own example).
@Entity final class ClubMember {
    #Unique<ClubMember>([\.firstName, \.lastName], [\.email])
    #Index<ClubMember>([\.lastName, \.firstName])
    var firstName: String
    var lastName: String
    var email: String?
    @Relationship(inverse: \Club.members) var club: Club?
    init(_ firstName: String, _ lastName: String, email: String? = nil) {
        self.firstName = firstName
        self.lastName = lastName
        self.email = email
    }
}

/// A club, whose rotas are unique by day: a group with a to-one relationship.
@Entity final class Club {
    @Attribute(.unique) var name: String
    var members: Set<ClubMember> = []
    var rotas: Set<Rota> = []
    init(name: String) { self.name = name }
}

@Entity final class Rota {
    #Unique<Rota>([\.club, \.day])
    #Index<Rota>([\.day, \.club])
    var day: Int
    var note: String = ""
    @Relationship(inverse: \Club.rotas) var club: Club?
    init(day: Int) { self.day = day }
}

/// The same entity as first made, before the groups were declared.
@Entity("ClubMember") final class ClubMemberV1 {
    var firstName: String
    var lastName: String
    var email: String?
    init(_ firstName: String, _ lastName: String, email: String? = nil) {
        self.firstName = firstName
        self.lastName = lastName
        self.email = email
    }
}

/// Models the schema refuses: a to-many relationship in a group, and the side of a one-to-one
/// that does not hold its key.
@Entity final class Roster {
    #Unique<Roster>([\.name, \.players])
    var name: String
    var players: Set<Player> = []
    init(name: String) { self.name = name }
}

@Entity final class Player {
    var name: String
    @Relationship(inverse: \Roster.players) var roster: Roster?
    init(name: String) { self.name = name }
}

@Entity final class Passport {
    var number: String
    @Relationship(inverse: \Traveller.passport) var traveller: Traveller?
    init(number: String) { self.number = number }
}

@Entity final class Traveller {
    // Passport.traveller sorts first: its table holds the key, so this side cannot group it.
    #Unique<Traveller>([\.name, \.passport])
    var name: String
    var passport: Passport?
    init(name: String) { self.name = name }
}

@Suite("#Unique and #Index: groups of properties unique or indexed together")
struct PropertyGroupTests {
    static func container(path: String? = nil) throws -> ObjectContainer {
        try ObjectContainer(for: ClubMember.self, Rota.self, configuration: path.map { .file($0) } ?? .inMemory)
    }

    /// The uniqueness failures of a save, or nil when it saved.
    static func uniquenessFailures(_ save: () throws -> Void) -> [ValidationFailure]? {
        do {
            try save()
            return nil
        } catch let error as ObjectGraphError where error.code == .validationFailed {
            return error.validationFailures
        } catch {
            Issue.record("expected a validation failure, got \(error)")
            return []
        }
    }

    @Test(
        "A save that gives two objects the values of a #Unique group fails, naming the entity, the object and every property of the group, and writes nothing"
    )
    func aGroupIsUniqueTogether() throws {
        let container = try Self.container()
        let context = container.newBackgroundContext()
        context.insert(ClubMember("Ann", "Lee"))
        try context.save()
        let twin = ClubMember("Ann", "Lee", email: "twin@example.com")
        let other = ClubMember("Bob", "Ray")
        context.insert(other)
        context.insert(twin)
        let failures = try #require(Self.uniquenessFailures { try context.save() })
        #expect(failures.map(\.reason) == [.notUniqueTogether(properties: ["firstName", "lastName"], values: [.text("Ann"), .text("Lee")])])
        #expect(failures.map(\.objectID) == [twin.objectID])
        #expect(failures.first?.entity == "ClubMember")
        #expect(failures.first?.description.contains("(firstName, lastName)") == true)
        let reader = container.newBackgroundContext()
        #expect(try reader.fetchCount(FetchDescriptor<ClubMember>()) == 1, "nothing of the failed save was written")
        // Changed to a free combination, it saves.
        twin.firstName = "Anna"
        try context.save()
        #expect(try reader.fetchCount(FetchDescriptor<ClubMember>()) == 3)
    }

    @Test("Objects that share some of a group's values, or whose group holds a nil value, save")
    func partialAndNilValuesDoNotClash() throws {
        let context = try Self.container().newBackgroundContext()
        for member in [ClubMember("Ann", "Lee"), ClubMember("Ann", "Kim"), ClubMember("Bob", "Lee"), ClubMember("Cy", "Ito")] {
            context.insert(member)  // no email: nil clashes with nothing
        }
        try context.save()
        context.insert(ClubMember("Dee", "Fox", email: "d@example.com"))
        context.insert(ClubMember("Eve", "Fox", email: "d@example.com"))
        let failures = try #require(Self.uniquenessFailures { try context.save() })
        #expect(failures.map(\.reason) == [.notUnique(.text("d@example.com"))])
        #expect(failures.map(\.property) == ["email"], "a group of one attribute is that attribute's uniqueness")
    }

    @Test(
        "Text that Swift takes for equal clashes in a group: composed and decomposed accents, and NUL and emoji are values like any other")
    func textThatSwiftTakesForEqualClashes() throws {
        let context = try Self.container().newBackgroundContext()
        context.insert(ClubMember("Ren\u{E9}e", "O\u{0}Neil 🎉"))
        try context.save()
        context.insert(ClubMember("Rene\u{301}e", "O\u{0}Neil 🎉"))
        let failures = try #require(Self.uniquenessFailures { try context.save() })
        #expect(
            failures.map(\.reason) == [
                .notUniqueTogether(properties: ["firstName", "lastName"], values: [.text("Ren\u{E9}e"), .text("O\u{0}Neil 🎉")])
            ])
        context.rollback()
        context.insert(ClubMember("Renee", "O\u{0}Neil 🎉"))
        context.insert(ClubMember("Ren\u{E9}e", "O Neil 🎉"))
        try context.save()
    }

    @Test("Two objects of one save exchange the values of their group")
    func objectsExchangeTheirGroupsValues() throws {
        let container = try Self.container()
        let context = container.newBackgroundContext()
        let ann = ClubMember("Ann", "Lee")
        let bob = ClubMember("Bob", "Lee")
        context.insert(ann)
        context.insert(bob)
        try context.save()
        (ann.firstName, bob.firstName) = (bob.firstName, ann.firstName)
        try context.save()
        let names = try container.newBackgroundContext().fetch(FetchDescriptor<ClubMember>(sortBy: [SortDescriptor(\.firstName)]))
            .map(\.firstName)
        #expect(names == ["Ann", "Bob"])
        #expect(ann.firstName == "Bob" && bob.firstName == "Ann")
    }

    @Test("A group with a to-one relationship compares the related object: one rota per club and day")
    func aGroupWithARelationship() throws {
        let context = try Self.container().newBackgroundContext()
        let chess = Club(name: "Chess")
        let go = Club(name: "Go")
        context.insert(chess)
        context.insert(go)
        for (club, day) in [(chess, 1), (chess, 2), (go, 1)] {
            let rota = Rota(day: day)
            context.insert(rota)
            rota.club = club
        }
        let loose = [Rota(day: 1), Rota(day: 1)]  // no club: nil clashes with nothing
        for rota in loose { context.insert(rota) }
        try context.save()
        let again = Rota(day: 2)
        context.insert(again)
        again.club = chess
        let failures = try #require(Self.uniquenessFailures { try context.save() })
        #expect(failures.map(\.objectID) == [again.objectID])
        guard case .notUniqueTogether(let properties, let values)? = failures.first?.reason else {
            Issue.record("expected notUniqueTogether, got \(failures)")
            return
        }
        #expect(properties == ["club", "day"])
        #expect(values.last == .integer(2))
        #expect(chess.objectID.uriRepresentation.hasSuffix("/p\(values.first.map { "\($0)" } ?? "?")"))
        again.club = go
        try context.save()
    }

    @Test("A batch insert refuses rows that share a group's values, naming the group, and inserts none")
    func batchInsertKeepsGroupsUnique() throws {
        let context = try Self.container().newBackgroundContext()
        let error = #expect(throws: ObjectGraphError.self) {
            try context.batchInsert(
                ClubMember.self,
                values: [
                    ["firstName": "Ann", "lastName": "Lee"], ["firstName": "Bob", "lastName": "Lee"],
                    ["firstName": "Ann", "lastName": "Lee"]
                ])
        }
        #expect(error?.code == .validationFailed)
        #expect(
            error?.validationFailures.map(\.reason) == [
                .notUniqueTogether(properties: ["firstName", "lastName"], values: [.text("Ann"), .text("Lee")])
            ])
        #expect(try context.fetchCount(FetchDescriptor<ClubMember>()) == 0)
    }

    @Test("A batch update that would give two rows a group's values fails, naming every property of the group, and changes nothing")
    func batchUpdateKeepsGroupsUnique() throws {
        let container = try Self.container()
        let context = container.newBackgroundContext()
        for member in [ClubMember("Ann", "Lee"), ClubMember("Ann", "Kim")] { context.insert(member) }
        try context.save()
        let error = #expect(throws: ObjectGraphError.self) {
            try context.batchUpdate(ClubMember.self, set: [.set(\.lastName, to: "Lee")])
        }
        #expect(error?.code == .invalidBatchOperation)
        #expect(error?.entity == "ClubMember")
        #expect(error?.property == "firstName, lastName")
        let reader = container.newBackgroundContext()
        #expect(try reader.fetch(FetchDescriptor<ClubMember>(sortBy: [SortDescriptor(\.lastName)])).map(\.lastName) == ["Kim", "Lee"])
    }

    @Test("A child context's duplicate reaches its parent, whose save fails naming the group; undone, the parent saves")
    func childContextsAndUndo() throws {
        let container = try Self.container()
        let parent = container.newBackgroundContext()
        parent.undoManager = ObjectUndoManager()
        parent.insert(ClubMember("Ann", "Lee"))
        try parent.save()
        let child = parent.newChildContext()
        child.insert(ClubMember("Ann", "Lee"))
        try child.save()  // into the parent: no store, no index yet
        let failures = try #require(Self.uniquenessFailures { try parent.save() })
        #expect(failures.map(\.reason) == [.notUniqueTogether(properties: ["firstName", "lastName"], values: [.text("Ann"), .text("Lee")])])
        parent.undoManager?.undo()
        #expect(parent.hasChanges == false)
        try parent.save()
        #expect(try container.newBackgroundContext().fetchCount(FetchDescriptor<ClubMember>()) == 1)
    }

    @Test("#Index groups and #Unique groups are indexes of the store, which a fetch by their first properties reads")
    func groupsAreIndexes() throws {
        let path = temporaryStorePath()
        let container = try Self.container(path: path)
        let context = container.newBackgroundContext()
        let plan = try context.queryPlan(
            for: FetchDescriptor<ClubMember>(predicate: #Predicate { $0.lastName == "Lee" && $0.firstName == "Ann" }))
        #expect(plan.joined(separator: " ").contains("INDEX"), "\(plan)")
        let rotaPlan = try context.queryPlan(for: FetchDescriptor<Rota>(predicate: #Predicate { $0.day == 3 }))
        #expect(rotaPlan.joined(separator: " ").contains("INDEX"), "\(rotaPlan)")
        let indexes = try DatabaseQueue(path: path).read { db in
            try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('ClubMember', 'Rota')")
                .map { $0["sql"] as String? ?? "" }
        }
        #expect(indexes.contains { $0.contains("UNIQUE") && $0.contains("\"firstName\", \"lastName\"") }, "\(indexes)")
        #expect(indexes.contains { !$0.contains("UNIQUE") && $0.contains("\"lastName\", \"firstName\"") }, "\(indexes)")
        #expect(indexes.contains { $0.contains("UNIQUE") && $0.contains("\"club\", \"day\"") }, "\(indexes)")
        #expect(indexes.contains { $0.contains("\"day\", \"club\"") }, "\(indexes)")
        #expect(indexes.contains { $0.contains("UNIQUE") && $0.contains("(\"email\")") }, "\(indexes)")
    }

    @Test("Opening a store whose rows break a newly declared #Unique group fails naming the rows and their values, and changes nothing")
    func migrationRefusesRowsThatBreakANewGroup() throws {
        let path = temporaryStorePath()
        do {
            let context = try ObjectContainer(for: ClubMemberV1.self, configuration: .file(path)).newBackgroundContext()
            for member in [ClubMemberV1("Ann", "Lee"), ClubMemberV1("Bob", "Ray"), ClubMemberV1("Ann", "Lee")] { context.insert(member) }
            try context.save()
        }
        let error = #expect(throws: ObjectGraphError.self) { _ = try Self.container(path: path) }
        #expect(error?.code == .schemaMismatch)
        #expect("\(error.map { "\($0)" } ?? "")".contains("rows 1, 3 share ('Ann', 'Lee')"), "\(String(describing: error))")
        // Nothing changed: the first version still opens and writes, with no index in its way.
        let context = try ObjectContainer(for: ClubMemberV1.self, configuration: .file(path)).newBackgroundContext()
        context.insert(ClubMemberV1("Bob", "Ray"))
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<ClubMemberV1>()) == 4)
        let tables = try DatabaseQueue(path: path).read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
        }
        #expect(!tables.contains("Rota"), "the failed open created nothing")
    }

    @Test("Opening a store whose rows keep a newly declared group builds its indexes, which hold from then on")
    func migrationAddsGroups() throws {
        let path = temporaryStorePath()
        do {
            let context = try ObjectContainer(for: ClubMemberV1.self, configuration: .file(path)).newBackgroundContext()
            for member in [ClubMemberV1("Ann", "Lee"), ClubMemberV1("Ann", "Kim")] { context.insert(member) }
            try context.save()
        }
        let context = try Self.container(path: path).newBackgroundContext()
        #expect(try context.fetchCount(FetchDescriptor<ClubMember>()) == 2)
        context.insert(ClubMember("Ann", "Kim"))
        let failures = try #require(Self.uniquenessFailures { try context.save() })
        #expect(failures.map(\.reason) == [.notUniqueTogether(properties: ["firstName", "lastName"], values: [.text("Ann"), .text("Kim")])])
    }

    @Test(
        "The schema describes the groups by name, and refuses a to-many relationship in one, or the side of a one-to-one without its key, naming entity and property"
    )
    func theSchemaDescribesAndChecksGroups() throws {
        let schema = try Schema(ClubMember.self)
        let member = try #require(schema.entity(named: "ClubMember"))
        #expect(member.uniquenessConstraints == [["firstName", "lastName"]])
        #expect(member.attribute(named: "email")?.isUnique == true)
        #expect(member.indexes == [["lastName", "firstName"]])
        #expect(member.allUniquenessConstraints == [["email"], ["firstName", "lastName"]])

        let toMany = #expect(throws: ObjectGraphError.self) { _ = try Schema(Roster.self) }
        #expect(toMany?.code == .invalidModel)
        #expect("\(toMany.map { "\($0)" } ?? "")".contains("Roster.players"), "\(String(describing: toMany))")

        let oneToOne = #expect(throws: ObjectGraphError.self) {
            _ = try ObjectContainer(for: Traveller.self, configuration: .inMemory)
        }
        #expect(oneToOne?.code == .invalidModel)
        #expect("\(oneToOne.map { "\($0)" } ?? "")".contains("Traveller.passport"), "\(String(describing: oneToOne))")
    }

    @Test("A model without groups describes and hashes as it did before groups existed, so its stores need no migration")
    func groupsCostNothingToModelsWithout() throws {
        let schema = try Schema(ClubMemberV1.self)
        let json = String(decoding: try JSONEncoder().encode(schema.entities), as: UTF8.self)
        #expect(!json.contains("uniquenessConstraints") && !json.contains("indexes"), "\(json)")
        let decoded = try JSONDecoder().decode([EntityDescription].self, from: Data(json.utf8))
        #expect(decoded == schema.entities)
    }
}
