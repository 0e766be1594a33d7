/// The sizes a request may have; anything larger is refused before it reaches the database.
public struct ServerLimits: Sendable, Hashable {
    /// The largest request body, in bytes (413 above it).
    public var maxBodyBytes: Int
    /// The most mutations in one push (413 above it).
    public var maxMutationsPerPush: Int
    /// The largest record, its fields encoded as JSON, in bytes (413 above it).
    public var maxRecordBytes: Int
    /// The most changes one page of the feed holds (a larger `limit` is lowered to it).
    public var maxPageSize: Int
    /// The most bytes of records' fields one page of the feed holds, cut at whole pushes as the
    /// count is: a push larger than it is served alone. It bounds the server's memory by the reads
    /// it runs at once.
    public var maxPageBytes: Int
    /// The longest entity or field name, in characters (Unicode scalars, as JSON Schema's
    /// `maxLength` counts them; 400 above it).
    public var maxNameLength: Int

    public init(
        maxBodyBytes: Int = 4 << 20, maxMutationsPerPush: Int = 1000, maxRecordBytes: Int = 256 << 10,
        maxPageSize: Int = 1000, maxNameLength: Int = 200, maxPageBytes: Int = 4 << 20
    ) {
        self.maxBodyBytes = maxBodyBytes
        self.maxMutationsPerPush = maxMutationsPerPush
        self.maxRecordBytes = maxRecordBytes
        self.maxPageSize = maxPageSize
        self.maxNameLength = maxNameLength
        self.maxPageBytes = maxPageBytes
    }
}
