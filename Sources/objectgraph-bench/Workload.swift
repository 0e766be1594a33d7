/// One way of doing a workload's work: untimed preparation, then the timed run.
struct Contender {
    var prepare: () throws -> Void = {}
    var run: () throws -> Void
    /// Untimed check, after each run, that the run did its work (throws ``WorkloadError`` if not).
    var verify: () throws -> Void = {}
}

/// A run that did not leave the store as it should have.
struct WorkloadError: Error, CustomStringConvertible {
    var description: String

    /// Throws unless `actual` equals `expected`.
    static func check<Value: Equatable>(_ what: String, _ actual: Value, _ expected: Value) throws {
        guard actual == expected else { throw WorkloadError(description: "\(what): \(actual), expected \(expected)") }
    }
}

/// A piece of work done several ways in the same process: through ObjectGraph, as plain GRDB
/// statements reading `Row`s (the baseline), as GRDB Codable records (the peer), and through
/// SQLite's C API into plain structs (the raw side, the floor).
struct Workload {
    var name: String
    /// Untimed work done once, before the first run (filling the stores the workload reads).
    var setUp: () throws -> Void = {}
    var objectGraph: Contender
    var baseline: Contender
    var peer: Contender
    /// Nil for a workload whose raw side is not written yet.
    var raw: Contender? = nil
    /// ObjectGraph's own statements replayed through SQLite's C API (``StatementFloor``), for the
    /// write workloads: the floor those statements set. Nil elsewhere.
    var statements: Contender? = nil
    /// Untimed work done once, after the last run: dropping what the workload held (a replay's
    /// recorded statements), so that later workloads do not run in a heap it filled.
    var tearDown: () -> Void = {}
}

extension Workload {
    /// The workload with a replay of ObjectGraph's statements (see ``StatementFloor``), dropped
    /// once the workload is measured.
    func replaying(_ floor: StatementFloor) -> Workload {
        var workload = self
        workload.statements = floor.contender
        workload.tearDown = floor.release
        return workload
    }
}

/// The one side a profiling run measures.
enum ProfiledSide {
    case objectGraph, raw, statements
}

/// The medians of a workload's runs.
struct WorkloadResult: Encodable {
    var workload: String
    var objectgraph_ms: Double
    var baseline_ms: Double
    var peer_ms: Double
    var ratio: Double
    var peak_rss_mb: Double
    /// The raw side's median, and ObjectGraph's ratio to it; nil where the workload has no raw side.
    var raw_ms: Double?
    var raw_ratio: Double?
    /// ObjectGraph's statements replayed in C, and ObjectGraph's ratio to them; nil where the
    /// workload does not replay them.
    var statements_ms: Double? = nil
    var statements_ratio: Double? = nil
    /// The replay's ratio to the raw side: the floor ObjectGraph's statements set.
    var floor_ratio: Double? = nil
}

extension Workload {
    /// Runs each contender `runs` times, interleaved so that drift in the machine hits all three alike,
    /// and keeps the medians. The peak memory is ObjectGraph's. With `only`, one side runs (profiling).
    func measure(runs: Int, only: ProfiledSide? = nil) throws -> WorkloadResult {
        var objectGraphTimes: [Double] = [], baselineTimes: [Double] = [], peerTimes: [Double] = [], rawTimes: [Double] = []
        var statementTimes: [Double] = []
        var peak = 0.0
        try setUp()
        PeakMemory.releaseFreedMemory()
        for _ in 0..<runs {
            if only == .raw, let raw {
                try raw.prepare()
                rawTimes.append(try Measure.run(raw.run).milliseconds)
                try raw.verify()
                continue
            }
            if only == .statements {
                if let statements {
                    try statements.prepare()
                    statementTimes.append(try Measure.run(statements.run).milliseconds)
                    try statements.verify()
                }
                continue
            }
            if only == nil {
                try baseline.prepare()
                baselineTimes.append(try Measure.run(baseline.run).milliseconds)
                try baseline.verify()
                try peer.prepare()
                peerTimes.append(try Measure.run(peer.run).milliseconds)
                try peer.verify()
                if let raw {
                    try raw.prepare()
                    rawTimes.append(try Measure.run(raw.run).milliseconds)
                    try raw.verify()
                }
                if let statements {
                    try statements.prepare()
                    statementTimes.append(try Measure.run(statements.run).milliseconds)
                    try statements.verify()
                }
            }
            try objectGraph.prepare()
            let measurement = try Measure.run(objectGraph.run)
            try objectGraph.verify()
            try ObjectGraphSide.settle()
            objectGraphTimes.append(measurement.milliseconds)
            peak = max(peak, measurement.peakResidentMegabytes)
        }
        tearDown()
        let objectGraphMedian = Measure.median(objectGraphTimes)
        let baselineMedian = Measure.median(baselineTimes)
        let rawMedian = rawTimes.isEmpty ? nil : Measure.median(rawTimes)
        let statementsMedian = statementTimes.isEmpty ? nil : Measure.median(statementTimes)
        var result = WorkloadResult(
            workload: name, objectgraph_ms: objectGraphMedian, baseline_ms: baselineMedian,
            peer_ms: Measure.median(peerTimes),
            ratio: baselineMedian > 0 ? objectGraphMedian / baselineMedian : 0, peak_rss_mb: peak,
            raw_ms: rawMedian, raw_ratio: rawMedian.map { $0 > 0 ? objectGraphMedian / $0 : 0 })
        if let statementsMedian {
            result.statements_ms = statementsMedian
            result.statements_ratio = statementsMedian > 0 ? objectGraphMedian / statementsMedian : 0
            result.floor_ratio = rawMedian.map { $0 > 0 ? statementsMedian / $0 : 0 }
        }
        return result
    }
}
