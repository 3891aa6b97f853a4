// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "CLup",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "clup", targets: ["clup"])
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
    ],
    targets: [
        // System libraries from Debian: a module map and a shim that includes only the header.
        .systemLibrary(name: "CFastCGI", pkgConfig: "fcgi", providers: [.apt(["libfcgi-dev"])]),
        .systemLibrary(name: "CQRencode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),

        // Transport only: libfcgi worker threads handing Sendable requests to a handler.
        .target(name: "FastCGI", dependencies: ["CFastCGI"]),

        // Everything else: domain rules, database, web handlers, jobs.
        .target(
            name: "CLup",
            dependencies: [
                "CSodium",
                "CQRencode",
                "CZlib",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HeapModule", package: "swift-collections"),
            ]
        ),

        // Thin executable: argument parsing and wiring.
        .executableTarget(
            name: "clup",
            dependencies: [
                "CLup",
                "FastCGI",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        .testTarget(name: "FastCGITests", dependencies: ["FastCGI"]),
        .testTarget(name: "CLupTests", dependencies: ["CLup"]),
        .testTarget(name: "EndToEndTests", dependencies: ["CLup"]),
    ]
)
