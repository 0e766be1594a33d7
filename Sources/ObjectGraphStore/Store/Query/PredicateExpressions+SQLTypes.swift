public import Foundation
import ObjectGraphModel

// Tests of an object's class, for entity hierarchies: `$0 is WorkEvent` and
// `($0 as? WorkEvent)?.budget` read the row's entity (`Z_ENT`, see `EntityHierarchy`), as Swift
// reads the object's class.

extension PredicateTranslator {
    /// Whether the row `row` reaches is of `entity` or one of its subentities: SQL for the test,
    /// or a constant when the row's own entity answers it (every row of a subentity of `entity`
    /// is one; no row of an entity outside its hierarchy can be).
    fileprivate func isKind(_ row: Row, of entity: EntityMapping) -> SQLFragment {
        if row.mapping.declaration.isKind(of: entity.declaration) { return "1" }
        guard entity.declaration.isKind(of: row.mapping.declaration), let hierarchy = entity.hierarchy,
            let entities = hierarchy.condition
        else { return "0" }
        switch row.access {
        case .alias(let alias):
            return SQLFragment(entities.replacingOccurrences(of: "t0.", with: "\(alias)."))
        case .key(let key), .unmarkedKey(let key, _):
            let column = entities.replacingOccurrences(of: "t0.", with: "")
            return SQLFragment("(SELECT \(column) FROM \(row.mapping.table) WHERE Z_PK = ", key, ")")
        }
    }

    /// The mapping of `type`, an entity of the model, for a cast or a test to it.
    fileprivate func mapping(forCastTo type: Any.Type) throws -> EntityMapping {
        guard let entity = type as? any Entity.Type, let mapping = store.mapping(for: entity._$entity) else {
            throw unsupported("a cast to \(type), which is not an entity of the model")
        }
        return mapping
    }
}

extension PredicateExpressions.TypeCheck: SQLTranslatable {
    package func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        guard case .row(let row) = try translator.translate(input) else {
            throw translator.unsupported("is on something other than an object")
        }
        let test = translator.isKind(row, of: try translator.mapping(forCastTo: Desired.self))
        // A missing object (NULL) is no object of any class: false, as in Swift.
        let key = translator.rowKey(row.access, of: row.mapping)
        return .scalar(
            PredicateTranslator.Scalar(sql: "(" + key + " IS NOT NULL AND " + test + ")", traits: .lenient(row.traits)))
    }
}

extension PredicateExpressions.ConditionalCast: SQLTranslatable {
    package func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Operand {
        guard case .row(let row) = try translator.translate(input) else {
            throw translator.unsupported("as? on something other than an object")
        }
        let mapping = try translator.mapping(forCastTo: Desired.self)
        // The same row when it is of the class, no row otherwise: its properties read NULL, nil.
        let test = translator.isKind(row, of: mapping)
        let key = "(CASE WHEN " + test + " THEN " + translator.rowKey(row.access, of: row.mapping) + " END)"
        return .row(PredicateTranslator.Row(mapping: mapping, access: .key(key), traits: .lenient(row.traits)))
    }
}
