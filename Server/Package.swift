// swift-tools-version:6.2
import PackageDescription

// The sync server is a package of its own so that an app depending on the ObjectGraph library
// never resolves or builds Hummingbird, PostgresNIO and the rest of a server's dependencies.
// It shares the wire format with the library's sync client through `ObjectGraphSyncProtocol`.

/// Every target builds in the Swift 6 language mode (complete strict concurrency checking).
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault")
]

let package = Package(
    name: "ObjectGraphSyncServer",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "SyncServer", targets: ["SyncServer"]),
        .executable(name: "objectgraph-sync-server", targets: ["objectgraph-sync-server"]),
        .executable(name: "moody-sync-demo", targets: ["moody-sync-demo"])
    ],
    dependencies: [
        // The repository's root package, named so that the clone's directory name does not matter.
        .package(name: "ObjectGraph", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        // `swift package generate-documentation`: CI builds the DocC catalog and fails on warnings.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0")
    ],
    targets: [
        .target(
            name: "SyncServer",
            dependencies: [
                .product(name: "ObjectGraphSyncProtocol", package: "ObjectGraph"),
                .product(name: "ObjectGraphSyncFeed", package: "ObjectGraph"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "HummingbirdTLS", package: "hummingbird")
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "objectgraph-sync-server",
            dependencies: [
                "SyncServer",
                .product(name: "ObjectGraphSyncFeed", package: "ObjectGraph"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log")
            ],
            swiftSettings: strictSettings
        ),
        // The sync demo: this package's server and two Moody devices, in one process.
        .executableTarget(
            name: "moody-sync-demo",
            dependencies: [
                "SyncServer",
                .product(name: "ObjectGraph", package: "ObjectGraph"),
                .product(name: "ObjectGraphSync", package: "ObjectGraph"),
                .product(name: "ObjectGraphSyncProtocol", package: "ObjectGraph"),
                .product(name: "MoodyModel", package: "ObjectGraph"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "objectgraph-sync-bench",
            dependencies: [
                "SyncServer",
                .product(name: "ObjectGraphSyncProtocol", package: "ObjectGraph"),
                // The sync client's workloads.
                .product(name: "ObjectGraph", package: "ObjectGraph"),
                .product(name: "ObjectGraphSync", package: "ObjectGraph"),
                .product(name: "MoodyModel", package: "ObjectGraph"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
            ],
            swiftSettings: strictSettings
        ),
        // A sync client as a process, for the test that kills it at random points.
        .executableTarget(
            name: "objectgraph-sync-test-client",
            dependencies: [
                .product(name: "ObjectGraph", package: "ObjectGraph"),
                .product(name: "ObjectGraphSync", package: "ObjectGraph"),
                .product(name: "ObjectGraphSyncProtocol", package: "ObjectGraph"),
                .product(name: "ObjectGraphSyncTesting", package: "ObjectGraph"),
                .product(name: "MoodyModel", package: "ObjectGraph")
            ],
            path: "Tests/SyncTestClient",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "SyncServerTests",
            dependencies: [
                "SyncServer",
                .product(name: "ObjectGraphSyncProtocol", package: "ObjectGraph"),
                .product(name: "ObjectGraphSyncFeed", package: "ObjectGraph"),
                // The contract every sync server meets, run against this one.
                .product(name: "ObjectGraphSyncTesting", package: "ObjectGraph"),
                // The sync client, tested against this package's server.
                .product(name: "ObjectGraph", package: "ObjectGraph"),
                .product(name: "ObjectGraphSync", package: "ObjectGraph"),
                .product(name: "MoodyModel", package: "ObjectGraph"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                // A database rolled back to an older schema, for the migrations' tests.
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                // Built for the tests that run the server, or a sync client, as a process and kill it.
                "objectgraph-sync-server",
                "objectgraph-sync-test-client"
            ],
            swiftSettings: strictSettings
        )
    ]
)
