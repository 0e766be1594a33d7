package import ObjectGraphModel
import ObjectGraphStore

/// What a request reads of the object graph, as the layers above the context ask it: a list
/// monitor finds with it the objects a change of related objects can move, filter in or out. The
/// store's analysis of the query (`PropertyReads`) stays behind it.
package struct RequestReads {
    fileprivate let reads: PropertyReads

    /// A request that reads nothing.
    package init() { reads = PropertyReads() }

    fileprivate init(_ reads: PropertyReads) { self.reads = reads }

    /// Whether another row than the queried one is read (a relationship's key counts).
    package var followsRelationships: Bool { reads.followsRelationships }

    /// The entities the followed relationships lead to, each once.
    package var followedDestinations: [EntityDeclaration] { reads.followedDestinations }

    /// Whether a change of these properties of an object of `entity` changes what the request reads.
    package func isAffected(by changedKeys: Set<String>, of entity: EntityDeclaration) -> Bool {
        reads.isAffected(by: changedKeys, of: entity)
    }

    /// The to-one relationships the request follows from `entity`: each one's property index, and
    /// the entity it leads to.
    package func followedToOne(from entity: EntityDeclaration) -> [(propertyIndex: Int, destination: EntityDeclaration)] {
        reads.followed.filter { $0.owner === entity && !$0.relationship.isToMany }.map {
            ($0.relationship.propertyIndex, $0.relationship.destinationDeclaration)
        }
    }
}

extension ObjectContext {
    /// What a request's predicate and sort read, entity by entity.
    package func requestReads<T: Entity>(of request: FetchDescriptor<T>) throws -> RequestReads {
        RequestReads(try propertyReads(of: request))
    }

    /// ``objects(readingChangesOf:reads:root:)`` for a request's reads.
    package func objects(
        readingChangesOf changed: [(object: any Entity, changedKeys: Set<String>)],
        reads: RequestReads, root: EntityDeclaration
    ) throws -> [AnyObject] {
        try objects(readingChangesOf: changed, reads: reads.reads, root: root)
    }
}
