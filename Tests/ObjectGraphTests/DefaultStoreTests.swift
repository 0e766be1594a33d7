import Foundation
import MoodyModel
import ObjectGraph
import Testing

/// `ObjectContainer(for:)` without a configuration persists, as SwiftData's does (issue 11).
@Suite struct DefaultStoreTests {
    @Test func aContainerWithoutConfigurationKeepsItsObjectsInTheDefaultFile() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("objectgraph-home-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let environment = ["HOME": home.path, "XDG_DATA_HOME": home.appendingPathComponent("data").path]
        // Two runs of a program: the second finds what the first saved.
        for expectedCount in [1, 2] {
            let run = try runTestProcess(["save-to-default-store", "mood \(expectedCount)"], environment: environment)
            #expect(run.status == 0, "\(run.errors)")
            let lines = run.output.split(separator: "\n").map(String.init)
            #expect(lines.last == String(expectedCount))
            let path = try #require(lines.first)
            #expect(path.hasSuffix("/objectgraph-test-process/default.sqlite"))
            #if !canImport(Darwin)  // Foundation reads XDG_DATA_HOME on Linux; Apple's ignores it
                #expect(path.hasPrefix(home.path))
            #endif
            #expect(FileManager.default.fileExists(atPath: path))
        }
    }

    @Test func inMemoryIsOneArgumentAway() throws {
        do {
            let context = try ObjectContainer(for: Mood.self, configuration: .inMemory).newBackgroundContext()
            context.insert(Mood(text: "Gone"))
            try context.save()
        }
        let context = try ObjectContainer(for: Mood.self, configuration: .inMemory).newBackgroundContext()
        #expect(try context.fetchCount(FetchDescriptor<Mood>()) == 0)
    }
}
