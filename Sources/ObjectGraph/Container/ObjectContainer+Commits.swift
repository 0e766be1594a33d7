/// Every commit to a container's store, whoever made it: for code that follows the store as a whole
/// (a sync layer, a search index, a cache), where a context's ``DidSave`` tells of that context's
/// saves only.
extension ObjectContainer {
    /// Calls `handler` with each commit to the store from now on: every context's save, every batch
    /// operation, and the transactions of other processes (or other containers on the same file) as
    /// the history watcher finds them.
    ///
    /// The handler runs on the thread that committed (or that found another process's commit),
    /// after the commit and before the contexts merge it: keep it short, and hand the IDs to the
    /// isolation that acts on them. A ``DidSave`` holds IDs and names only, so it crosses freely.
    ///
    /// - Parameter handler: Called with each commit, from any thread.
    /// - Returns: A token: the handler is called while it lives.
    public func observeCommits(_ handler: @escaping @Sendable (DidSave) -> Void) -> ObservationToken {
        coordinator.commitObservers.add(handler)
    }

    /// The commits to the store from now on (see ``observeCommits(_:)``); the stream ends when its
    /// consumer stops iterating.
    ///
    /// - Parameter bufferingPolicy: What the stream keeps of the commits its consumer has not taken
    ///   yet: by default the 128 newest, so a consumer that falls behind misses the oldest rather
    ///   than making memory grow without bound. Pass `.unbounded` to keep them all, or use
    ///   ``observeCommits(_:)``, which misses none.
    public func commits(
        bufferingPolicy: AsyncStream<DidSave>.Continuation.BufferingPolicy = .bufferingNewest(128)
    ) -> AsyncStream<DidSave> {
        let (stream, continuation) = AsyncStream<DidSave>.makeStream(bufferingPolicy: bufferingPolicy)
        let token = observeCommits { continuation.yield($0) }
        continuation.onTermination = { _ in token.cancel() }
        return stream
    }

    /// The commits to the store from now on, the 128 newest kept while the consumer falls behind:
    /// ``commits(bufferingPolicy:)`` with its default policy.
    public var commits: AsyncStream<DidSave> { commits() }
}
