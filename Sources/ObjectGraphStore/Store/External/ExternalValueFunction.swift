package import GRDB

/// `og_external(column)`: the value of an attribute that may be in a file, as bytes: a column's
/// text is the name of the file (see ``ExternalFiles``), read; anything else is the value itself.
/// Predicates and sorts read such attributes through it, so that SQL sees the bytes Swift sees.
/// A file that cannot be read fails the statement, naming it: never a NULL.
package enum ExternalValueFunction {
    package static let name = "og_external"

    /// Adds the function to a connection of the store whose files are `files`.
    package static func register(in db: Database, files: ExternalFiles) {
        let function = DatabaseFunction(name, argumentCount: 1, pure: false) { values in
            guard case .string(let fileName) = values[0].storage else { return values[0] }
            return try files.read(fileName)
        }
        db.add(function: function)
    }
}
