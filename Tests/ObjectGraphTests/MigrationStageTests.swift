import Foundation
import GRDB
import ObjectGraph
import Testing

// Three versions of one entity: V2 splits `name` into two new required attributes, V3 makes
// `email` unique (after its stage merged the duplicates).

@Entity("Person") final class PersonV1 {
    var name: String
    var email: String
    init(name: String, email: String) {
        self.name = name
        self.email = email
    }
}

@Entity("Person") final class PersonV2 {
    var first: String
    var last: String
    var email: String
    init(first: String, last: String, email: String) {
        self.first = first
        self.last = last
        self.email = email
    }
}

@Entity("Person") final class PersonV3 {
    var first: String
    var last: String
    @Attribute(.unique) var email: String
    init(first: String, last: String, email: String) {
        self.first = first
        self.last = last
        self.email = email
    }
}

/// The stages between the versions, as an application would declare them.
enum PeopleMigration {
    static func splitNames(_ migration: MigrationContext) throws {
        for var row in try migration.rows(of: "Person") {
            let parts = try row.value("name", as: String.self)?.split(separator: " ") ?? []
            try row.setValue(parts.first.map(String.init) ?? "", for: "first")
            try row.setValue(parts.dropFirst().joined(separator: " "), for: "last")
            try migration.update(row)
        }
    }

    /// Keeps the first row of each email (the oldest), deletes the others.
    static func mergeDuplicateEmails(_ migration: MigrationContext) throws {
        var seen: Set<String> = []
        for row in try migration.rows(of: "Person") {
            let email = try row.value("email", as: String.self) ?? ""
            if !seen.insert(email).inserted { try migration.delete(row) }
        }
    }

    static func plan(splitting: @escaping MigrationStage.Body = splitNames) throws -> MigrationPlan {
        let v1 = try Schema(PersonV1.self), v2 = try Schema(PersonV2.self), v3 = try Schema(PersonV3.self)
        return MigrationPlan(stages: [
            MigrationStage(from: v1, to: v2, name: "split names", didMigrate: splitting),
            MigrationStage(from: v2, to: v3, name: "unique emails", willMigrate: mergeDuplicateEmails)
        ])
    }
}

@Suite struct MigrationStageTests {
    private func makeV1Store() throws -> String {
        let path = temporaryStorePath()
        let context = try ObjectContainer(for: PersonV1.self, configuration: .file(path)).newBackgroundContext()
        for (name, email) in [
            ("Ada Lovelace", "ada@example.com"), ("Alan Mathison Turing", "alan@example.com"), ("A. Turing", "alan@example.com")
        ] {
            context.insert(PersonV1(name: name, email: email))
        }
        try context.save()
        return path
    }

    private func people(at path: String) throws -> [String] {
        let context = try ObjectContainer(schema: Schema(PersonV3.self), migrationPlan: PeopleMigration.plan(), configuration: .file(path))
            .newBackgroundContext()
        return try context.fetch(FetchDescriptor<PersonV3>(sortBy: [SortDescriptor(\.email)])).map { "\($0.first)|\($0.last)|\($0.email)" }
    }

    private func columns(at path: String) throws -> [String] {
        try DatabaseQueue(path: path).read { try $0.columns(in: "Person").map(\.name) }
    }

    @Test func aStoreTwoVersionsBehindMigratesThroughBothStages() throws {
        let path = try makeV1Store()
        #expect(try people(at: path) == ["Ada|Lovelace|ada@example.com", "Alan|Mathison Turing|alan@example.com"])
        #expect(try columns(at: path) == ["Z_PK", "Z_UUID", "Z_VERSION", "email", "first", "last"])

        // V3's unique constraint holds.
        let context = try ObjectContainer(schema: Schema(PersonV3.self), migrationPlan: PeopleMigration.plan(), configuration: .file(path))
            .newBackgroundContext()
        context.insert(PersonV3(first: "Alan", last: "Turing", email: "alan@example.com"))
        #expect(throws: ObjectGraphError.self) { try context.save() }
    }

    @Test func aStoreOneVersionBehindRunsOnlyTheLastStage() throws {
        let path = temporaryStorePath()
        let context = try ObjectContainer(for: PersonV2.self, configuration: .file(path)).newBackgroundContext()
        context.insert(PersonV2(first: "Grace", last: "Hopper", email: "grace@example.com"))
        context.insert(PersonV2(first: "G.", last: "Hopper", email: "grace@example.com"))
        try context.save()
        #expect(try people(at: path) == ["Grace|Hopper|grace@example.com"])
    }

    @Test func aFailingStageLeavesTheStoreAtItsVersionAndRunsAgainAtTheNextOpen() throws {
        let path = try makeV1Store()
        struct Interrupted: Error {}
        let failing = try PeopleMigration.plan(splitting: { migration in
            try PeopleMigration.splitNames(migration)
            throw Interrupted()
        })
        let error = #expect(throws: ObjectGraphError.self) {
            try ObjectContainer(schema: Schema(PersonV3.self), migrationPlan: failing, configuration: .file(path))
        }
        #expect(error?.code == .migrationFailed && error?.migrationStage == "split names")
        // Nothing of the stage stayed: the store is the first version, its rows untouched.
        #expect(try columns(at: path) == ["Z_PK", "Z_UUID", "Z_VERSION", "name", "email"])
        let v1 = try ObjectContainer(for: PersonV1.self, configuration: .file(path)).newBackgroundContext()
        #expect(try v1.fetchCount(FetchDescriptor<PersonV1>()) == 3)

        #expect(try people(at: path) == ["Ada|Lovelace|ada@example.com", "Alan|Mathison Turing|alan@example.com"])
    }

    @Test func aStageThatLeavesARequiredAttributeEmptyFailsNamingTheRow() throws {
        let path = try makeV1Store()
        let forgetful = try PeopleMigration.plan(splitting: { migration in
            for var row in try migration.rows(of: "Person") {
                try row.setValue("x", for: "first")  // `last` left empty
                try migration.update(row)
            }
        })
        let error = #expect(throws: ObjectGraphError.self) {
            try ObjectContainer(schema: Schema(PersonV3.self), migrationPlan: forgetful, configuration: .file(path))
        }
        #expect(error?.code == .migrationFailed && error?.entity == "Person" && error?.property == "last")
        #expect(error?.reason?.contains("row 1") == true)
        #expect(try columns(at: path) == ["Z_PK", "Z_UUID", "Z_VERSION", "name", "email"])
    }

    @Test func aPlanWhoseStagesDoNotChainIsRefused() throws {
        let v1 = try Schema(PersonV1.self), v3 = try Schema(PersonV3.self)
        let plan = MigrationPlan(stages: [MigrationStage(from: v1, to: v3), MigrationStage(from: v1, to: v3)])
        let error = #expect(throws: ObjectGraphError.self) {
            try ObjectContainer(schema: v3, migrationPlan: plan, configuration: .inMemory)
        }
        #expect(error?.code == .invalidModel)
    }

    @Test func withoutAPlanTheSameChangeIsRefusedAndTheFileUntouched() throws {
        let path = try makeV1Store()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let error = #expect(throws: ObjectGraphError.self) { try ObjectContainer(for: PersonV2.self, configuration: .file(path)) }
        #expect(error?.code == .schemaMismatch)
        #expect(error?.schemaDifferences.contains { $0.isMigratedByAStage && $0.location == "Person.name" } == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func aStageCanReadAConvertedValueAndNamesAWrongType() throws {
        let path = try makeV1Store()
        let plan = try PeopleMigration.plan(splitting: { migration in
            _ = try migration.rows(of: "Person").first?.value("name", as: Int.self)
        })
        let error = #expect(throws: ObjectGraphError.self) {
            try ObjectContainer(schema: Schema(PersonV3.self), migrationPlan: plan, configuration: .file(path))
        }
        #expect(error?.code == .migrationFailed && error?.property == "name")
        #expect(error?.migrationStage == "split names")
    }
}

extension MigrationStageTests {
    /// A process killed in the middle of a stage: SQLite's transaction takes the stage back, and
    /// the next open runs it again.
    @Test func aStageInterruptedByACrashRunsAgainAtTheNextOpen() throws {
        let path = try makeV1Store()
        let result = try runTestProcess(["crash-in-migration-stage", path])
        #expect(result.reason == .uncaughtSignal && result.status == SIGKILL, "\(result.errors)")
        #expect(try columns(at: path) == ["Z_PK", "Z_UUID", "Z_VERSION", "name", "email"])
        #expect(try people(at: path) == ["Ada|Lovelace|ada@example.com", "Alan|Mathison Turing|alan@example.com"])
    }
}
