import ObjectGraphModel

/// Registering for a context's notifications.
///
/// A handler runs on the context's isolation (the main actor for the view context), synchronously,
/// when the context posts, and misses nothing; a stream delivers to whoever iterates it, keeping
/// what its consumer has not taken yet as its buffering policy says: by default the 128 newest
/// values, so a consumer that falls behind misses the oldest rather than making memory grow without
/// bound (pass `.unbounded` to keep them all). Registrations last as long as their token, streams
/// as long as their iteration.
extension ObjectContext {
    /// Calls `handler` each time the context posts ``ObjectsDidChange``.
    ///
    /// - Parameter handler: Called on the context's isolation.
    /// - Returns: A token: the handler is called while it lives.
    public func observeObjectsDidChange(_ handler: @escaping (ObjectsDidChange) -> Void) -> ObservationToken {
        objectsDidChangeObservers.add(handler)
    }

    /// The ``ObjectsDidChange`` the context posts from now on. Iterate it on the context's isolation.
    ///
    /// - Parameter bufferingPolicy: What the stream keeps of the notifications not taken yet; by
    ///   default the 128 newest.
    public func objectsDidChangeNotifications(
        bufferingPolicy: AsyncStream<ObjectsDidChange>.Continuation.BufferingPolicy = .bufferingNewest(128)
    ) -> AsyncStream<ObjectsDidChange> {
        objectsDidChangeObservers.stream(bufferingPolicy: bufferingPolicy)
    }

    /// The ``ObjectsDidChange`` the context posts from now on, the 128 newest kept while the consumer
    /// falls behind: ``objectsDidChangeNotifications(bufferingPolicy:)`` with its default policy.
    public var objectsDidChangeNotifications: AsyncStream<ObjectsDidChange> { objectsDidChangeNotifications() }

    /// Calls a list monitor's `handler` with every ``ObjectsDidChange``, those that name no object
    /// but only rows updated elsewhere that this context does not hold
    /// (``ObjectsDidChange/unheldUpdates``) too, before the other observers.
    package func observeAsListMonitor(_ handler: @escaping (ObjectsDidChange) -> Void) -> ObservationToken {
        listMonitorObservers.add(handler)
    }

    /// Calls `handler` when a save of this context begins, before validation.
    ///
    /// - Parameter handler: Called on the context's isolation.
    /// - Returns: A token: the handler is called while it lives.
    public func observeWillSave(_ handler: @escaping (WillSave) -> Void) -> ObservationToken {
        willSaveObservers.add(handler)
    }

    /// Calls `handler` after each successful save of this context.
    ///
    /// - Parameter handler: Called on the context's isolation.
    /// - Returns: A token: the handler is called while it lives.
    public func observeDidSave(_ handler: @escaping (DidSave) -> Void) -> ObservationToken {
        didSaveObservers.add(handler)
    }

    /// The saves of this context that begin from now on.
    ///
    /// - Parameter bufferingPolicy: What the stream keeps of the notifications not taken yet; by
    ///   default the 128 newest.
    public func willSaveNotifications(
        bufferingPolicy: AsyncStream<WillSave>.Continuation.BufferingPolicy = .bufferingNewest(128)
    ) -> AsyncStream<WillSave> {
        willSaveObservers.stream(bufferingPolicy: bufferingPolicy)
    }

    /// The saves of this context that begin from now on, the 128 newest kept while the consumer
    /// falls behind: ``willSaveNotifications(bufferingPolicy:)`` with its default policy.
    public var willSaveNotifications: AsyncStream<WillSave> { willSaveNotifications() }

    /// The successful saves of this context from now on.
    ///
    /// - Parameter bufferingPolicy: What the stream keeps of the notifications not taken yet; by
    ///   default the 128 newest.
    public func didSaveNotifications(
        bufferingPolicy: AsyncStream<DidSave>.Continuation.BufferingPolicy = .bufferingNewest(128)
    ) -> AsyncStream<DidSave> {
        didSaveObservers.stream(bufferingPolicy: bufferingPolicy)
    }

    /// The successful saves of this context from now on, the 128 newest kept while the consumer
    /// falls behind: ``didSaveNotifications(bufferingPolicy:)`` with its default policy.
    public var didSaveNotifications: AsyncStream<DidSave> { didSaveNotifications() }
}
