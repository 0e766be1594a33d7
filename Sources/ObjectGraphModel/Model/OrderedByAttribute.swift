/// An entity whose objects are ordered by one of their attributes: `Comparable`, with an order
/// SQL applies too, so that `max()` and `min()` over a to-many relationship of them translate.
///
/// ```swift
/// @Entity final class Mood: OrderedByAttribute {
///     var date: Date
///     static var orderingAttribute: any KeyPath<Mood, Date> & Sendable { \.date }
/// }
/// // Countries whose latest mood is from this week:
/// let lately = #Predicate<Country> { ($0.moods.max()?.date ?? .distantPast) >= monday }
/// ```
///
/// Objects whose values are equal are ordered as the store orders them (saved ones by key, then
/// unsaved ones in the order they were made): two objects are never equal in this order, so
/// `max()` has one answer, in SQL as in memory, whatever the order the members are read in.
///
/// An entity's own `<` (any other `Comparable` conformance) is code SQL cannot run: `max()` over
/// its objects is refused with ``ObjectGraphError/unsupportedPredicate(entity:construct:)``.
public protocol OrderedByAttribute: Entity, Comparable {
    /// The type of the attribute that orders the objects.
    associatedtype OrderingValue: Comparable & AttributeValue
    /// The attribute that orders the objects: one of the entity's, not optional.
    static var orderingAttribute: any KeyPath<Self, OrderingValue> & Sendable { get }
}

extension OrderedByAttribute {
    /// Whether `lhs` comes before `rhs`: by ``orderingAttribute``, then in the store's order.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        let left = lhs[keyPath: orderingAttribute], right = rhs[keyPath: orderingAttribute]
        if left < right { return true }
        if right < left { return false }
        return lhs.objectID.precedesInStoreOrder(rhs.objectID)
    }

    /// ``orderingAttribute``, for the translator, which sees the entity as a type only.
    package static var orderingKeyPath: AnyKeyPath { orderingAttribute }
}
