package import GRDB
import ObjectGraphModel

/// The statements a write transaction runs once per row (inserts and updates), kept for the length
/// of the transaction and found by entity and shape.
///
/// GRDB's statement cache is found by SQL text: an update's text was built, and it and an insert's
/// text were hashed, for every row written, which cost more than binding the row. Here a row's
/// statement is one lookup of a small key, and its text is built once per transaction.
///
/// Invariant: the SQL texts made here (``EntityMapping/insertSQL``,
/// ``EntityMapping/updateSQL(positions:versioned:)``) are run only through this cache, whose
/// statements are bound parameter by parameter (see ``GRDB/Statement/resetForBinding()``). No other
/// code runs them with GRDB arguments, which would replace those bindings.
package final class WriteStatements {
    /// Which statement of an entity.
    package enum Shape: Hashable {
        case insert
        /// An update of the columns at these row positions, with or without a version check.
        case update(positions: [Int], versioned: Bool)
    }

    private struct Key: Hashable {
        package let entity: Int
        package let shape: Shape

        package func hash(into hasher: inout Hasher) {
            hasher.combine(entity)
            hasher.combine(shape)
        }

        /// Looked up once per row written: a few multiplications rather than SipHash over the
        /// entity, the shape and its positions (small numbers of ObjectGraph's own, not input).
        package func _rawHashValue(seed: Int) -> Int {
            var bits = UInt64(UInt(bitPattern: entity)) &* 0x100_0000_01B3
            if case let .update(positions, versioned) = shape {
                bits ^= versioned ? 3 : 1
                for position in positions { bits = bits &* 0x100_0000_01B3 ^ UInt64(UInt(bitPattern: position)) }
            }
            return CheapHash.mix(bits, seed: seed)
        }
    }

    private let db: Database
    // Used by one transaction's writer, never while it is being changed: the runtime's exclusivity
    // checks, two per row written, could not fire.
    @exclusivity(unchecked) private var statements: [Key: Statement] = [:]

    package init(db: Database) {
        self.db = db
    }

    /// The statement of this shape for an entity, prepared (or taken from GRDB's cache) and readied
    /// for direct binding the first time in this transaction.
    package func statement(_ shape: Shape, of mapping: EntityMapping) throws -> Statement {
        let key = Key(entity: mapping.index, shape: shape)
        if let statement = statements[key] {
            // The invariant above: GRDB arguments set since would replace the direct bindings.
            assert(statement.arguments.isEmpty, "a write statement was run with GRDB arguments: \(statement.sql)")
            return statement
        }
        let sql =
            switch shape {
            case .insert: mapping.insertSQL
            case .update(let positions, let versioned): mapping.updateSQL(positions: positions, versioned: versioned)
            }
        let statement = try db.cachedStatement(sql: sql)
        statement.prepareForDirectBinding()
        statements[key] = statement
        return statement
    }
}
