import Foundation

#if os(Linux)
    /// glibc's `malloc_trim` (in `malloc.h`, which the Glibc module does not export).
    @_silgen_name("malloc_trim") private func malloc_trim(_ pad: Int) -> Int32
#endif

/// Wall-clock timing and peak resident memory of one piece of work.
struct Measurement {
    var milliseconds: Double
    var peakResidentMegabytes: Double
}

enum Measure {
    /// Runs `body` once and measures it; the peak memory is the process's high-water mark during the
    /// run (reset before it starts where the system allows).
    static func run(_ body: () throws -> Void) rethrows -> Measurement {
        PeakMemory.reset()
        let clock = ContinuousClock()
        let start = clock.now
        try timedWork(body)
        let elapsed = clock.now - start
        let milliseconds =
            Double(elapsed.components.seconds) * 1_000
            + Double(elapsed.components.attoseconds) / 1e15
        return Measurement(milliseconds: milliseconds, peakResidentMegabytes: PeakMemory.megabytes())
    }

    /// Runs the timed work: a function of its own, never inlined, that a profiler can count alone
    /// (`valgrind --tool=callgrind --toggle-collect='*timedWork*'`).
    @inline(never) static func timedWork(_ body: () throws -> Void) rethrows {
        try body()
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}

/// The process's peak resident set size.
///
/// On Linux the kernel keeps it as `VmHWM` and lets a process reset it (writing 5 to
/// `/proc/self/clear_refs`), so each run gets its own peak, which still includes what the process
/// holds between runs (the stores' connections and caches). Elsewhere it is the peak of the whole
/// process so far, from `getrusage`.
enum PeakMemory {
    static func reset() {
        #if os(Linux)
            try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
        #endif
    }

    /// Gives memory freed by earlier work (another workload, filling a store) back to the system, so
    /// that the next peaks are this workload's. Done once per workload, not per run: trimming before
    /// every run would make each run fault its pages in again, which a running program does not do.
    static func releaseFreedMemory() {
        #if os(Linux)
            _ = malloc_trim(0)
        #endif
    }

    static func megabytes() -> Double {
        #if os(Linux)
            if let kilobytes = statusKilobytes("VmHWM:") { return kilobytes / 1024 }
        #endif
        var usage = rusage()
        #if os(Linux)
            getrusage(RUSAGE_SELF.rawValue, &usage)
            return Double(usage.ru_maxrss) / 1024  // kilobytes
        #else
            getrusage(RUSAGE_SELF, &usage)
            return Double(usage.ru_maxrss) / 1_048_576  // bytes
        #endif
    }

    /// The memory the process holds now (Linux: `VmRSS`; elsewhere the peak, the best available).
    static func currentMegabytes() -> Double {
        #if os(Linux)
            if let kilobytes = statusKilobytes("VmRSS:") { return kilobytes / 1024 }
        #endif
        return megabytes()
    }

    private static func statusKilobytes(_ field: String) -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) })
        else { return nil }
        return Double(line.split(separator: " ").dropFirst().first ?? "")
    }
}
