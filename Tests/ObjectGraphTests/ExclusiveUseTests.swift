import Foundation
import Testing

/// A context used from two threads at once traps in debug builds, naming the context, as Core Data's
/// concurrency debugging does (issue 11). Run in a second process, which the trap ends.
@Suite struct ExclusiveUseTests {
    #if DEBUG
        @Test func aContextUsedFromTwoThreadsAtOnceTrapsNamingIt() throws {
            let run = try runTestProcess(
                ["use-context-from-two-threads", "importer"],
                environment: ["SWIFT_BACKTRACE": "enable=no"])
            #expect(run.reason == .uncaughtSignal)
            #expect(!run.output.contains("not trapped"))
            #expect(run.errors.contains("context \"importer\" is used on thread"), "\(run.errors)")
            #expect(run.errors.contains("pass ObjectIDs to other threads"))
        }
    #endif

    @Test func aContextHandedFromOneThreadToAnotherIsNotATrap() throws {
        let run = try runTestProcess(["hand-context-between-threads"], environment: ["SWIFT_BACKTRACE": "enable=no"])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output == "handed over\n")
    }
}
