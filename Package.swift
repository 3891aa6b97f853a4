// swift-tools-version:6.0
import PackageDescription

// Layers are targets, so the compiler keeps them apart. What may import what:
//
//   CLupDomain     pure rules: nothing of ours (Foundation only)
//   CLupSupport    libsodium, libqrencode, zlib, thread wrappers: nothing of ours
//   CLupData       AppDatabase, migrations, records, on SQLite or PostgreSQL: CLupDomain,
//                  CLupSupport, GRDB, libpq, swift-log, swift-metrics
//   CLupJobs       mail and push delivery from the outboxes, the geocoder: CLupDomain, CLupData,
//                  CLupSupport, swift-crypto, swift-metrics
//   CLupPaths      the table of every address: nothing
//   CLupText       what people read, in English and Italian (catalogues, `tr`): nothing
//   CLupTemplates  typed HTML templates over page models (Templates/): CLupPaths, CLupText
//   CLupWeb        Request → Response: areas, routes, guards, page models built from data:
//                  CLupDomain, CLupSupport, CLupData, CLupPaths, CLupText, CLupTemplates,
//                  swift-metrics
//   CLupSimulation store days replayed through CLupData on a simulated clock: CLupDomain, CLupData
//   FastCGI        transport only: nothing of ours
//   clup           the executable: wiring and commands (it alone knows Prometheus)
let package = Package(
    name: "CLup",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "clup", targets: ["clup"]),
        // For Fuzz/, the fuzzing package beside this one: the layers it feeds untrusted bytes to.
        .library(name: "CLupLibrary", targets: ["CLupWeb", "CLupData", "CLupSupport", "CLupDomain", "FastCGI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // P-256, HKDF and AES-GCM for Web Push (RFC 8291, RFC 8292): libsodium has none of them.
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        // Counters, gauges and histograms (swift-metrics' API in the layers), and the
        // Prometheus registry the executable bootstraps it with and `/metrics` reads.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    ],
    targets: [
        // System libraries from Debian: a module map and a shim that includes only the header.
        .systemLibrary(name: "CQRencode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // libpq, the second engine's PostgreSQL client, called synchronously on the page thread.
        .systemLibrary(name: "CLibpq", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        // glibc's malloc.h, for mallopt and malloc_trim (FreedMemory).
        .systemLibrary(name: "CMalloc"),
        // The calling thread's kernel id (gettid), to lower the page threads' priority.
        .systemLibrary(name: "CThread"),
        // posix_spawn's closefrom action, for running curl without Foundation's Process.
        .systemLibrary(name: "CSpawn"),

        // Transport only: FastCGI records read in Swift, worker threads handing Sendable requests
        // to a handler.
        .target(name: "FastCGI", dependencies: ["CThread", .product(name: "Logging", package: "swift-log")]),

        .target(name: "CLupDomain"),
        .target(name: "CLupSupport", dependencies: ["CSodium", "CQRencode", "CZlib", "CSpawn", "CMalloc", "CThread"]),
        .target(
            name: "CLupData",
            dependencies: [
                "CLupDomain", "CLupSupport", "CLibpq", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"), .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        .target(
            name: "CLupJobs",
            dependencies: [
                "CLupDomain", "CLupData", "CLupSupport", .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        .target(name: "CLupSimulation", dependencies: ["CLupDomain", "CLupData"]),
        .target(name: "CLupPaths"),
        .target(name: "CLupText"),
        .target(name: "CLupTemplates", dependencies: ["CLupPaths", "CLupText"], path: "Templates"),
        .target(
            name: "CLupWeb",
            dependencies: [
                "CLupDomain", "CLupSupport", "CLupData", "CLupPaths", "CLupText", "CLupTemplates",
                .product(name: "Logging", package: "swift-log"), .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),

        // Thin executable: argument parsing and wiring.
        .executableTarget(
            name: "clup",
            dependencies: [
                "CLupDomain", "CLupSupport", "CLupData", "CLupJobs", "CLupText", "CLupWeb", "CLupSimulation", "FastCGI",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),

        .testTarget(name: "FastCGITests", dependencies: ["FastCGI"]),
        .testTarget(name: "CLupDomainTests", dependencies: ["CLupDomain"]),
        .testTarget(
            name: "CLupTests",
            dependencies: [
                "CLupDomain", "CLupSupport", "CLupData", "CLupJobs", "CLupPaths", "CLupText", "CLupTemplates", "CLupWeb",
                "CLupSimulation", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["CLupDomain", "CLupSupport", "CLupData", "CLupText", "CLupWeb"]
        ),
    ]
)
