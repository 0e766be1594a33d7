import Foundation

/// The package's executables, which `swift test` builds next to the test bundle, found by name.
enum BuiltExecutable {
    static func url(named name: String) -> URL? {
        let directories = ([Bundle.main.bundleURL] + Bundle.allBundles.map(\.bundleURL)).map {
            $0.pathExtension == "xctest" ? $0.deletingLastPathComponent() : $0
        }
        return directories.map { $0.appendingPathComponent(name) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }
}
