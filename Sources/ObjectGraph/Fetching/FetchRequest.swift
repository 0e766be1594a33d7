public import Foundation

/// What to fetch: the objects of an entity that match a predicate, in an order, optionally a window.
///
/// ```swift
/// var request = FetchRequest<Mood>(predicate: #Predicate { $0.rating > 3 && $0.country?.name == "France" },
///                                  sortBy: [SortDescriptor(\.date, order: .reverse)])
/// request.fetchLimit = 20
/// let moods = try context.fetch(request)
/// ```
public struct FetchRequest<T: Entity> {
    /// The condition objects must meet; nil fetches every object.
    public var predicate: Predicate<T>?
    /// The order of the results: by attributes of `T`. Without one the order is the store's.
    public var sortBy: [SortDescriptor<T>]
    /// The maximum number of results; nil for all.
    public var fetchLimit: Int?
    /// The number of leading results to skip.
    public var fetchOffset: Int
    /// When positive, results are loaded this many at a time, as they are accessed, and objects of
    /// batches no longer accessed can be released: memory follows what is touched.
    public var fetchBatchSize: Int
    /// Whether results reflect the context's unsaved inserts, changes and deletions (the default).
    public var includesPendingChanges: Bool

    /// A request; every part has a default, so `FetchRequest<Mood>()` fetches every mood.
    public init(
        predicate: Predicate<T>? = nil, sortBy: [SortDescriptor<T>] = [],
        fetchLimit: Int? = nil, fetchOffset: Int = 0, fetchBatchSize: Int = 0,
        includesPendingChanges: Bool = true
    ) {
        self.predicate = predicate
        self.sortBy = sortBy
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
        self.fetchBatchSize = fetchBatchSize
        self.includesPendingChanges = includesPendingChanges
    }
}
