/// Registering for a context's notifications.
///
/// A handler runs on the context's isolation (the main actor for the view context), synchronously,
/// when the context posts; a stream delivers to whoever iterates it. Registrations last as long as
/// their token, streams as long as their iteration.
extension ObjectContext {
    /// Calls `handler` each time the context posts ``ObjectsDidChange``.
    ///
    /// - Parameter handler: Called on the context's isolation.
    /// - Returns: A token: the handler is called while it lives.
    public func observeObjectsDidChange(_ handler: @escaping (ObjectsDidChange) -> Void) -> ObservationToken {
        objectsDidChangeObservers.add(handler)
    }

    /// The ``ObjectsDidChange`` the context posts from now on. Iterate it on the context's isolation.
    public var objectsDidChangeNotifications: AsyncStream<ObjectsDidChange> { objectsDidChangeObservers.stream() }

    /// Calls a list monitor's `handler` with every ``ObjectsDidChange``, those that name no object
    /// but only rows updated elsewhere that this context does not hold
    /// (``ObjectsDidChange/unheldUpdates``) too, before the other observers.
    func observeAsListMonitor(_ handler: @escaping (ObjectsDidChange) -> Void) -> ObservationToken {
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
    public var willSaveNotifications: AsyncStream<WillSave> { willSaveObservers.stream() }

    /// The successful saves of this context from now on.
    public var didSaveNotifications: AsyncStream<DidSave> { didSaveObservers.stream() }
}
