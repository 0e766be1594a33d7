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

/// A piece of work done three ways in the same process: through ObjectGraph, as plain GRDB statements
/// reading `Row`s (the baseline), and as GRDB Codable records (the peer).
struct Workload {
    var name: String
    /// Untimed work done once, before the first run (filling the stores the workload reads).
    var setUp: () throws -> Void = {}
    var objectGraph: Contender
    var baseline: Contender
    var peer: Contender
}

/// The medians of a workload's runs.
struct WorkloadResult: Encodable {
    var workload: String
    var objectgraph_ms: Double
    var baseline_ms: Double
    var peer_ms: Double
    var ratio: Double
    var peak_rss_mb: Double
}

extension Workload {
    /// Runs each contender `runs` times, interleaved so that drift in the machine hits all three alike,
    /// and keeps the medians. The peak memory is ObjectGraph's.
    func measure(runs: Int, onlyObjectGraph: Bool = false) throws -> WorkloadResult {
        var objectGraphTimes: [Double] = [], baselineTimes: [Double] = [], peerTimes: [Double] = []
        var peak = 0.0
        try setUp()
        PeakMemory.releaseFreedMemory()
        for _ in 0..<runs {
            if !onlyObjectGraph {
                try baseline.prepare()
                baselineTimes.append(try Measure.run(baseline.run).milliseconds)
                try baseline.verify()
                try peer.prepare()
                peerTimes.append(try Measure.run(peer.run).milliseconds)
                try peer.verify()
            }
            try objectGraph.prepare()
            let measurement = try Measure.run(objectGraph.run)
            try objectGraph.verify()
            try ObjectGraphSide.settle()
            objectGraphTimes.append(measurement.milliseconds)
            peak = max(peak, measurement.peakResidentMegabytes)
        }
        let objectGraphMedian = Measure.median(objectGraphTimes)
        let baselineMedian = Measure.median(baselineTimes)
        return WorkloadResult(
            workload: name, objectgraph_ms: objectGraphMedian, baseline_ms: baselineMedian,
            peer_ms: Measure.median(peerTimes),
            ratio: baselineMedian > 0 ? objectGraphMedian / baselineMedian : 0, peak_rss_mb: peak)
    }
}
