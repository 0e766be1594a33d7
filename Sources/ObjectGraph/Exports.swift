@_exported public import ObjectGraphContext
@_exported public import ObjectGraphFeatures
// What a user of ObjectGraph writes against comes from four targets: the model (entities, IDs,
// values, predicates, errors), the store's public parts (configuration, migrations, history
// consumers), the context (contexts, saving, undo, notifications) and what is built on it
// (fetching, monitors, history, delayed deletion) are re-exported, so that `import ObjectGraph` is
// all an app needs.
@_exported public import ObjectGraphModel
@_exported public import ObjectGraphStore
