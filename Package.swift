// swift-tools-version:6.1
import PackageDescription

/// Strictness we want everywhere: Swift 6 language mode plus the upcoming features that
/// make concurrency and imports explicit.
let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "IntervalPro",
    products: [
        .executable(name: "intervalpro", targets: ["intervalpro"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.4.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        // Pure logic: parsers, plan model, cadence stream, session engine. No I/O, no C.
        // (Double.rounded() calls into libm; linking it here keeps small executables linking.)
        .target(name: "IntervalProCore", swiftSettings: strictSettings, linkerSettings: [.linkedLibrary("m")]),
        // Drives the engine from a source and a clock; replay and simulator sources.
        .target(name: "IntervalProRuntime", dependencies: ["IntervalProCore"], swiftSettings: strictSettings),
        // Files and the terminal: recording files, plan files, tty raw mode, screen.
        .target(
            name: "IntervalProIO",
            dependencies: [
                "IntervalProCore",
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strictSettings
        ),
        // Session history as plain values: 1 Hz samples, exact replay of a stored session,
        // FIT and TCX encoding, trends, the HTML report. Pure: no I/O, no C.
        .target(name: "IntervalProHistory", dependencies: ["IntervalProCore"], swiftSettings: strictSettings),
        // The session store: SQLite through GRDB, and the companion that saves a running session.
        .target(
            name: "IntervalProStorage",
            dependencies: [
                "IntervalProCore", "IntervalProRuntime", "IntervalProHistory",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "intervalpro",
            dependencies: [
                "IntervalProCore", "IntervalProRuntime", "IntervalProIO", "IntervalProHistory", "IntervalProStorage",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "intervalpro-bench",
            dependencies: ["IntervalProCore", "IntervalProRuntime"],
            path: "Benchmarks/intervalpro-bench",
            swiftSettings: strictSettings
        ),
        .testTarget(name: "IntervalProCoreTests", dependencies: ["IntervalProCore"], swiftSettings: strictSettings),
        .testTarget(
            name: "IntervalProRuntimeTests", dependencies: ["IntervalProCore", "IntervalProRuntime"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "IntervalProIOTests", dependencies: ["IntervalProCore", "IntervalProIO"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "IntervalProHistoryTests", dependencies: ["IntervalProCore", "IntervalProHistory"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "IntervalProStorageTests",
            dependencies: ["IntervalProCore", "IntervalProRuntime", "IntervalProHistory", "IntervalProStorage"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "IntervalProCLITests", dependencies: ["intervalpro"],
            swiftSettings: strictSettings
        ),
    ]
)
