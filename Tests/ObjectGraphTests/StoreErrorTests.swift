import ObjectGraph
import Testing

@Suite("Store errors")
struct StoreErrorTests {
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
}
