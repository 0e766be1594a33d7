import Foundation

/// One way of doing a sync workload's work: untimed preparation, then the timed run.
///
/// A run that measures something other than its own duration (a latency percentile, a delay)
/// returns that figure in milliseconds; otherwise it returns nil and its wall time counts.
struct SyncContender: Sendable {
    var prepare: @Sendable () async throws -> Void = {}
    var run: @Sendable () async throws -> Double?
}

/// A piece of the sync server's work done three ways in the same process: through the server's
/// operations in-process (its bookkeeping: ledger, versions, feed), as plain SQL through the same
/// driver with none of it (the baseline), and over HTTP through the running server (the peer).
struct SyncWorkload: Sendable {
    var name: String
    /// How many mutations or changes one run handles, for throughput; 0 when it does not apply.
    var items = 0
    var server: SyncContender
    var plain: SyncContender?
    var http: SyncContender?
}

/// The medians of a workload's runs, in `objectgraph-bench`'s JSON form: `objectgraph_ms` is the
/// server's in-process figure, `baseline_ms` plain SQL's, `peer_ms` the figure over HTTP, and
/// `ratio` server / plain (0 where there is no plain side).
struct SyncWorkloadResult: Encodable {
    var workload: String
    var objectgraph_ms: Double
    var baseline_ms: Double
    var peer_ms: Double
    var ratio: Double
    var peak_rss_mb: Double
    /// Not encoded: the items per second of the in-process and HTTP runs, for the table.
    var items: Int

    private enum CodingKeys: String, CodingKey {
        case workload, objectgraph_ms, baseline_ms, peer_ms, ratio, peak_rss_mb
    }
}

extension SyncWorkload {
    /// Runs each side `runs` times, interleaved so that drift in the machine hits all alike, and
    /// keeps the medians.
    func measure(runs: Int) async throws -> SyncWorkloadResult {
        var server: [Double] = [], plain: [Double] = [], http: [Double] = []
        for _ in 0..<runs {
            if let side = self.plain { plain.append(try await Self.time(side)) }
            if let side = self.http { http.append(try await Self.time(side)) }
            server.append(try await Self.time(self.server))
        }
        let serverMedian = Self.median(server), plainMedian = Self.median(plain)
        return SyncWorkloadResult(
            workload: name, objectgraph_ms: serverMedian, baseline_ms: plainMedian, peer_ms: Self.median(http),
            ratio: plainMedian > 0 ? serverMedian / plainMedian : 0, peak_rss_mb: PeakMemory.megabytes(), items: items)
    }

    private static func time(_ contender: SyncContender) async throws -> Double {
        try await contender.prepare()
        let start = ContinuousClock.now
        let figure = try await contender.run()
        return figure ?? (ContinuousClock.now - start).milliseconds
    }

    static func median(_ values: [Double]) -> Double {
        percentile(50, of: values)
    }

    /// The nearest-rank percentile.
    static func percentile(_ rank: Double, of values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        let index = Int((rank / 100 * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(index, 0), sorted.count - 1)]
    }
}

extension Duration {
    var milliseconds: Double {
        Double(components.seconds) * 1_000 + Double(components.attoseconds) / 1e15
    }
}

/// The process's peak resident memory (Linux: `VmHWM`; elsewhere `getrusage`'s maximum).
enum PeakMemory {
    static func megabytes() -> Double {
        #if os(Linux)
            if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
                let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
            {
                return kilobytes / 1024
            }
        #endif
        var usage = rusage()
        #if os(Linux)
            getrusage(RUSAGE_SELF.rawValue, &usage)
            return Double(usage.ru_maxrss) / 1024
        #else
            getrusage(RUSAGE_SELF, &usage)
            return Double(usage.ru_maxrss) / 1_048_576
        #endif
    }
}

/// The results as a Markdown table, the form BENCHMARKS.md records.
enum SyncReport {
    static let header = """
        | workload | server ms | plain SQL ms | HTTP ms | ratio | server items/s | HTTP items/s |
        | --- | ---: | ---: | ---: | ---: | ---: | ---: |
        """

    static func row(_ result: SyncWorkloadResult) -> String {
        func rate(_ milliseconds: Double) -> String {
            result.items > 0 && milliseconds > 0 ? String(Int((Double(result.items) / milliseconds * 1000).rounded())) : "–"
        }
        return "| \(result.workload) | \(format(result.objectgraph_ms)) | \(format(result.baseline_ms)) "
            + "| \(format(result.peer_ms)) | \(result.ratio > 0 ? format(result.ratio, digits: 2) : "–") "
            + "| \(rate(result.objectgraph_ms)) | \(rate(result.peer_ms)) |"
    }

    static func table(_ results: [SyncWorkloadResult]) -> String {
        ([header] + results.map(row)).joined(separator: "\n")
    }

    private static func format(_ value: Double, digits: Int? = nil) -> String {
        value == 0 ? "–" : String(format: "%.\(digits ?? (abs(value) < 10 ? 2 : 1))f", value)
    }
}
