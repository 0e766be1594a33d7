import Foundation
import Testing

/// The README's first command ends with `moody-sync-demo`: it must play to the end on any machine,
/// a busy one included.
@Suite("The sync demo", .timeLimit(.minutes(5)))
struct SyncDemoTests {
    @Test("The sync demo plays every scene to the end, with nothing left waiting on either device, ten times in a row")
    func playsToTheEnd() async throws {
        let executable = try #require(BuiltExecutable.url(named: "moody-sync-demo"), "moody-sync-demo is built with the tests")
        // Ten plays of half a second each: a wait that misses its wake-up (one device waiting for a
        // change the other makes) shows within them, where one play passes by luck.
        for _ in 1...10 { try await play(executable) }
    }

    private func play(_ executable: URL) async throws {
        let process = try SpawnedProcess(executable, [])
        // Only a hang ends the wait here: the demo gives each of its steps 30 seconds itself.
        guard let exit = await process.exit(within: .seconds(600)) else {
            process.kill()
            throw TestFailure("the sync demo hung: \(process.log.text)")
        }
        let text = exit.output
        #expect(!exit.signaled && exit.code == 0, "\(text)")
        #expect(text.contains("phone: 0 changes waiting") && text.contains("laptop: 0 changes waiting"), "\(text)")
        #expect(text.contains("Done: every change travelled through the server"), "\(text)")
    }
}
