// swift-tools-version:6.2
import CompilerPluginSupport
import PackageDescription

/// Every target builds in the Swift 6 language mode (complete strict concurrency checking).
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault")
]

/// The targets above the store: a member is visible only in a file that imports its module, so that
/// a layer that does not import the store cannot call what the store declares (SE-0444).
let layeredSettings = strictSettings + [.enableUpcomingFeature("MemberImportVisibility")]

let package = Package(
    name: "ObjectGraph",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11)],
    products: [
        .library(name: "ObjectGraph", targets: ["ObjectGraph"]),
        // The sync server's wire format, shared by the server (Server/) and the sync client.
        .library(name: "ObjectGraphSyncProtocol", targets: ["ObjectGraphSyncProtocol"]),
        // The sync client: keeps a store in step with the sync server of Server/.
        .library(name: "ObjectGraphSync", targets: ["ObjectGraphSync"]),
        // What a sync server decides (what a push does to a zone, what a page of its feed holds),
        // with no storage: the server of Server/ and the in-memory server share it.
        .library(name: "ObjectGraphSyncFeed", targets: ["ObjectGraphSyncFeed"]),
        // An in-memory sync server for an app's tests, and the contract every sync server meets.
        .library(name: "ObjectGraphSyncTesting", targets: ["ObjectGraphSyncTesting"]),
        // The seeds' example model (moods, countries, continents), for the demo and the sync tests.
        .library(name: "MoodyModel", targets: ["MoodyModel"]),
        .executable(name: "moody", targets: ["moody"]),
        .executable(name: "objectgraph-bench", targets: ["objectgraph-bench"])
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.1"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-algorithms", from: "1.2.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // What the sync client ignores or sets aside is logged (the app chooses where logs go).
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // The sync client's TLS to a private certificate authority (AsyncHTTPClient's own TLS).
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // The digest a sync server keeps of each batch, to tell a replay from a reuse of numbers.
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        // `swift package generate-documentation`: CI builds the DocC catalogs and fails on warnings.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0")
    ],
    targets: [
        .macro(
            name: "ObjectGraphMacros",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax")
            ],
            swiftSettings: strictSettings
        ),
        // The library in five layers the compiler holds apart: what an object and a model are
        // (with the errors they throw), the store (the only target that imports GRDB), the context
        // and its coordinator, what is built on a context (fetching, monitors, history, delayed
        // deletion; it reaches the store only through the context, and MemberImportVisibility keeps
        // the store's members out of it), and the container on top, which re-exports the four so
        // that users import ObjectGraph alone.
        .target(
            name: "ObjectGraphModel",
            dependencies: [
                "ObjectGraphMacros",
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "Algorithms", package: "swift-algorithms")
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "ObjectGraphStore",
            dependencies: [
                "ObjectGraphModel",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),  // SQLite's C API, for its limits
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "Algorithms", package: "swift-algorithms")
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "ObjectGraphContext",
            dependencies: [
                "ObjectGraphModel", "ObjectGraphStore",
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "Algorithms", package: "swift-algorithms")
            ],
            swiftSettings: layeredSettings
        ),
        .target(
            name: "ObjectGraphFeatures",
            dependencies: [
                "ObjectGraphModel", "ObjectGraphContext",
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "Algorithms", package: "swift-algorithms")
            ],
            swiftSettings: layeredSettings
        ),
        .target(
            name: "ObjectGraph",
            dependencies: [
                "ObjectGraphModel", "ObjectGraphStore", "ObjectGraphContext", "ObjectGraphFeatures",
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "Algorithms", package: "swift-algorithms")
            ],
            swiftSettings: layeredSettings
        ),
        .target(
            name: "ObjectGraphSyncProtocol",
            swiftSettings: strictSettings
        ),
        .target(
            name: "ObjectGraphSyncFeed",
            dependencies: ["ObjectGraphSyncProtocol", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strictSettings
        ),
        // AsyncHTTPClient is its HTTP client (FoundationNetworking's URLSession keeps a core busy
        // while the live route streams, on Linux).
        .target(
            name: "ObjectGraphSync",
            dependencies: [
                "ObjectGraph", "ObjectGraphSyncProtocol",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl")
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "ObjectGraphSyncTesting",
            dependencies: [
                "ObjectGraphSync", "ObjectGraphSyncFeed", "ObjectGraphSyncProtocol",
                .product(name: "Algorithms", package: "swift-algorithms")
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "MoodyModel",
            dependencies: ["ObjectGraph", "ObjectGraphSync"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "moody",
            dependencies: [
                "MoodyModel", "ObjectGraph", "ObjectGraphSync", "ObjectGraphSyncProtocol",
                .product(name: "ArgumentParser", package: "swift-argument-parser")
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "objectgraph-bench",
            dependencies: [
                "ObjectGraph",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser")
            ],
            swiftSettings: strictSettings
        ),
        // A second process for the tests that need one (two processes on one store file).
        .executableTarget(
            name: "objectgraph-test-process",
            dependencies: ["MoodyModel", "ObjectGraph"],
            path: "Tests/ObjectGraphTestProcess",
            swiftSettings: strictSettings
        ),
        // The sync client's own logic, in process, against the in-memory server.
        .testTarget(
            name: "ObjectGraphSyncTests",
            dependencies: [
                "ObjectGraphSync", "ObjectGraph", "ObjectGraphSyncProtocol", "ObjectGraphSyncFeed", "ObjectGraphSyncTesting",
                "MoodyModel", .product(name: "Logging", package: "swift-log")
            ],
            swiftSettings: strictSettings
        ),
        // The macros' own checks, expanded in process (diagnostics a build cannot show as results).
        .testTarget(
            name: "ObjectGraphMacrosTests",
            dependencies: [
                "ObjectGraphMacros",
                .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax")
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ObjectGraphTests",
            dependencies: [
                "ObjectGraph", "ObjectGraphContext", "ObjectGraphFeatures", "MoodyModel",
                .product(name: "GRDB", package: "GRDB.swift")
            ],
            swiftSettings: strictSettings
        )
    ]
)
