import Foundation
import GRDB
import ObjectGraph
import Testing

/// No value is silently lost or invented (issue 26, point 3): a value that cannot be stored fails the
/// save, and a stored value that no longer converts to its attribute's type is an error naming the
/// entity, attribute and object, with the stored data left as it was.
@Suite struct ValueConversionTests {
    // MARK: Values that cannot be stored

    @Test func anOptionalCodableValueThatCannotBeEncodedFailsTheSaveNamingItsAttribute() throws {
        let container = try ObjectContainer(for: Waypoint.self, configuration: .inMemory)
        let context = container.newBackgroundContext()
        let waypoint = Waypoint(name: "Summit")
        context.insert(waypoint)
        waypoint.target = Coordinates(x: 1, refusesEncoding: true)
        let error = #expect(throws: ObjectGraphError.self) { try context.save() }
        guard let thrown = error, thrown.code == .validationFailed, case let failures = thrown.validationFailures else {
            Issue.record("expected validationFailed, got \(String(describing: error))")
            return
        }
        #expect(failures.count == 1)
        let failure = try #require(failures.first)
        #expect(failure.entity == "Waypoint" && failure.property == "target" && failure.objectID == waypoint.objectID)
        guard case .unstorableValue(let reason) = failure.reason else {
            Issue.record("expected unstorableValue, got \(failure.reason)")
            return
        }
        #expect(reason.contains("refuses to be encoded"))
        #expect("\(failure)".contains("Waypoint.target"))
        #expect(try container.newBackgroundContext().fetchCount(FetchDescriptor<Waypoint>()) == 0, "nothing written")

        // A value that encodes replaces it, and the save goes through.
        waypoint.target = Coordinates(x: 2)
        try context.save()
        let copy = try container.newBackgroundContext().fetch(FetchDescriptor<Waypoint>())
        #expect(copy.first?.target == Coordinates(x: 2))
    }

    @Test func anInitialValueThatCannotBeEncodedFailsTheSaveOfTheNewObject() throws {
        let container = try ObjectContainer(for: Waypoint.self, configuration: .inMemory)
        let context = container.newBackgroundContext()
        let waypoint = Waypoint(name: "Pass")
        waypoint.position = Coordinates(x: 3, refusesEncoding: true)  // before insertion
        context.insert(waypoint)
        let error = #expect(throws: ObjectGraphError.self) { try context.save() }
        guard let thrown = error, thrown.code == .validationFailed, case let failures = thrown.validationFailures else {
            Issue.record("expected validationFailed, got \(String(describing: error))")
            return
        }
        #expect(failures.map(\.property) == ["position"])
        #expect(try container.newBackgroundContext().fetchCount(FetchDescriptor<Waypoint>()) == 0)
    }

    @Test func aSavedObjectGivenAValueThatCannotBeEncodedKeepsItsRow() throws {
        let container = try ObjectContainer(for: Waypoint.self, configuration: .inMemory)
        let context = container.newBackgroundContext()
        let waypoint = Waypoint(name: "Col")
        waypoint.target = Coordinates(x: 4)
        context.insert(waypoint)
        try context.save()

        waypoint.name = "Col du Galibier"
        waypoint.target = Coordinates(x: 5, refusesEncoding: true)
        #expect(throws: ObjectGraphError.self) { try context.save() }
        let reader = container.newBackgroundContext()
        let stored = try reader.existingObject(with: waypoint.objectID, as: Waypoint.self)
        #expect(stored.target == Coordinates(x: 4) && stored.name == "Col", "the row is as it was")

        context.rollback()
        #expect(waypoint.target == Coordinates(x: 4))
        try context.save()  // nothing left to refuse
    }

    @Test func aPredicateOrABatchUpdateWithAValueThatCannotBeEncodedIsRefused() throws {
        let container = try ObjectContainer(for: Waypoint.self, configuration: .inMemory)
        let context = container.newBackgroundContext()
        let waypoint = Waypoint(name: "Ridge")
        waypoint.target = Coordinates(x: 6)
        context.insert(waypoint)
        try context.save()

        let unstorable = Coordinates(x: 7, refusesEncoding: true)
        #expect(throws: ObjectGraphError.self) {
            try context.fetch(FetchDescriptor<Waypoint>(predicate: #Predicate { $0.target == unstorable }))
        }
        let error = #expect(throws: ObjectGraphError.self) {
            try context.batchUpdate(Waypoint.self, set: [.set(\.target, to: unstorable)])
        }
        guard let thrown = error, thrown.code == .invalidBatchOperation, let entity = thrown.entity, case let property = thrown.property
        else {
            Issue.record("expected invalidBatchOperation, got \(String(describing: error))")
            return
        }
        #expect(entity == "Waypoint" && property == "target")
        let stored = try container.newBackgroundContext().existingObject(with: waypoint.objectID, as: Waypoint.self)
        #expect(stored.target == Coordinates(x: 6))
    }

    @Test func aDeclaredDefaultThatCannotBeEncodedIsRefusedWithTheModel() {
        let message = invalidModelMessage { _ = try ObjectContainer(for: UnstorableDefault.self, configuration: .inMemory) }
        #expect(message?.contains("UnstorableDefault.position") == true && message?.contains("refuses to be encoded") == true)
    }

    // MARK: Stored values that do not convert

    /// A store file holding one sample and one waypoint, whose columns `change` then rewrites with
    /// plain SQL, as another program (or an older version of the app) could have left them.
    private static func storeWithForeignValues(_ change: String) async throws -> (path: String, sample: ObjectID, waypoint: ObjectID) {
        let path = temporaryStorePath()
        let (sample, waypoint) = try await withContainer(
            try ObjectContainer(for: Sample.self, Waypoint.self, configuration: .file(path))
        ) { container in
            let context = container.newBackgroundContext()
            let newSample = Sample()
            let newWaypoint = Waypoint(name: "Base")
            newWaypoint.target = Coordinates(x: 8)
            context.insert(newSample)
            context.insert(newWaypoint)
            try context.save()
            return (newSample.objectID, newWaypoint.objectID)
        }
        try await DatabaseQueue(path: path).write { try $0.execute(sql: change) }
        return (path, sample, waypoint)
    }

    /// The error `read` throws, which must be `unreadableValue` naming `property` of `id`.
    private static func expectUnreadable(
        _ id: ObjectID, _ property: String, sourceLocation: SourceLocation = #_sourceLocation,
        _ read: () throws -> Void
    ) {
        let error = #expect(throws: ObjectGraphError.self, sourceLocation: sourceLocation) { try read() }
        guard let thrown = error, thrown.code == .unreadableValue, let failedID = thrown.objectID, let failedProperty = thrown.property,
            let reason = thrown.reason
        else {
            Issue.record("expected unreadableValue, got \(String(describing: error))", sourceLocation: sourceLocation)
            return
        }
        #expect(failedID == id && failedProperty == property && !reason.isEmpty, sourceLocation: sourceLocation)
        #expect("\(error!)".contains("\(id.entityName).\(property)"), sourceLocation: sourceLocation)
    }

    @Test func storedJSONThatNoLongerDecodesIsAnErrorAndStaysAsItWas() async throws {
        // The app's Coordinates gained a required field: the stored JSON lacks it.
        let (path, _, waypointID) = try await Self.storeWithForeignValues(#"UPDATE "Waypoint" SET "target" = CAST('{"y":1}' AS BLOB)"#)
        let container = try ObjectContainer(for: Sample.self, Waypoint.self, configuration: .file(path))
        let context = container.newBackgroundContext()
        let waypoint = try context.existingObject(with: waypointID, as: Waypoint.self)
        Self.expectUnreadable(waypointID, "target") { _ = try waypoint.checkedValue(\.target) }
        #expect(waypoint.target == nil, "the accessor, which cannot throw, reads nil")
        // The next save reports it before writing anything.
        waypoint.name = "Renamed"
        Self.expectUnreadable(waypointID, "target") { try context.save() }
        // Saving a change of another attribute leaves the stored JSON as it was.
        try context.save()
        let raw = try await DatabaseQueue(path: path).read { try Data.fetchOne($0, sql: #"SELECT "target" FROM "Waypoint""#) }
        #expect(raw == Data(#"{"y":1}"#.utf8))
        let name = try await DatabaseQueue(path: path).read { try String.fetchOne($0, sql: #"SELECT "name" FROM "Waypoint""#) }
        #expect(name == "Renamed")
    }

    @Test(arguments: [
        (#"UPDATE "Sample" SET "int" = 'twelve'"#, "int"),
        (#"UPDATE "Sample" SET "int" = 2.5"#, "int"),
        (#"UPDATE "Sample" SET "bool" = 'yes'"#, "bool"),
        (#"UPDATE "Sample" SET "string" = NULL"#, "string"),
        (#"UPDATE "Sample" SET "weather" = 'cloudy'"#, "weather"),
        (#"UPDATE "Sample" SET "uuid" = 'not a UUID'"#, "uuid"),
        (#"UPDATE "Sample" SET "decimal" = 'many'"#, "decimal"),
        (#"UPDATE "Sample" SET "decimal" = '12abc'"#, "decimal"),
        (#"UPDATE "Sample" SET "date" = 'yesterday'"#, "date"),
        (#"UPDATE "Sample" SET "optionalInt" = 'seven'"#, "optionalInt")
    ])
    func aColumnHoldingWhatItsAttributeCannotReadIsAnErrorNotADefault(change: String, property: String) async throws {
        let (path, sampleID, _) = try await Self.storeWithForeignValues(change)
        let container = try ObjectContainer(for: Sample.self, Waypoint.self, configuration: .file(path))
        let context = container.newBackgroundContext()
        let sample = try context.existingObject(with: sampleID, as: Sample.self)
        let reads: [String: (Sample) throws -> Void] = [
            "int": { _ = try $0.checkedValue(\.int) }, "bool": { _ = try $0.checkedValue(\.bool) },
            "string": { _ = try $0.checkedValue(\.string) }, "weather": { _ = try $0.checkedValue(\.weather) },
            "uuid": { _ = try $0.checkedValue(\.uuid) }, "decimal": { _ = try $0.checkedValue(\.decimal) },
            "date": { _ = try $0.checkedValue(\.date) }, "optionalInt": { _ = try $0.checkedValue(\.optionalInt) }
        ]
        let read = try #require(reads[property])
        Self.expectUnreadable(sampleID, property) { try read(sample) }
        Self.expectUnreadable(sampleID, property) { try context.save() }
    }

    @Test func textWithANulCharacterAndEmptyTextAndDataAreStoredWhole() throws {
        let container = try ObjectContainer(for: Sample.self, configuration: .inMemory)
        let context = container.newBackgroundContext()
        let sample = Sample()
        sample.string = "before\u{0}after"
        sample.optionalString = ""
        sample.data = Data([1, 0, 2])
        context.insert(sample)
        try context.save()
        let copy = try container.newBackgroundContext().existingObject(with: sample.objectID, as: Sample.self)
        #expect(copy.string == "before\u{0}after")
        #expect(copy.optionalString == "", "empty text, not NULL")
        #expect(copy.data == Data([1, 0, 2]))

        // An update, and a predicate's value, are bound whole too: SQL finds what Swift finds.
        sample.string = "\u{0}"
        sample.data = Data()
        try context.save()
        let reader = container.newBackgroundContext()
        let updated = try reader.existingObject(with: sample.objectID, as: Sample.self)
        #expect(updated.string == "\u{0}" && updated.data == Data())
        let nul = "\u{0}"
        #expect(try reader.fetchCount(FetchDescriptor<Sample>(predicate: #Predicate { $0.string == nul })) == 1)
        #expect(try reader.fetchCount(FetchDescriptor<Sample>(predicate: #Predicate { $0.string == "" })) == 0)
    }

    /// A decimal NaN is refused at save (issue 43: it orders and equals nothing); one stored before
    /// that, or by another program, still reads back as NaN, not as 0.
    @Test func aDecimalNaNStoredEarlierReadsBackAsNaN() throws {
        let path = temporaryStorePath()
        let container = try ObjectContainer(for: Sample.self, configuration: .file(path))
        let context = container.newBackgroundContext()
        let sample = Sample()
        context.insert(sample)
        try context.save()
        let database = try DatabaseQueue(path: path)
        try database.write { try $0.execute(sql: "UPDATE Sample SET decimal = 'NaN'") }
        let copy = try container.newBackgroundContext().existingObject(with: sample.objectID, as: Sample.self)
        #expect(try copy.checkedValue(\.decimal).isNaN)
    }

    @Test func aPreservedValueThatDoesNotFitItsTypeThrows() throws {
        let container = try ObjectContainer(for: Waypoint.self, configuration: .inMemory)
        let context = container.newBackgroundContext()
        let waypoint = Waypoint(name: "Hut")
        waypoint.code = 42
        context.insert(waypoint)
        try context.save()
        context.delete(waypoint)
        try context.save()
        let deletion = try #require(try container.fetchHistory().last?.changes.first)
        let tombstone = try #require(deletion.tombstone)
        #expect(try tombstone.value("code", as: Int.self) == 42)
        #expect(try tombstone.value("name", as: String.self) == nil, "not preserved")
        #expect(throws: ObjectGraphError.self) { try tombstone.value("code", as: UUID.self) as UUID? }
        #expect(throws: ObjectGraphError.self) { try tombstone.value("code", as: Data.self) as Data? }
    }
}
