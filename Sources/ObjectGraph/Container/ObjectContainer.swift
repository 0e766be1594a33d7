import Foundation

/// Opens a store for a model and hands out contexts: the main-actor ``viewContext`` and any number of
/// background contexts.
///
/// ```swift
/// let container = try ObjectContainer(for: Mood.self, configuration: .file("moods.sqlite"))
/// let context = container.newBackgroundContext()
/// ```
public final class ObjectContainer: Sendable {
    /// The model.
    public let schema: Schema
    /// Owns the store and delivers each context's commits to the others.
    let coordinator: StoreCoordinator
    /// The rules every save of the container's contexts passes (see ``addSaveRule(named:_:)``).
    let saveRules = Observers<ProposedSave>()
    var store: SQLiteStore { coordinator.store }
    private let viewContextHolder: ViewContextHolder

    /// Opens (creating or migrating if needed) the store for the given entities and every entity
    /// they reach through relationships.
    ///
    /// ```swift
    /// let container = try ObjectContainer(for: Mood.self)                            // the default file
    /// let scratch = try ObjectContainer(for: Mood.self, configuration: .inMemory)     // nothing persisted
    /// ```
    ///
    /// - Parameters:
    ///   - types: Entities of the model; those they are related to join them.
    ///   - configuration: Where the store lives: by default ``StoreConfiguration/default``, a file in
    ///     the user's application support directory.
    /// - Throws: ``ObjectGraphError/invalidModel(_:)``, ``ObjectGraphError/schemaMismatch(_:)``,
    ///   ``ObjectGraphError/incompatibleStore(path:reason:)`` or ``ObjectGraphError/store(_:)``.
    public convenience init(for types: any Entity.Type..., configuration: StoreConfiguration = .default) throws {
        try self.init(schema: Schema(types), configuration: configuration)
    }

    /// Opens (creating or migrating if needed) the store for a schema.
    ///
    /// - Parameters:
    ///   - schema: The model.
    ///   - configuration: Where the store lives: by default ``StoreConfiguration/default``.
    /// - Throws: The errors of ``init(for:configuration:)``.
    public convenience init(schema: Schema, configuration: StoreConfiguration = .default) throws {
        try self.init(schema: schema, migrationPlan: nil, configuration: configuration)
    }

    /// Opens (creating or migrating if needed) the store for a schema, running the stages of a
    /// migration plan when the store is at one of its versions (see ``MigrationPlan``).
    ///
    /// - Parameters:
    ///   - schema: The model: the version the plan's last stage leads to.
    ///   - migrationPlan: The versions the model went through, with the code of each stage.
    ///   - configuration: Where the store lives: by default ``StoreConfiguration/default``.
    /// - Throws: The errors of ``init(for:configuration:)``, ``ObjectGraphError/Code/migrationFailed``
    ///   when a stage fails (the store stays at the version before it), and
    ///   ``ObjectGraphError/Code/invalidModel`` when the plan's stages do not chain to `schema`.
    public init(schema: Schema, migrationPlan: MigrationPlan?, configuration: StoreConfiguration = .default) throws {
        self.schema = schema
        let store = try SQLiteStore(configuration: configuration, schema: schema, migrationPlan: migrationPlan)
        OpenedStores.register(store.mappings.map(\.declaration), store: store.identity.uuid)
        self.coordinator = try StoreCoordinator(store: store, pollingInterval: configuration.historyPollingInterval)
        self.viewContextHolder = ViewContextHolder()
    }

    /// The context for the user interface, bound to the main actor.
    @MainActor public var viewContext: ObjectContext {
        viewContextHolder.context(for: self)
    }

    /// A new context for work off the main actor. It belongs to whoever receives it: keep it in one
    /// actor or task.
    public func newBackgroundContext() -> ObjectContext {
        ObjectContext(owner: self, coordinator: coordinator, saveRules: saveRules)
    }

    /// Runs `body` with a new background context on a background executor.
    ///
    /// - Parameter body: The work; the context is its own, and is released when it returns. Return
    ///   IDs, not objects.
    /// - Returns: What `body` returns.
    public func performBackgroundTask<Result: Sendable>(
        _ body: @escaping @Sendable (ObjectContext) throws -> Result
    ) async throws -> Result {
        try await Task.detached { [self] in
            try body(ObjectContext(owner: self, coordinator: coordinator, saveRules: saveRules))
        }.value
    }

    /// The ID named by a string from ``ObjectID/uriRepresentation``.
    ///
    /// - Parameter string: A permanent ID's string form.
    /// - Throws: ``ObjectGraphError/invalidObjectIDString(_:)`` when the string is not a permanent ID of
    ///   this store.
    public func objectID(forURIRepresentation string: String) throws -> ObjectID {
        guard let parts = ObjectID.parts(ofURIRepresentation: string), parts.store == store.identity.uuid,
            let mapping = store.mapping(named: parts.entity)
        else {
            throw ObjectGraphError.invalidObjectIDString(string)
        }
        return ObjectID(entity: mapping.declaration, key: parts.key, store: store.identity)
    }
}

/// Creates the view context on first use, on the main actor.
private final class ViewContextHolder: @unchecked Sendable {
    // Safety: `storage` is only touched on the main actor (see `context(for:)`).
    private nonisolated(unsafe) var storage: ObjectContext?

    @MainActor func context(for container: ObjectContainer) -> ObjectContext {
        if let storage { return storage }
        // Other contexts' saves, and this context's own changes, are processed on the main actor as
        // soon as it is free (as Core Data does at the end of an event), so that the user interface
        // learns of them without calling `processPendingChanges()`.
        let context = ObjectContext(
            owner: container, coordinator: container.coordinator, saveRules: container.saveRules,
            processSoon: { [weak self] in
                Task { @MainActor in self?.storage?.processPendingChanges() }
            })
        context.name = "view"
        context.isObservable = true  // what SwiftUI views read
        storage = context
        return context
    }
}
