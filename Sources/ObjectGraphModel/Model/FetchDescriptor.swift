public import Foundation

/// What to fetch: the objects of an entity that match a predicate, in an order, optionally a window.
///
/// ```swift
/// var descriptor = FetchDescriptor<Mood>(
///     predicate: #Predicate { $0.rating > 3 && $0.country?.name == "France" },
///     sortBy: [SortDescriptor(\.date, order: .reverse)])
/// descriptor.fetchLimit = 20
/// let moods = try context.fetch(descriptor)
/// ```
///
/// The predicate and the sort run as SQL; <doc:Fetching> lists the forms they may take.
public struct FetchDescriptor<T: Entity>: Sendable {
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
    /// Whether objects marked for deletion (``DelayedDeletable``) are fetched too. False by default:
    /// a marked object is hidden from every fetch of its entity, as if it were gone.
    public var includesMarkedForDeletion: Bool
    /// Relationships whose objects are loaded with the results, as SwiftData's descriptor names
    /// them: a relationship of `T` (`\.country`, `\.moods`), or a chain of to-one relationships
    /// (`\.country?.continent`). Each level is read set-wise, a query per chunk of keys (every
    /// object of the level at once, not one per object as touching each would), so that reading
    /// `mood.country?.name` across the results reads nothing more. Objects already loaded are kept
    /// as they are. With a batch size, each batch prefetches as it is loaded.
    public var relationshipKeyPathsForPrefetching: [any PartialKeyPath<T> & Sendable] = []
    /// The properties the results are read with, as SwiftData's descriptor names them: attributes,
    /// and to-one relationships (their keys); empty reads every property. A result read this way
    /// is a fault whose listed values are answered without a query; the first read of another
    /// property loads its row whole. The attributes the sort reads, and the to-one relationships
    /// prefetching starts from, are read too. Objects the context already holds keep their values;
    /// a child context, and a fetch with a batch size, read whole rows.
    public var propertiesToFetch: [any PartialKeyPath<T> & Sendable] = []

    /// A descriptor; every part has a default, so `FetchDescriptor<Mood>()` fetches every mood.
    ///
    /// - Parameters:
    ///   - predicate: The condition objects must meet; nil for every object.
    ///   - sortBy: The order of the results; empty for the store's order.
    ///   - fetchLimit: The maximum number of results; nil for all.
    ///   - fetchOffset: The number of leading results to skip.
    ///   - fetchBatchSize: When positive, how many results are loaded at a time, as they are accessed.
    ///   - includesPendingChanges: Whether results reflect the context's unsaved changes.
    ///   - includesMarkedForDeletion: Whether objects marked for deletion are fetched too.
    public init(
        predicate: Predicate<T>? = nil, sortBy: [SortDescriptor<T>] = [],
        fetchLimit: Int? = nil, fetchOffset: Int = 0, fetchBatchSize: Int = 0,
        includesPendingChanges: Bool = true, includesMarkedForDeletion: Bool = false
    ) {
        self.includesMarkedForDeletion = includesMarkedForDeletion
        self.predicate = predicate
        self.sortBy = sortBy
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
        self.fetchBatchSize = fetchBatchSize
        self.includesPendingChanges = includesPendingChanges
    }
}
