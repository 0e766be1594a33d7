public import Foundation

// Foundation's `SortDescriptor` sorts only `Comparable` values, and `Bool` is not one: without help,
// `SortDescriptor(\Word.starred)` does not compile, although a list sorted and sectioned by a flag
// is common (CoreStore's examples sort by one). A Bool sort here is a sort by a stand-in, the flag
// as 0 or 1, exactly as SQLite stores and orders it, so that the store and Swift agree; the SQL
// translation and a list monitor's section check see through the stand-in to the attribute.

extension SortDescriptor where Compared: Entity {
    /// Sorts by a `Bool` attribute, `false` first (`.reverse`: `true` first), as the store orders it.
    ///
    /// ```swift
    /// let favoritesFirst = SortDescriptor(\Mood.isFavorite, order: .reverse)
    /// ```
    ///
    /// - Parameters:
    ///   - keyPath: A `Bool` attribute of the entity.
    ///   - order: `.forward` for `false` first.
    public init(_ keyPath: any KeyPath<Compared, Bool> & Sendable, order: SortOrder = .forward) {
        let standIn: KeyPath<Compared, Int> = keyPath.appending(path: \Bool.sortRank)
        BoolSortStandIns.register(standIn, for: keyPath)
        self.init(Self.sendable(standIn), order: order)
    }

    /// Sorts by an optional `Bool` attribute: nil first, then `false`, then `true` (`.reverse`: the
    /// other way round), as the store orders NULL, 0 and 1.
    ///
    /// - Parameters:
    ///   - keyPath: An optional `Bool` attribute of the entity.
    ///   - order: `.forward` for nil first.
    public init(_ keyPath: any KeyPath<Compared, Bool?> & Sendable, order: SortOrder = .forward) {
        let standIn: KeyPath<Compared, Int?> = keyPath.appending(path: \Bool?.?.sortRank)
        BoolSortStandIns.register(standIn, for: keyPath)
        self.init(Self.sendable(standIn), order: order)
    }

    /// The stand-in, typed as Foundation's initializers take it. `appending(path:)` returns a key
    /// path the compiler does not know to be `Sendable`, although it is: it joins a `Sendable` key
    /// path to one that captures nothing, and key paths are immutable. `Sendable` is a marker
    /// protocol, so the existential is the same reference: the cast changes only the static type.
    private static func sendable<Value>(_ keyPath: KeyPath<Compared, Value>) -> any KeyPath<Compared, Value> & Sendable {
        unsafeBitCast(keyPath, to: (any KeyPath<Compared, Value> & Sendable).self)
    }
}

extension SortDescriptor {
    /// The key path of the attribute the descriptor sorts by: for a Bool sort, the attribute's, not
    /// its stand-in's; nil for a descriptor without a key path.
    package var attributeKeyPath: AnyKeyPath? {
        keyPath.map { BoolSortStandIns.attribute(of: $0) ?? $0 }
    }
}

extension Bool {
    /// 0 for `false`, 1 for `true`: the `Comparable` stand-in a Bool sort compares.
    package var sortRank: Int { self ? 1 : 0 }
}

/// The stand-in key paths Bool sorts were made with, each with the attribute's key path.
private enum BoolSortStandIns {
    /// A key path, hashable and shareable: key paths are immutable once made.
    private struct Key: Hashable, @unchecked Sendable {
        package let keyPath: AnyKeyPath
    }

    /// Bounded by the distinct Bool key paths sorted by: equal key paths are one entry.
    private static let attributes = Locked<[Key: Key]>([:])

    package static func register(_ standIn: AnyKeyPath, for attribute: AnyKeyPath) {
        attributes.withLock { $0[Key(keyPath: standIn)] = Key(keyPath: attribute) }
    }

    package static func attribute(of keyPath: AnyKeyPath) -> AnyKeyPath? {
        attributes.withLock { $0[Key(keyPath: keyPath)]?.keyPath }
    }
}
