import Foundation
import ObjectGraph

/// The resident memory a user's process gains by fetching every mood and holding them, measured
/// in a fresh process of its own for each side (issue 49, point 4): in the benchmark's process, a
/// fetch reuses pages earlier workloads freed, and reads less than it costs. The probe opens the
/// store, warms up with a fetch of ten rows (so that code and metadata first touched are not
/// counted), then measures the growth of `VmRSS` while it fetches every row and holds the result.
enum ResidentMemoryProbe {
    /// What a probe fetches and holds.
    enum Side: String {
        case objects, structs
    }

    /// Runs a probe in a child process (this executable, with the hidden `--memory-probe` option)
    /// and returns the megabytes it reports.
    static func measure(_ side: Side, stores: SharedStores) throws -> Double {
        try stores.fill()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let path = side == .objects ? stores.graphPath : stores.plainPath
        process.arguments = ["--memory-probe", side.rawValue, "--memory-probe-store", path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard process.terminationStatus == 0, let megabytes = Double(text) else {
            throw WorkloadError(description: "the \(side) memory probe failed (status \(process.terminationStatus)): \(text)")
        }
        return megabytes
    }

    /// The probe itself, in the child process: prints the megabytes gained.
    static func run(_ side: Side, store path: String) throws {
        let before: Double
        let kept: Any
        switch side {
        case .objects:
            var configuration = StoreConfiguration.file(path)
            configuration.historyPollingInterval = nil
            let container = try ObjectContainer(for: Mood.self, configuration: configuration)
            let context = container.newBackgroundContext()
            for mood in try context.fetch(FetchDescriptor<Mood>(fetchLimit: 10)) { ObjectGraphSide.consume(mood) }
            context.reset()
            before = PeakMemory.currentMegabytes()
            let moods = try context.fetch(FetchDescriptor<Mood>(includesMarkedForDeletion: true)).map { $0 }
            for mood in moods { ObjectGraphSide.consume(mood) }
            kept = (container, context, moods)
        case .structs:
            let database = try RawDatabase(path: path)
            for mood in try RawSQL.moods(database, sql: "SELECT \(PlainSQL.moodColumns) FROM mood LIMIT 10") { mood.consume() }
            before = PeakMemory.currentMegabytes()
            let moods = try RawSQL.moods(database, sql: "SELECT \(PlainSQL.moodColumns) FROM mood")
            for mood in moods { mood.consume() }
            kept = (database, moods)
        }
        let after = PeakMemory.currentMegabytes()
        withExtendedLifetime(kept) {}
        print(after - before)
    }
}
