// swift-tools-version: 6.1
import PackageDescription

/// Settings shared by every Swift target of the package.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "mirror_bot",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "mirror_bot", targets: ["mirror_bot"]),
        .executable(name: "fake-x", targets: ["fake-x"]),
        .executable(name: "mirror_bot_benchmarks", targets: ["MirrorBotBenchmarks"]),
        .executable(name: "likes-benchmark", targets: ["LikesBenchmark"]),
        .executable(name: "storage-year-benchmark", targets: ["StorageBenchmark"]),
        .executable(name: "remix-benchmark", targets: ["RemixBenchmark"]),
    ],
    dependencies: [
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket.git", from: "1.6.2"),
        .package(url: "https://github.com/weichsel/ZIPFoundation.git", from: "0.9.20"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
    ],
    targets: [
        // MARK: C libraries, each imported by exactly one Swift target.
        .systemLibrary(
            name: "CHiredis",
            path: "Sources/Stores/Redis/CHiredis",
            pkgConfig: "hiredis",
            providers: [.apt(["libhiredis-dev"])]
        ),
        .systemLibrary(
            name: "CMeCab",
            path: "Sources/Core/CMeCab",
            providers: [.apt(["libmecab-dev", "mecab-ipadic-utf8"])]
        ),
        .systemLibrary(
            name: "CCBOR",
            path: "Sources/Networks/Bluesky/CCBOR",
            pkgConfig: "libcbor",
            providers: [.apt(["libcbor-dev"])]
        ),

        // MARK: Libraries.
        .target(
            name: "BotCore",
            path: "Sources/Core/BotCore",
            swiftSettings: strictSettings
        ),
        .target(
            name: "BotConfiguration",
            dependencies: ["BotCore"],
            path: "Sources/Core/BotConfiguration",
            swiftSettings: strictSettings
        ),
        .target(
            name: "PostText",
            path: "Sources/Core/PostText",
            swiftSettings: strictSettings
        ),
        .target(
            name: "ExportFormats",
            dependencies: ["BotCore", "Stores", .product(name: "ZIPFoundation", package: "ZIPFoundation")],
            path: "Sources/Ports/ExportFormats",
            swiftSettings: strictSettings
        ),
        .target(
            name: "SocialNetwork",
            dependencies: [
                "BotCore", "BotClock", "BotConfiguration", "PostText", "Stores",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Sources/Ports/SocialNetwork",
            swiftSettings: strictSettings
        ),
        .target(
            name: "Stores",
            dependencies: ["BotCore", "BotClock", "WordCounts", .product(name: "Logging", package: "swift-log")],
            path: "Sources/Ports/Stores",
            swiftSettings: strictSettings
        ),
        .target(
            name: "PostgresStores",
            dependencies: [
                "Stores", "BotConfiguration", "BotClock", "PostText", "WordCounts",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/Stores/Postgres",
            swiftSettings: strictSettings,
            plugins: ["EmbedMigrations"]
        ),
        .target(
            name: "SQLiteStores",
            dependencies: [
                "Stores", "BotClock", "PostText", "WordCounts",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/Stores/SQLite",
            swiftSettings: strictSettings,
            plugins: ["EmbedMigrations"]
        ),
        .target(
            name: "ScriptedNetwork",
            dependencies: ["BotCore", "BotClock", "SocialNetwork"],
            path: "Sources/Testing/ScriptedNetwork",
            swiftSettings: strictSettings
        ),
        .target(
            name: "InMemoryStores",
            dependencies: ["Stores", "BotClock", "PostText", "WordCounts", .product(name: "Logging", package: "swift-log")],
            path: "Sources/Testing/InMemoryStores",
            swiftSettings: strictSettings
        ),
        .target(
            name: "RedisClient",
            dependencies: [
                "CHiredis",
                "BotConfiguration",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
            ],
            path: "Sources/Stores/Redis/RedisClient",
            swiftSettings: strictSettings
        ),
        .target(
            name: "WordCounts",
            path: "Sources/Core/WordCounts",
            swiftSettings: strictSettings
        ),
        .target(
            name: "RedisWordCounts",
            dependencies: ["RedisClient", "WordCounts"],
            path: "Sources/Stores/Redis/RedisWordCounts",
            swiftSettings: strictSettings
        ),
        .target(
            name: "StatusPage",
            dependencies: [
                "BotCore",
                "Stores", "BotClock", "Consent", "SocialNetwork",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Sources/App/StatusPage",
            swiftSettings: strictSettings
        ),
        .target(
            name: "Fleet",
            dependencies: [
                "BotClock", "Stores",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Sources/Runtime/Fleet",
            swiftSettings: strictSettings
        ),
        .target(
            name: "BotAssembly",
            dependencies: [
                "BotCore",
                "BotConfiguration", "BotClock", "Stores", "PostgresStores", "WordCounts", "RedisClient", "RedisWordCounts", "SQLiteStores",
                "Tokenizer",
                "Classifier", "SocialNetwork", "Training",
                "Daemon", "StatusPage", "Picking", "Schedule",
                "Consent", "Remix", "Fleet", "NetworkRegistry", "FrontDoor", "ArchiveImport", "ExportFormats",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Sources/App/BotAssembly",
            swiftSettings: strictSettings
        ),
        .target(
            name: "Tokenizer",
            dependencies: ["CMeCab"],
            path: "Sources/Core/Tokenizer",
            swiftSettings: strictSettings
        ),
        .target(
            name: "BotClock",
            path: "Sources/Core/BotClock",
            swiftSettings: strictSettings
        ),
        .target(
            name: "HTTPCore",
            dependencies: [
                "BotClock",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ],
            path: "Sources/Networks/HTTPCore",
            swiftSettings: strictSettings
        ),
        .target(
            name: "XAPI",
            dependencies: [
                "BotCore",
                "BotClock", "HTTPCore", "PostText", "SocialNetwork",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ],
            path: "Sources/Networks/X/XAPI",
            swiftSettings: strictSettings
        ),
        .target(
            name: "MastodonAPI",
            dependencies: [
                "BotCore",
                "BotClock", "HTTPCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ],
            path: "Sources/Networks/Mastodon/MastodonAPI",
            swiftSettings: strictSettings
        ),
        .target(
            name: "MisskeyAPI",
            dependencies: [
                "BotCore",
                "BotClock", "HTTPCore",
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ],
            path: "Sources/Networks/Misskey/MisskeyAPI",
            swiftSettings: strictSettings
        ),
        .target(
            name: "BlueskyAPI",
            dependencies: [
                "BotCore",
                "BotClock", "HTTPCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ],
            path: "Sources/Networks/Bluesky/BlueskyAPI",
            swiftSettings: strictSettings
        ),
        .target(
            name: "ATProtoRepository",
            dependencies: ["CCBOR", "BlueskyAPI", .product(name: "Crypto", package: "swift-crypto")],
            path: "Sources/Networks/Bluesky/ATProtoRepository",
            swiftSettings: strictSettings
        ),
        .target(
            name: "BlueskyNetwork",
            dependencies: [
                "SignIn", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                "BotCore",
                "BlueskyAPI", "ATProtoRepository", "ExportFormats", "BotConfiguration", "SocialNetwork", "PostText", "BotClock", "Stores", "HTTPCore",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/Networks/Bluesky/BlueskyNetwork",
            swiftSettings: strictSettings
        ),
        .target(
            name: "SignIn",
            dependencies: [
                "BotCore", "BotConfiguration", "SocialNetwork", "Stores", "HTTPCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/Networks/SignIn",
            swiftSettings: strictSettings
        ),
        .target(
            name: "MemoNetwork",
            dependencies: ["BotCore", "BotClock", "BotConfiguration", "SocialNetwork", "Stores", .product(name: "Logging", package: "swift-log")],
            path: "Sources/Networks/Memo/MemoNetwork",
            swiftSettings: strictSettings
        ),
        .target(
            name: "NetworkRegistry",
            dependencies: [
                "SocialNetwork", "ExportFormats", "XNetwork", "MastodonNetwork", "BlueskyNetwork", "MisskeyNetwork",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/Networks/Registry/NetworkRegistry",
            swiftSettings: strictSettings
        ),
        .target(
            name: "FakeNetworkRegistry",
            dependencies: ["FakeKit", "FakeX", "FakeMastodon", "FakeBluesky", "FakeMisskey"],
            path: "Sources/Networks/Registry/FakeNetworkRegistry",
            swiftSettings: strictSettings
        ),
        .target(
            name: "MisskeyNetwork",
            dependencies: [
                "SignIn", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                "BotCore",
                "MisskeyAPI", "ExportFormats", "BotConfiguration", "SocialNetwork", "PostText", "BotClock", "Stores",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/Networks/Misskey/MisskeyNetwork",
            swiftSettings: strictSettings
        ),
        .target(
            name: "MastodonNetwork",
            dependencies: [
                "SignIn", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                "BotCore",
                "MastodonAPI", "ExportFormats", "Stores", "BotConfiguration", "SocialNetwork", "PostText", "BotClock", "HTTPCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/Networks/Mastodon/MastodonNetwork",
            swiftSettings: strictSettings
        ),
        .target(
            name: "FakeMastodon",
            dependencies: [
                "FakeKit",
                "BotCore",
                "MastodonAPI",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ],
            path: "Sources/Networks/Mastodon/FakeMastodon",
            swiftSettings: strictSettings
        ),
        .target(
            name: "FakeMisskey",
            dependencies: [
                "FakeKit",
                "MisskeyAPI", "BotClock", "SeededRandom",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ],
            path: "Sources/Networks/Misskey/FakeMisskey",
            swiftSettings: strictSettings
        ),
        .target(
            name: "FakeBluesky",
            dependencies: [
                "FakeKit",
                "BlueskyAPI", "BotClock",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ],
            path: "Sources/Networks/Bluesky/FakeBluesky",
            swiftSettings: strictSettings
        ),
        .target(
            name: "FakeKit",
            dependencies: [
                "SeededRandom",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Sources/Networks/FakeKit",
            swiftSettings: strictSettings
        ),
        .target(
            name: "FakeX",
            dependencies: [
                "FakeKit",
                "BotCore",
                "XAPI",
                "SeededRandom",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ],
            path: "Sources/Networks/X/FakeX",
            swiftSettings: strictSettings
        ),
        .target(
            name: "Classifier",
            dependencies: ["WordCounts", "Tokenizer", "SeededRandom"],
            path: "Sources/Mirror/Classifier",
            swiftSettings: strictSettings
        ),
        .target(
            name: "SeededRandom",
            path: "Sources/Core/SeededRandom",
            swiftSettings: strictSettings
        ),
        .target(
            name: "Schedule",
            dependencies: ["Stores", "BotClock", "SeededRandom"],
            path: "Sources/Mirror/Schedule",
            swiftSettings: strictSettings
        ),
        .target(
            name: "Consent",
            dependencies: ["Stores"],
            path: "Sources/Mirror/Consent",
            swiftSettings: strictSettings
        ),
        .target(
            name: "Remix",
            dependencies: ["BotCore", "PostText", "Tokenizer"],
            path: "Sources/Mirror/Remix",
            swiftSettings: strictSettings
        ),
        .target(
            name: "Picking",
            dependencies: ["BotCore", "Consent", "PostText", "Remix", "Stores", "BotClock", .product(name: "Logging", package: "swift-log")],
            path: "Sources/Mirror/Picking",
            swiftSettings: strictSettings
        ),
        .target(
            name: "Training",
            dependencies: ["BotCore", "Stores", "Classifier", "SocialNetwork", "WordCounts", .product(name: "Logging", package: "swift-log")],
            path: "Sources/Mirror/Training",
            swiftSettings: strictSettings
        ),
        .target(
            name: "ArchiveImport",
            dependencies: [
                "BotCore", "Stores", "Classifier", "ExportFormats",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ],
            path: "Sources/Mirror/ArchiveImport",
            swiftSettings: strictSettings
        ),
        .target(
            name: "XNetwork",
            dependencies: [
                "SignIn", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                "BotCore",
                "XAPI", "ExportFormats", "SocialNetwork", "Stores", "BotClock", "BotConfiguration", "PostText",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Sources/Networks/X/XNetwork",
            swiftSettings: strictSettings
        ),
        .target(
            name: "Daemon",
            dependencies: [
                "BotCore",
                "Stores", "BotClock", "Classifier", "Consent", "Picking", "Schedule", "SocialNetwork", "Training", "WordCounts",
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Sources/Runtime/Daemon",
            swiftSettings: strictSettings
        ),
        .target(
            name: "MirrorBotCommands",
            dependencies: [
                "FrontDoor",
                "SignIn", "NetworkRegistry", "ExportFormats",
                "BotCore",
                "BotConfiguration", "BotClock",
                "Stores", "Fleet",
                "RedisClient",
                "WordCounts",
                "BotAssembly", "RedisWordCounts", "SQLiteStores",
                "Tokenizer",
                "SocialNetwork",
                "Classifier",
                "Schedule",
                "Picking",
                "Consent",
                "Training",
                "ArchiveImport",
                "Daemon",
                "HTTPCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/App/MirrorBotCommands",
            swiftSettings: strictSettings
        ),

        // MARK: Executables (thin).
        .executableTarget(
            name: "mirror_bot",
            dependencies: ["MirrorBotCommands"],
            path: "Sources/App/mirror_bot",
            swiftSettings: strictSettings
        ),
        .target(
            name: "FrontDoor",
            dependencies: [
                "BotClock", "BotCore", "SocialNetwork", "Stores",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Sources/App/FrontDoor",
            swiftSettings: strictSettings
        ),
        .target(
            name: "DemoReport",
            dependencies: ["Stores", "BotClock", "FakeKit"],
            path: "Sources/App/DemoReport",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "demo-report",
            dependencies: [
                "DemoReport", "BotAssembly", "BotConfiguration", "FakeKit", "FakeNetworkRegistry",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/App/demo-report",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "fake-x",
            dependencies: [
                "FakeKit", "FakeNetworkRegistry",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/App/fake-x",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "MirrorBotBenchmarks",
            dependencies: [
                "BotConfiguration", "BotCore", "Stores", "PostgresStores", "RedisClient", "WordCounts", "BotAssembly", "RedisWordCounts",
                "SQLiteStores",
                "Tokenizer", "XAPI", "FakeX", "Schedule", "Classifier", "ArchiveImport", "ExportFormats", "NetworkRegistry", "PostText",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Benchmarks/MirrorBotBenchmarks",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "RemixBenchmark",
            dependencies: ["BotCore", "FakeX", "PostText", "Remix", "SeededRandom", "Stores", "Tokenizer"],
            path: "Benchmarks/RemixBenchmark",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "LikesBenchmark",
            dependencies: [
                "Classifier", "BotAssembly", "RedisWordCounts", "SQLiteStores", "Tokenizer", "WordCounts", "SeededRandom", "Daemon", "InMemoryStores",
                "BotClock", "BotCore", "SocialNetwork", "Stores", .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/LikesBenchmark",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "StorageBenchmark",
            dependencies: [
                "Stores", "PostgresStores", "BotClock", "BotConfiguration", "BotCore", "RedisClient", "RedisWordCounts", "SQLiteStores",
                "SeededRandom",
                "WordCounts",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Benchmarks/StorageBenchmark",
            swiftSettings: strictSettings
        ),

        // MARK: Build tooling: the SQL files of Migrations/ compiled into the binary.
        .executableTarget(
            name: "MigrationEmbedder",
            path: "Plugins/MigrationEmbedder"
        ),
        .plugin(
            name: "EmbedMigrations",
            capability: .buildTool(),
            dependencies: ["MigrationEmbedder"]
        ),

        // MARK: Tests, one target per library; helpers in TestSupport.
        .target(
            name: "TestSupport",
            dependencies: [
                "BotClock", "BotCore", "SocialNetwork", "BotConfiguration", "Stores", "PostgresStores", "SQLiteStores", "InMemoryStores",
                "RedisClient", "Schedule", "WordCounts", "BotAssembly",
                "RedisWordCounts", .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ],
            path: "Tests/TestSupport",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ArchitectureTests", dependencies: ["NetworkRegistry", "FakeNetworkRegistry", "MemoNetwork", "SocialNetwork"],
            swiftSettings: strictSettings),
        .testTarget(
            name: "HTTPCoreTests",
            dependencies: [
                "FakeKit",
                "HTTPCore", "BotClock", "FakeX", "TestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StatusPageTests",
            dependencies: [
                "FakeKit",
                "StatusPage", "MastodonNetwork", "XNetwork", "Consent", "Stores", "PostgresStores", "SocialNetwork", "TestSupport", "FakeX",
                "BotConfiguration",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "BotConfigurationTests",
            dependencies: [
                "BotConfiguration", "BotAssembly", "SocialNetwork", "XAPI", "XNetwork", "MastodonAPI", "MastodonNetwork", "MisskeyAPI",
                "MisskeyNetwork",
            ], swiftSettings: strictSettings),
        .testTarget(name: "PostTextTests", dependencies: ["PostText"], swiftSettings: strictSettings),
        .testTarget(
            name: "FuzzTests",
            dependencies: [
                "ArchiveImport", "ExportFormats", "XNetwork", "MastodonNetwork", "MisskeyNetwork",
                "ATProtoRepository", "BotAssembly", "BotConfiguration", "MastodonAPI", "BlueskyAPI", "BlueskyNetwork", "MisskeyAPI",
                "PostText",
                "StatusPage", "SeededRandom", .product(name: "Crypto", package: "swift-crypto"),
            ],
            exclude: ["Corpus"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StoresTests",
            dependencies: [
                "Stores", "PostgresStores", "SQLiteStores", "InMemoryStores", "BotConfiguration", "BotClock", "SeededRandom", "TestSupport",
                "PostText", "Fleet",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(name: "RedisClientTests", dependencies: ["RedisClient", "BotConfiguration", "TestSupport"], swiftSettings: strictSettings),
        .testTarget(
            name: "WordCountsTests",
            dependencies: [
                "WordCounts", "BotAssembly", "BotConfiguration", "RedisWordCounts", "SQLiteStores", "InMemoryStores", "RedisClient", "TestSupport",
            ], swiftSettings: strictSettings),
        .testTarget(name: "TokenizerTests", dependencies: ["Tokenizer"], swiftSettings: strictSettings),
        .testTarget(name: "BotClockTests", dependencies: ["BotClock"], swiftSettings: strictSettings),
        .testTarget(
            name: "ClassifierTests",
            dependencies: ["RedisWordCounts", "Classifier", "WordCounts", "Tokenizer", "RedisClient", "TestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "TrainingTests",
            dependencies: [
                "Training", "Stores", "BotConfiguration", "Classifier", "FakeX", "RedisClient", "TestSupport", "Tokenizer",
                "WordCounts", "XAPI", "XNetwork", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ArchiveImportTests",
            dependencies: [
                "ArchiveImport", "ExportFormats", "NetworkRegistry", "XNetwork", "MastodonNetwork", "MisskeyNetwork",
                "Stores", "Classifier", "RedisClient", "TestSupport", "Tokenizer", "WordCounts", "MisskeyAPI",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "DaemonTests",
            dependencies: [
                "Daemon", "BotAssembly", "ScriptedNetwork", "PostgresStores", "InMemoryStores", "RedisWordCounts", "SQLiteStores", "Stores",
                "BotClock", "BotConfiguration", "Classifier", "Consent", "FakeX", "Picking", "RedisClient", "Schedule", "Training",
                "TestSupport", "Tokenizer", "WordCounts", "XAPI", "XNetwork", "SocialNetwork", "FakeMastodon", "MastodonAPI", "MastodonNetwork",
                "FakeBluesky", "BlueskyAPI", "BlueskyNetwork",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(name: "ScheduleTests", dependencies: ["Schedule", "Stores", "BotClock", "TestSupport"], swiftSettings: strictSettings),
        .testTarget(
            name: "ConsentTests",
            dependencies: ["Consent", "Stores", "TestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "PickingTests",
            dependencies: [
                "Picking", "Consent", "Remix", "PostText", "SeededRandom", "Tokenizer", "Schedule", "Stores", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "XAPITests",
            dependencies: [
                "XAPI", "XNetwork", "SocialNetwork", "FakeX", "BotClock", "BotConfiguration", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "FakeXTests",
            dependencies: [
                "FakeX", "XAPI", "BotConfiguration", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ],
            resources: [.copy("Resources")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "MisskeyTests",
            dependencies: [
                "MisskeyAPI", "MisskeyNetwork", "FakeMisskey", "FakeX", "BotClock", "BotCore", "SocialNetwork", "Stores", "InMemoryStores",
                "PostText", "TestSupport", "FrontDoor", "FakeKit",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ],
            resources: [.copy("Resources")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "BlueskyTests",
            dependencies: [
                "BlueskyAPI", "BlueskyNetwork", "FakeBluesky", "FakeX", "ATProtoRepository", "BotClock", "BotCore", "SocialNetwork", "TestSupport",
                "HTTPCore", "FrontDoor", "FakeKit",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ],
            resources: [.copy("Resources")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "MastodonTests",
            dependencies: [
                "MastodonAPI", "MastodonNetwork", "FakeMastodon", "SocialNetwork", "BotClock", "BotConfiguration", "TestSupport", "HTTPCore",
                "FrontDoor", "FakeKit",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ],
            resources: [.copy("Resources")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "FrontDoorTests",
            dependencies: ["FrontDoor", "BotClock"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "DemoReportTests",
            dependencies: ["DemoReport", "Stores", "FakeKit", "FakeX", "FakeMastodon"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "MirrorBotCommandsTests",
            dependencies: [
                "MirrorBotCommands", "Stores", "PostgresStores", "BotConfiguration", "TestSupport", "FakeX", "FakeMastodon", "MastodonAPI",
                "FakeBluesky", "FakeMisskey", "MisskeyAPI", "MisskeyNetwork", "BlueskyAPI", "BlueskyNetwork", "RedisClient", "WordCounts",
                "Classifier", "Tokenizer", "Picking", "BotAssembly", "RedisWordCounts", "SQLiteStores",
                "XAPI", "XNetwork", "MastodonNetwork", "Training", "SeededRandom", "Remix", "BotCore", "MemoNetwork", "NetworkRegistry",
                "SocialNetwork", "Daemon", "Fleet",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ],
            resources: [.copy("Resources")],
            swiftSettings: strictSettings
        ),
    ]
)
