import ArgumentParser
import Foundation

extension TextForm: ExpressibleByArgument {}

/// `objectgraph-bench`: ObjectGraph side by side with plain GRDB statements and GRDB records.
@main
struct Benchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "objectgraph-bench",
        abstract: "Measures ObjectGraph against plain SQLite (GRDB rows) and GRDB Codable records.")

    @Flag(help: "Run with 10,000 moods instead of 100,000, for a quick check.")
    var quick = false

    @Option(help: "Write the results as JSON to this file.")
    var json: String?

    @Option(help: "How many times each workload runs; the median is reported.")
    var runs = 5

    @Option(help: "Run only the workloads whose name contains this text.")
    var only: String?

    @Option(help: "The moods' text: ascii, composed (é as one scalar) or decomposed (e and a combining accent).")
    var text = TextForm.ascii

    @Flag(help: ArgumentHelp("Run ObjectGraph's side only, for profiling.", visibility: .hidden))
    var profile = false

    @Flag(help: ArgumentHelp("Run the raw SQLite side only, for profiling against --profile.", visibility: .hidden))
    var profileRaw = false

    @Flag(help: ArgumentHelp("Run the replay of ObjectGraph's statements only, for profiling the floor.", visibility: .hidden))
    var profileStatements = false

    @Option(help: ArgumentHelp("Measure one side's resident memory in this process (see ResidentMemoryProbe).", visibility: .hidden))
    var memoryProbe: String?

    @Option(help: ArgumentHelp("The store the memory probe reads.", visibility: .hidden))
    var memoryProbeStore: String?

    func run() throws {
        if let memoryProbe {
            guard let side = ResidentMemoryProbe.Side(rawValue: memoryProbe), let memoryProbeStore else {
                throw ValidationError("--memory-probe takes objects or structs, and --memory-probe-store a path")
            }
            return try ResidentMemoryProbe.run(side, store: memoryProbeStore)
        }
        let moodCount = quick ? 10_000 : 100_000
        let dataset = Dataset(moodCount: moodCount, countryCount: 1_000, textForm: text)
        let files = try ScratchFiles()
        defer { files.removeAll() }

        print("\(moodCount) moods over \(dataset.countryCount) countries, median of \(runs) runs")
        let core = CoreWorkloads.make(dataset: dataset, iterationRows: moodCount * 10, files: files)
        let workloads =
            core.workloads
            + DeletionWorkloads.make(dataset: dataset, files: files)
            + MergeWorkloads.make(dataset: dataset, files: files)
            + BatchWorkloads.make(dataset: dataset, files: files)
            + GroupWorkloads.make(dataset: dataset, files: files)
            + PrefetchWorkloads.make(core.stores)
            + SearchWorkloads.make(dataset: dataset, files: files)
            + LargeValueWorkloads.make(files: files)
            + HierarchyWorkloads.make(dataset: dataset, files: files)
        let monitorStores = MonitorStores(dataset: Dataset(moodCount: moodCount, countryCount: 10, marksMoods: false), files: files)
        let allWorkloads = workloads + MonitorWorkloads.make(stores: monitorStores)
        var results: [WorkloadResult] = []
        for workload in allWorkloads where only.map(workload.name.contains) ?? true {
            let result = try workload.measure(
                runs: runs, only: profile ? .objectGraph : profileRaw ? .raw : profileStatements ? .statements : nil)
            results.append(result)
            print(Report.row(result))
        }
        if results.contains(where: { $0.workload.hasPrefix("monitor:") }) {
            print(try MonitorWorkloads.memoryReport(monitorStores))
        }
        if results.contains(where: { $0.workload.contains("prefetched") }) {
            print(try PrefetchWorkloads.queryReport(core.stores))
        }
        if results.contains(where: { $0.workload.hasPrefix("fetch all moods") }) {
            print(try CoreWorkloads.memoryReport(core.stores))
        }
        print()
        print(Report.table(results))
        if let json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(results).write(to: URL(fileURLWithPath: json))
        }
    }
}
