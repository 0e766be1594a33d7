import Foundation
import ObjectGraph
import Testing

@Suite("Errors: codes to match, and what each concerns")
struct ErrorTests {
    @Test("SQLite's result codes have names; a pattern of a primary code matches its extended codes, and only those")
    func resultCodes() {
        let unique = StoreError(resultCode: .constraintUnique, message: "UNIQUE constraint failed")
        #expect(unique.resultCode == .constraint && unique.extendedResultCode == .constraintUnique)
        switch unique.extendedResultCode {
        case .busy: Issue.record("a constraint is not busy")
        case .constraint: break
        default: Issue.record("the extended code matches its primary")
        }
        #expect(!(StoreError.ResultCode.constraintUnique ~= .constraintNotNull), "an extended pattern matches itself only")
        let busyRecovery = StoreError.ResultCode(rawValue: 5 | (1 << 8))  // SQLITE_BUSY_RECOVERY
        #expect(StoreError.ResultCode.busy ~= busyRecovery)
        #expect(StoreError(resultCode: busyRecovery, message: "busy").isRetryable)
        #expect(!unique.isRetryable)
    }

    @Test("An error has a code a switch matches with a default, and names the entity, object and property it concerns")
    func codesAndSubjects() throws {
        let container = try ObjectContainer(for: Waypoint.self, configuration: .inMemory)
        let context = container.newBackgroundContext()
        let widget = Waypoint(name: "w")
        context.insert(widget)
        try context.save()
        let error = #expect(throws: ObjectGraphError.self) { try widget.setStoredValue(.integer(1), forKey: "nothing") }
        let thrown = try #require(error)
        switch thrown.code {
        case .invalidPropertyAccess: break
        default: Issue.record("expected invalidPropertyAccess, got \(thrown.code)")
        }
        #expect(thrown.entity == "Waypoint" && thrown.property == "nothing" && thrown.reason?.isEmpty == false)
        #expect(thrown == .invalidPropertyAccess(entity: "Waypoint", property: "nothing", reason: thrown.reason ?? ""))

        let missing = ObjectGraphError.objectNotFound(widget.objectID)
        #expect(missing.code == .objectNotFound && missing.objectID == widget.objectID && missing.entity == "Waypoint")
        let store = ObjectGraphError.store(StoreError(resultCode: .busy, message: "database is locked"))
        #expect(store.storeError?.isRetryable == true && store.entity == nil)
        #expect(Set(ObjectGraphError.Code.all).count == ObjectGraphError.Code.all.count, "codes are distinct")
        #expect(ObjectGraphError.Code.all.map(\.name).contains("validationFailed"))
    }
}
