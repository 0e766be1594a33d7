import Foundation
import MoodyModel
import ObjectGraph
import Testing

/// A fresh in-memory container for the seeds' model.
func makeContainer() throws -> ObjectContainer {
    try ObjectContainer(for: Mood.self, configuration: .inMemory)
}

/// A path for a store file in a fresh temporary directory.
func temporaryStorePath() -> String {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("objectgraph-tests-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory.appendingPathComponent("store.sqlite").path
}

/// Europe with France and Spain, saved.
func makeEurope(in context: ObjectContext) throws -> (europe: Continent, france: Country, spain: Country) {
    let europe = Continent(name: "Europe")
    let france = Country(name: "France", continent: europe)
    let spain = Country(name: "Spain", continent: europe)
    // Inverses are maintained once objects are in a context; insert each one.
    for object in [france, spain] { context.insert(object) }
    context.insert(europe)
    try context.save()
    return (europe, france, spain)
}

/// The message of the `invalidModel` error `body` throws; records an issue (and returns nil) if it
/// throws nothing or another error.
func invalidModelMessage(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) -> String? {
    let error = #expect(throws: ObjectGraphError.self, sourceLocation: sourceLocation) { try body() }
    guard case .invalidModel(let message)? = error else {
        Issue.record("expected invalidModel, got \(String(describing: error))", sourceLocation: sourceLocation)
        return nil
    }
    return message
}
