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

/// Runs `body` with a new container of `make` and returns once that container is released, its
/// connections closed: a look at the store's files that a save started may hold it a moment after
/// `body` ends (on a busy machine, long enough for a test opening the file next to meet it
/// closing: SQLITE_BUSY, or the log moved into the file).
func withContainer<Result>(
    _ make: @autoclosure () throws -> ObjectContainer, _ body: (ObjectContainer) throws -> Result
) async throws -> Result {
    weak var released: ObjectContainer?
    let result: Result
    do {
        let container = try make()
        released = container
        result = try body(container)
    }
    let deadline = ContinuousClock.now + .seconds(60)
    while released != nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
    try #require(released == nil, "the container was never released")
    return result
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
    guard let thrown = error, thrown.code == .invalidModel, let message = thrown.reason else {
        Issue.record("expected invalidModel, got \(String(describing: error))", sourceLocation: sourceLocation)
        return nil
    }
    return message
}

/// The helper executable next to the test bundle (see Tests/ObjectGraphTestProcess).
func testProcessURL() throws -> URL {
    let candidates = [Bundle.main.executableURL, URL(fileURLWithPath: CommandLine.arguments[0])]
        .compactMap { $0?.deletingLastPathComponent() }
        .flatMap { [$0, $0.deletingLastPathComponent()] }
        .map { $0.appendingPathComponent("objectgraph-test-process") }
    return try #require(
        candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) },
        "objectgraph-test-process is built with the tests (swift build --build-tests)")
}

/// Runs the helper executable to its end, with `environment` added to this process's.
func runTestProcess(_ arguments: [String], environment: [String: String] = [:])
    throws -> (status: Int32, reason: Process.TerminationReason, output: String, errors: String)
{
    let process = Process()
    process.executableURL = try testProcessURL()
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let output = Pipe(), errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    // Read before waiting: a full pipe would block the process forever.
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    let errorData = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (
        process.terminationStatus, process.terminationReason,
        String(decoding: outputData, as: UTF8.self), String(decoding: errorData, as: UTF8.self)
    )
}

/// A deterministic generator (SplitMix64), so that a failing random test names a seed that
/// reproduces it.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
