import Foundation
import ObjectGraph

// Every kind of value a predicate reads, for the tests that hold SQL, the in-memory evaluation and
// Foundation's `evaluate` to one answer (issue 43).

/// `Codable` so that predicates can compare with it, as `#Predicate` requires of its values.
enum ProbeKind: String, Codable, AttributeValue, CaseIterable {
    case alpha, beta, gamma
}

@Entity final class Probe {
    var serial: Int
    var name = ""
    var note: String?
    var number = 0
    var optionalNumber: Int?
    var small: Int16 = 0
    var value = 0.0
    var optionalValue: Double?
    var single: Float = 0
    var amount: Decimal = 0
    var date = Date(timeIntervalSinceReferenceDate: 0)
    var optionalDate: Date?
    var blob = Data()
    var flag = false
    var kind = ProbeKind.alpha
    /// Changed by the tests that need an object with an unsaved change no predicate reads.
    var scratch = 0
    var group: ProbeGroup?
    var tags: Set<ProbeTag> = []
    var remarks: Set<ProbeRemark> = []

    init(serial: Int) { self.serial = serial }
}

@Entity final class ProbeGroup {
    var name: String
    var probes: Set<Probe> = []

    init(name: String) { self.name = name }
}

/// Ordered by weight, so that `max()` and `min()` over a probe's tags translate.
@Entity final class ProbeTag: OrderedByAttribute {
    var label: String
    var weight = 0
    var probes: Set<Probe> = []

    init(label: String, weight: Int = 0) {
        self.label = label
        self.weight = weight
    }

    static var orderingAttribute: any KeyPath<ProbeTag, Int> & Sendable { \.weight }
}

/// Comparable by its own `<`, code SQL cannot run.
@Entity final class ProbeRemark: Comparable {
    var text = ""
    var probe: Probe?

    init() {}

    static func < (lhs: ProbeRemark, rhs: ProbeRemark) -> Bool { lhs.text < rhs.text }
}

/// The three answers a predicate has for a set of probes: SQL's (a fetch from a context holding
/// nothing), the context's own evaluation in memory (every probe holding an unsaved change of
/// `scratch`, which no predicate reads), and Foundation's `evaluate` on the loaded probes; each as
/// the probes' serials, in the fetch's order.
struct ProbeAnswers: Equatable, CustomStringConvertible {
    var sql: [Int]
    var memory: [Int]
    var foundation: [Int]

    var agree: Bool { sql == memory && memory == foundation }
    var description: String { "SQL \(sql), memory \(memory), Foundation \(foundation)" }

    /// Fetches with `predicate` (and `sortBy`, limit, offset) both ways, and evaluates it with
    /// Foundation (sorting with `sorted(using:)`).
    static func of(
        _ predicate: Predicate<Probe>, sortBy: [SortDescriptor<Probe>] = [SortDescriptor(\.serial)],
        limit: Int? = nil, offset: Int = 0, in container: ObjectContainer
    ) throws -> ProbeAnswers {
        let descriptor = FetchDescriptor(predicate: predicate, sortBy: sortBy, fetchLimit: limit, fetchOffset: offset)
        let sql = try container.newBackgroundContext().fetch(descriptor).map(\.serial)
        let touched = container.newBackgroundContext()
        let all = try touched.fetch(FetchDescriptor<Probe>())
        for probe in all { probe.scratch += 1 }
        let memory = try touched.fetch(descriptor).map(\.serial)
        let sorted = try all.filter { try predicate.evaluate($0) }.sorted(using: sortBy + [SortDescriptor(\.serial)])
        let end = limit.map { min(sorted.count, offset + $0) } ?? sorted.count
        let foundation = offset < end ? sorted[offset..<end].map(\.serial) : []
        return ProbeAnswers(sql: sql, memory: memory, foundation: foundation)
    }
}

/// A store of probes made by `configure`, one per call, saved; serials count from 0.
func probeContainer(_ configure: (Int, Probe) -> Void, count: Int) throws -> ObjectContainer {
    let container = try ObjectContainer(for: Probe.self, configuration: .inMemory)
    let context = container.newBackgroundContext()
    for serial in 0..<count {
        let probe = Probe(serial: serial)
        context.insert(probe)
        configure(serial, probe)
    }
    try context.save()
    return container
}

/// A store with one probe per name, serials in the order given.
func probeContainer(names: [String]) throws -> ObjectContainer {
    try probeContainer({ $1.name = names[$0] }, count: names.count)
}
