import ArgumentParser
import Foundation
import SyncServer

/// `objectgraph-sync-bench`: the sync server's bookkeeping against plain SQL through the same
/// driver, and its HTTP service, on SQLite and (given a URL) PostgreSQL.
@main
struct SyncBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "objectgraph-sync-bench",
        abstract: "Measures the sync server against plain SQL writes and reads, on SQLite and PostgreSQL.")

    @Flag(help: "Push 2,000 mutations per run instead of 10,000, for a quick check.")
    var quick = false

    @Option(help: "Write the results as JSON to this file.")
    var json: String?

    @Option(help: "How many times each workload runs; the median is reported.")
    var runs = 5

    @Option(help: "Run only the workloads whose name contains this text.")
    var only: String?

    @Option(help: "A postgres:// URL of an empty database to measure PostgreSQL too (its tables are created).")
    var postgres: String?

    func run() async throws {
        let mutations = quick ? 2_000 : 10_000
        var databases: [(label: String, database: SyncDatabase)] = []
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("objectgraph-sync-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }  // scratch files only
        databases.append(("SQLite", .sqlite(path: directory.appendingPathComponent("server.sqlite").path)))
        if let postgres {
            do {
                databases.append(("PostgreSQL", try SyncDatabase(parsing: postgres)))
            } catch {
                throw ValidationError("--postgres: \(error)")
            }
        }

        print("\(mutations) mutations per run, median of \(runs) runs")
        let only = self.only, runs = self.runs
        var results: [SyncWorkloadResult] = []
        for (label, database) in databases {
            let plainPath = directory.appendingPathComponent("plain-\(label).sqlite").path
            let measured = try await BenchTarget.run(label: label, database: database, plainSQLitePath: plainPath) { target in
                var results: [SyncWorkloadResult] = []
                for workload in SyncWorkloads.make(target, mutations: mutations) where only.map(workload.name.contains) ?? true {
                    let result = try await workload.measure(runs: runs)
                    results.append(result)
                    print(SyncReport.row(result))
                }
                return results
            }
            results += measured
        }
        print()
        print(SyncReport.table(results))
        if let json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(results).write(to: URL(fileURLWithPath: json))
        }
    }
}
