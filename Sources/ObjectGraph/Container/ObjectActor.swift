/// An actor that owns a background context, so that the compiler, not a convention, keeps the work
/// on that context in one place: SwiftData's `ModelActor`.
///
/// Declare one with ``ObjectActor()``:
///
/// ```swift
/// @ObjectActor
/// actor MoodImporter {
///     func importMoods(_ texts: [String]) throws -> Int {
///         for text in texts { objectContext.insert(Mood(text: text)) }
///         try objectContext.save()
///         return try objectContext.fetchCount(FetchDescriptor<Mood>())
///     }
/// }
///
/// let importer = MoodImporter(objectContainer: container)
/// let count = try await importer.importMoods(["Calm", "Busy"])
/// ```
///
/// The context is the actor's: reaching it from outside needs an `await`, and objects fetched in it
/// cannot leave the actor (they are not `Sendable`); pass ``ObjectID``s and values out instead. Its
/// saves reach the container's other contexts as any background context's do, and it merges theirs
/// when it is next used (see ``ObjectContext/automaticallyMergesChanges``). For one-off work,
/// ``ObjectContainer/performBackgroundTask(_:)`` stays the shorter way.
public protocol ObjectActor: Actor {
    /// The container whose store the actor works on.
    nonisolated var objectContainer: ObjectContainer { get }
    /// The actor's own background context.
    var objectContext: ObjectContext { get }
}

extension ObjectActor {
    /// The object with `id`, typed, loaded in the actor's context: for an ID handed to the actor.
    ///
    /// - Throws: ``ObjectGraphError/objectNotFound(_:)`` when there is no such object of type `T`.
    public func existingObject<T: Entity>(with id: ObjectID, as type: T.Type = T.self) throws -> T {
        try objectContext.existingObject(with: id, as: type)
    }
}

/// Makes an actor an ``ObjectActor``: it adds `objectContainer`, `objectContext` (a background context
/// named after the actor) and `init(objectContainer:)`, as visible as the actor.
///
/// The conformance is added by an extension at file level, which cannot see a `private` nested
/// actor: declare a nested one `fileprivate` or wider.
@attached(member, names: named(objectContainer), named(objectContext), named(init(objectContainer:)))
@attached(extension, conformances: ObjectActor)
public macro ObjectActor() = #externalMacro(module: "ObjectGraphMacros", type: "ObjectActorMacro")
