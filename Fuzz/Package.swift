// swift-tools-version:6.0
import PackageDescription

// Coverage-guided fuzzing (libFuzzer) of what parses untrusted bytes: FastCGI records through
// the worker's record layer, a request as nginx passes it (CGI parameters:
// path, query, cookies, headers; and the body: forms, JSON) run through the whole app, and the
// ticket token a QR code carries. Built apart from the main
// package, with every Swift module instrumented (scripts/fuzz does it):
//
//   swift build -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -use-ld=lld \
//       -Xcc -fsanitize=fuzzer-no-link,address
let package = Package(
    name: "CLupFuzz",
    dependencies: [
        .package(name: "CLup", path: ".."),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // libFuzzer's entry point for an executable SwiftPM links with its own `main`.
        .target(name: "FuzzDriver"),
        .executableTarget(
            name: "FuzzFastCGI", dependencies: ["FuzzDriver", .product(name: "CLupLibrary", package: "CLup")]
        ),
        .executableTarget(
            name: "FuzzRequest",
            dependencies: ["FuzzDriver", .product(name: "CLupLibrary", package: "CLup"),
                           .product(name: "Logging", package: "swift-log")]
        ),
        .executableTarget(
            name: "FuzzTicketToken",
            dependencies: ["FuzzDriver", .product(name: "CLupLibrary", package: "CLup")]
        ),
    ]
)
