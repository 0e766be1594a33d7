public import ObjectGraphContext

extension ObjectContext {
    /// The container that made this context; nil once the container is gone.
    public var container: ObjectContainer? { owner as? ObjectContainer }
}
