/// Where a container keeps its data.
public struct StoreConfiguration: Sendable {
    enum Location: Sendable {
        case file(String)
        case inMemory
    }

    let location: Location

    /// An SQLite file in WAL mode (many readers, one writer), created if missing.
    public static func file(_ path: String) -> StoreConfiguration {
        StoreConfiguration(location: .file(path))
    }

    /// A store that lives in memory and disappears with its container. Useful for tests.
    public static var inMemory: StoreConfiguration {
        StoreConfiguration(location: .inMemory)
    }
}
