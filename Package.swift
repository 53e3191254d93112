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
        // libdbus-1, for talking to bluetoothd.
        .systemLibrary(name: "CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),
        // A thin D-Bus layer: connection, messages, values, typed errors.
        .target(name: "IntervalProDBus", dependencies: ["CDBus"], swiftSettings: strictSettings),
        // BlueZ: names, the object-tree mirror, the sensor link state machine, the live source.
        .target(
            name: "IntervalProBlueZ",
            dependencies: ["IntervalProCore", "IntervalProRuntime", "IntervalProDBus"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "intervalpro",
            dependencies: [
                "IntervalProCore", "IntervalProRuntime", "IntervalProIO", "IntervalProDBus", "IntervalProBlueZ",
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
        // What several test targets share: a private dbus-daemon, the fake BlueZ service.
        .target(name: "IntervalProTestSupport", path: "Tests/Support", swiftSettings: strictSettings),
        .testTarget(
            name: "IntervalProDBusTests", dependencies: ["IntervalProDBus", "IntervalProTestSupport"],
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
            name: "IntervalProCLITests", dependencies: ["intervalpro", "IntervalProTestSupport"],
            swiftSettings: strictSettings
        ),
    ]
)
