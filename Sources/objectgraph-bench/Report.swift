import Foundation

/// The results as a Markdown table, the form BENCHMARKS.md records.
enum Report {
    static let header = """
        | workload | ObjectGraph ms | baseline ms | peer ms | raw ms | ratio | raw ratio | peak RSS MB | statements ms | floor | over statements |
        | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
        """

    static func row(_ result: WorkloadResult) -> String {
        "| \(result.workload) | \(format(result.objectgraph_ms)) | \(format(result.baseline_ms)) "
            + "| \(format(result.peer_ms)) | \(result.raw_ms.map { format($0) } ?? "—") "
            + "| \(format(result.ratio, digits: result.ratio < 0.1 ? 4 : 2)) "
            + "| \(result.raw_ratio.map { format($0, digits: $0 < 0.1 ? 4 : 2) } ?? "—") "
            + "| \(format(result.peak_rss_mb)) "
            + "| \(result.statements_ms.map { format($0) } ?? "—") "
            + "| \(result.floor_ratio.map { format($0, digits: 2) } ?? "—") "
            + "| \(result.statements_ratio.map { format($0, digits: 2) } ?? "—") |"
    }

    static func table(_ results: [WorkloadResult]) -> String {
        ([header] + results.map(row)).joined(separator: "\n")
    }

    /// One decimal, or two below a millisecond, where one would round to nothing.
    private static func format(_ value: Double, digits: Int? = nil) -> String {
        String(format: "%.\(digits ?? (abs(value) < 1 ? 2 : 1))f", value)
    }
}
