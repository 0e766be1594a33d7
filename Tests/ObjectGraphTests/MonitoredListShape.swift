import Foundation
import MoodyModel
import ObjectGraph

/// The lists the randomized list monitor tests follow: sections by an attribute (filter, sort and
/// section keys of the mood itself), sections by a related object's attribute with a filter two
/// relationships away, an unsectioned list, a filter that a country joining Europe satisfies, a
/// window, and batches of faults. Each test takes the shapes it needs.
enum MonitoredListShape: CaseIterable, Sendable {
    case byRating, byCountry, unsectioned, inEurope, window, batched

    /// The date the `byRating` filter starts from; the tests' dates fall around it.
    static let cutoff = Date(timeIntervalSince1970: 1_000)

    var request: FetchDescriptor<Mood> {
        let cutoff = Self.cutoff
        switch self {
        case .byRating:
            return FetchDescriptor(
                predicate: #Predicate { $0.date >= cutoff },
                sortBy: [SortDescriptor(\.rating), SortDescriptor(\.text)])
        case .byCountry:
            return FetchDescriptor(
                predicate: #Predicate { ($0.country?.continent?.name ?? "none") != "Asia" },
                sortBy: [SortDescriptor(\.country?.name), SortDescriptor(\.text)])
        case .unsectioned:
            return FetchDescriptor(
                predicate: #Predicate { $0.rating >= 2 },
                sortBy: [SortDescriptor(\.date, order: .reverse), SortDescriptor(\.text)])
        case .inEurope:
            return FetchDescriptor(
                predicate: #Predicate { $0.country?.continent?.name == "Europe" },
                sortBy: [SortDescriptor(\.date, order: .reverse), SortDescriptor(\.text)])
        case .window:
            var request = FetchDescriptor<Mood>(
                predicate: #Predicate { $0.rating >= 2 },
                sortBy: [SortDescriptor(\.text), SortDescriptor(\.rating)])
            request.fetchLimit = 4
            return request
        case .batched:
            var request = FetchDescriptor<Mood>(
                predicate: #Predicate { $0.rating <= 3 },
                sortBy: [SortDescriptor(\.date), SortDescriptor(\.text)])
            request.fetchBatchSize = 3
            return request
        }
    }

    /// The section of a mood, as the monitor keys it; nil for an unsectioned list.
    var sectionKey: ((Mood) -> String?)? {
        switch self {
        case .byRating: { String($0.rating) }
        case .byCountry: { $0.country?.name }
        case .unsectioned, .inEurope, .window, .batched: nil
        }
    }

    func monitor(in context: ObjectContext) throws -> ListMonitor<Mood> {
        switch self {
        case .byRating: try context.monitorSectionedList(request, sectionBy: SectionBy(\.rating))
        case .byCountry: try context.monitorSectionedList(request, sectionBy: SectionBy(\.country?.name))
        case .unsectioned, .inEurope, .window, .batched: try context.monitorList(request)
        }
    }
}
