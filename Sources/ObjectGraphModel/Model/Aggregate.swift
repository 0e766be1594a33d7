import Foundation

/// A value computed over the objects a predicate selects, by SQL: a count, a sum, an average, a
/// minimum or a maximum of an attribute (Core Data's `NSExpression` functions, typed).
///
/// ```swift
/// let stars = try context.aggregate(.sum(\Mood.rating))                        // Int
/// let mean = try context.aggregate(.average(\Mood.rating), where: #Predicate { $0.country?.name == "France" })
/// let latest = try context.aggregate(.maximum(\Mood.date))                      // Date?
/// let byCountry = try context.aggregate(.average(\Mood.rating), groupedBy: \.country?.name)  // [String?: Double?]
/// ```
///
/// The attribute is one of the entity's own or one reached through a to-one relationship
/// (`\Mood.country?.name`). Nil values are left out, as SQL leaves out NULLs: `count(_:)` counts the
/// non-nil values, and the average, minimum and maximum of no value are nil. A sum of integers is an
/// integer, computed exactly (an overflow throws); a sum of floating-point values may differ in its
/// last digits from one summed in another order.
public struct Aggregate<Root: Entity, Result: Sendable>: Sendable {
    package let function: AggregateFunction
    /// The attribute, or nil for the number of objects.
    package let keyPath: (any PartialKeyPath<Root> & Sendable)?
    /// The attribute's value of an object in memory, as stored.
    package let read: @Sendable (Root) throws -> StoredValue
    /// The result from the combined totals.
    package let result: @Sendable (AggregateTotals) throws -> Result

    package init(
        function: AggregateFunction, keyPath: (any PartialKeyPath<Root> & Sendable)?,
        read: @escaping @Sendable (Root) throws -> StoredValue,
        result: @escaping @Sendable (AggregateTotals) throws -> Result
    ) {
        self.function = function
        self.keyPath = keyPath
        self.read = read
        self.result = result
    }

    /// An aggregate of the attribute at `keyPath`.
    package init<Value: AttributeValue>(
        _ function: AggregateFunction, _ keyPath: any KeyPath<Root, Value> & Sendable,
        result: @escaping @Sendable (AggregateTotals) throws -> Result
    ) {
        self.init(function: function, keyPath: keyPath, read: { try $0[keyPath: keyPath].checkedStoredValue() }, result: result)
    }
}

extension Aggregate where Result == Int {
    /// The number of objects (name the entity: `context.aggregate(.count, of: Mood.self)`).
    public static var count: Self {
        Aggregate(function: .count, keyPath: nil, read: { _ in .integer(1) }, result: { Int($0.count) })
    }

    /// The number of objects whose attribute at `keyPath` is not nil.
    public static func count<Value: AttributeValue>(_ keyPath: any KeyPath<Root, Value> & Sendable) -> Self {
        Aggregate(.count, keyPath) { Int($0.count) }
    }
}

extension Aggregate where Result: AttributeValue & Numeric {
    /// The sum of the attribute's values; zero when there is none.
    public static func sum(_ keyPath: any KeyPath<Root, Result> & Sendable) -> Self {
        Aggregate(.sum, keyPath) {
            try Result(checkedStoredValue: $0.sum)
        }
    }

    /// The sum of the attribute's non-nil values; zero when there is none.
    public static func sum(_ keyPath: any KeyPath<Root, Result?> & Sendable) -> Self {
        Aggregate(.sum, keyPath) {
            try Result(checkedStoredValue: $0.sum)
        }
    }
}

extension Aggregate {
    /// The mean of the attribute's non-nil values; nil when there is none.
    public static func average<Value: AttributeValue & Numeric>(_ keyPath: any KeyPath<Root, Value> & Sendable) -> Self
    where Result == Double? {
        Aggregate(.average, keyPath) { $0.average }
    }

    /// The mean of the attribute's non-nil values; nil when there is none.
    public static func average<Value: AttributeValue & Numeric>(_ keyPath: any KeyPath<Root, Value?> & Sendable) -> Self
    where Result == Double? {
        Aggregate(.average, keyPath) { $0.average }
    }

    /// The smallest of the attribute's non-nil values (strings by their UTF-8 bytes, as sorts
    /// compare them); nil when there is none.
    public static func minimum<Value: AttributeValue & Comparable>(_ keyPath: any KeyPath<Root, Value> & Sendable) -> Self
    where Result == Value? {
        Aggregate(.minimum, keyPath) {
            try $0.minimum.map { try Value(checkedStoredValue: $0) }
        }
    }

    /// The smallest of the attribute's non-nil values; nil when there is none.
    public static func minimum<Value: AttributeValue & Comparable>(_ keyPath: any KeyPath<Root, Value?> & Sendable) -> Self
    where Result == Value? {
        Aggregate(.minimum, keyPath) {
            try $0.minimum.map { try Value(checkedStoredValue: $0) }
        }
    }

    /// The largest of the attribute's non-nil values; nil when there is none.
    public static func maximum<Value: AttributeValue & Comparable>(_ keyPath: any KeyPath<Root, Value> & Sendable) -> Self
    where Result == Value? {
        Aggregate(.maximum, keyPath) {
            try $0.maximum.map { try Value(checkedStoredValue: $0) }
        }
    }

    /// The largest of the attribute's non-nil values; nil when there is none.
    public static func maximum<Value: AttributeValue & Comparable>(_ keyPath: any KeyPath<Root, Value?> & Sendable) -> Self
    where Result == Value? {
        Aggregate(.maximum, keyPath) {
            try $0.maximum.map { try Value(checkedStoredValue: $0) }
        }
    }
}

/// A group of an aggregate grouped by two attributes: the pair of values its objects share.
public struct AggregateGroup<First: Hashable & Sendable, Second: Hashable & Sendable>: Hashable, Sendable {
    /// The value of the first attribute grouped by.
    public var first: First
    /// The value of the second attribute grouped by.
    public var second: Second

    /// The group of the objects whose attributes have these values.
    public init(_ first: First, _ second: Second) {
        self.first = first
        self.second = second
    }
}

/// The functions an aggregate computes.
package enum AggregateFunction: String, Sendable {
    case count, sum, average, minimum, maximum
}

/// What an aggregate accumulates over stored values, from SQL's rows and from objects in memory
/// alike, and combines.
package struct AggregateTotals: Sendable {
    package init() {}

    /// Values counted (objects, for a count of objects).
    package var count: Int64 = 0
    /// The sum of integer values, exact; of real values, as a `Double`.
    package var integerSum: Int64 = 0
    package var realSum = 0.0
    package var hasReal = false
    package var minimum: StoredValue?
    package var maximum: StoredValue?

    /// The sum, as stored: an integer unless a real value took part.
    package var sum: StoredValue { hasReal ? .real(realSum + Double(integerSum)) : .integer(integerSum) }

    package var average: Double? { count == 0 ? nil : (realSum + Double(integerSum)) / Double(count) }

    /// Adds one value; nil values are left out, as SQL leaves out NULLs.
    package mutating func add(_ value: StoredValue, entity: String) throws {
        guard !value.isNull else { return }
        try add(count: 1, sum: value, minimum: value, maximum: value, entity: entity)
    }

    /// Adds the totals of several values: those SQL computed over the saved rows, or one value.
    package mutating func add(count: Int64, sum: StoredValue, minimum: StoredValue, maximum: StoredValue, entity: String) throws {
        self.count += count
        switch sum {
        case .integer(let integer):
            let (total, overflow) = integerSum.addingReportingOverflow(integer)
            if overflow { throw Self.overflow(entity) }
            integerSum = total
        case .real(let real):
            realSum += real
            hasReal = true
        default: break
        }
        if !minimum.isNull, self.minimum.map({ minimum < $0 }) ?? true { self.minimum = minimum }
        if !maximum.isNull, self.maximum.map({ maximum > $0 }) ?? true { self.maximum = maximum }
    }

    private static func overflow(_ entity: String) -> ObjectGraphError {
        .store(StoreError(resultCode: .error, message: "integer overflow in a sum of \(entity) values"))
    }
}
