// What a user of ObjectGraph writes against comes from three targets: the model (entities, IDs,
// values, predicates, errors) and the store's public parts (configuration, migrations, history
// consumers) are re-exported, so that `import ObjectGraph` is all an app needs.
@_exported public import ObjectGraphModel
@_exported public import ObjectGraphStore
