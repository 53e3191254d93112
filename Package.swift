// swift-tools-version:6.1
import PackageDescription

/// Debian's multiarch folder for this machine (where libdbus-1-dev puts its arch-dependent header).
#if arch(arm64)
let multiarch = "aarch64-linux-gnu"
#else
let multiarch = "x86_64-linux-gnu"
#endif

/// Strictness we want everywhere: Swift 6 language mode plus the upcoming features that
/// make concurrency and imports explicit.
let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
    // libdbus-1's headers, as `pkg-config --cflags dbus-1` gives them. Not through the system
    // library's pkgConfig, which would also link the library: it is opened at run time
    // (Sources/CDBus/shim.h). Every target sees the module, so every target gets the paths.
    .unsafeFlags(["-Xcc", "-I/usr/include/dbus-1.0", "-Xcc", "-I/usr/lib/\(multiarch)/dbus-1.0/include"]),
    // The release build is the one the Swift suites test (Tests/run.sh builds each module once,
    // not again in debug), and they `@testable import` our modules.
    .unsafeFlags(["-enable-testing"]),
]

/// Our executables, in a release build, carry the Swift runtime (no toolchain needed to run them).
/// Linked so here rather than by `--static-swift-stdlib`, which compiles every module against the
/// static runtime's folder too, where there is no Testing module: the suites are built on the
/// release build's modules (Tests/run.sh), and their bundle links the shared runtime. Modules
/// compiled against the shared runtime name only Foundation for the linker, not the archives the
/// static one is made of (what `swiftc -static-stdlib` records for `import Foundation`).
let executableLinking: [LinkerSetting] = [
    .unsafeFlags(
        [
            "-static-stdlib", "-lCoreFoundation", "-l_FoundationCShims", "-l_FoundationCollections", "-l_FoundationICU",
            "-lswiftSynchronization",
        ],
        .when(configuration: .release)
    )
]

/// The suites' own modules: not optimized (after SwiftPM's -O, so it wins), as in a debug
/// build: optimizing thousands of `#expect` expansions would cost minutes and test nothing.
let testSettings: [SwiftSetting] = strictSettings + [.unsafeFlags(["-Onone"])]

let package = Package(
    name: "IntervalPro",
    products: [
        .executable(name: "intervalpro", targets: ["intervalpro"]),
        .executable(name: "intervalpro-web", targets: ["intervalpro-web"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.4.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-numerics", from: "1.1.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
    ],
    targets: [
        // Pure logic: parsers, plan model, cadence stream, session engine. No I/O, no C.
        // (Double.rounded() calls into libm; linking it here keeps small executables linking.)
        .target(name: "IntervalProCore", swiftSettings: strictSettings, linkerSettings: [.linkedLibrary("m")]),
        // Heart rate variability from RR intervals: artifact correction, time-domain figures, the
        // morning readiness measurement and its baseline. Pure.
        .target(
            name: "IntervalProHRV",
            dependencies: ["IntervalProCore", .product(name: "RealModule", package: "swift-numerics")],
            swiftSettings: strictSettings
        ),
        // Metronome and voice-cue logic: beat grid, click synthesis, mixer, cue scheduling. Pure.
        .target(name: "IntervalProSound", dependencies: ["IntervalProCore"], swiftSettings: strictSettings),
        // ANT+ over a USB stick, as pure logic: the serial messages, the stick's state machine,
        // the heart-rate and foot-pod profiles. No I/O, no C.
        .target(name: "IntervalProANT", dependencies: ["IntervalProCore"], swiftSettings: strictSettings),
        // Headers only: libusb-1.0 is opened at run time (see shim.h).
        .systemLibrary(name: "CLibUSB", providers: [.apt(["libusb-1.0-0-dev"])]),
        // USB devices through libusb: a context's devices, bulk transfers completed on the event loop.
        .target(name: "IntervalProUSB", dependencies: ["CLibUSB"], swiftSettings: strictSettings),
        // An ANT stick through libusb or a serial device, driven on the event loop into the live feed.
        .target(
            name: "IntervalProANTLink",
            dependencies: ["IntervalProANT", "IntervalProCore", "IntervalProEventLoop", "IntervalProRuntime", "IntervalProUSB"],
            swiftSettings: strictSettings),
        // Drives the engine from a source and a clock; replay and simulator sources.
        .target(name: "IntervalProRuntime", dependencies: ["IntervalProCore"], swiftSettings: strictSettings),
        // The FIT binary format, read and written: bytes and messages only. Pure.
        .target(name: "IntervalProFIT", swiftSettings: strictSettings),
        // Workouts and activities from other tools, as plans and recordings: intervals.icu
        // text, Zwift .zwo, FIT workouts (both ways), FIT and TCX activities. Pure: XML
        // arrives as elements read by IntervalProIO.
        .target(
            name: "IntervalProFormats",
            dependencies: ["IntervalProCore", "IntervalProFIT", .product(name: "RealModule", package: "swift-numerics")],
            swiftSettings: strictSettings),
        // Headers of our own only: libxml2 is opened at run time (see shim.h).
        .systemLibrary(name: "CXML"),
        // zlib's header; the library is opened at run time (see shim.h).
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        // Files and the terminal: recording files, plan files, XML, tty raw mode, screen.
        .target(
            name: "IntervalProIO",
            dependencies: [
                "IntervalProCore", "IntervalProFormats", "CXML", "CZlib",
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strictSettings
        ),
        // One thread's wait point: poll(2) on descriptors, timers, work from other threads; a
        // TaskExecutor, so a live session runs on the same thread as its sensors.
        .target(name: "CLinux"),
        .target(name: "IntervalProEventLoop", dependencies: ["CLinux"], swiftSettings: strictSettings),
        // libdbus-1, for talking to bluetoothd.
        // Headers only: libdbus-1 is opened at run time (see shim.h).
        .systemLibrary(name: "CDBus", providers: [.apt(["libdbus-1-dev"])]),
        // A thin D-Bus layer: connection, messages, values, typed errors.
        .target(name: "IntervalProDBus", dependencies: ["CDBus"], swiftSettings: strictSettings),
        // BlueZ: names, the object-tree mirror, the sensor link state machine, the live source.
        .target(
            name: "IntervalProBlueZ",
            dependencies: ["IntervalProCore", "IntervalProRuntime", "IntervalProDBus", "IntervalProEventLoop", "CLinux"],
            swiftSettings: strictSettings
        ),
        // The runner's music player over MPRIS on the session bus: ducked for cues, paused with the session.
        .target(
            name: "IntervalProMPRIS", dependencies: ["IntervalProDBus", "IntervalProEventLoop", "IntervalProSound"],
            swiftSettings: strictSettings
        ),
        // Headers only: libasound is opened at run time (see shim.h).
        .systemLibrary(name: "CALSA", providers: [.apt(["libasound2-dev"])]),
        // Headers only: the library is opened at run time (see shim.h).
        .systemLibrary(name: "CEspeak", providers: [.apt(["libespeak-ng-dev"])]),
        // Audio I/O: ALSA output, espeak-ng speech, the render thread, offline rendering.
        .target(
            name: "IntervalProAudio",
            dependencies: [
                "IntervalProCore", "IntervalProSound", "IntervalProRuntime", "IntervalProEventLoop", "CALSA", "CEspeak",
            ],
            swiftSettings: strictSettings
        ),
        // Session history as plain values: 1 Hz samples, exact replay of a stored session,
        // FIT and TCX encoding, trends, the HTML report. Pure: no I/O, no C.
        .target(
            name: "IntervalProHistory", dependencies: ["IntervalProCore", "IntervalProFIT", "IntervalProHRV", "IntervalProRuntime"],
            swiftSettings: strictSettings),
        // The session store: SQLite through GRDB, and the companion that saves a running session.
        .target(
            name: "IntervalProStorage",
            dependencies: [
                "IntervalProCore", "IntervalProRuntime", "IntervalProHistory", "IntervalProHRV", "IntervalProIO",
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: strictSettings
        ),
        // Launch policy `run` and the web page share: plans and recordings read, live sensors with
        // their fallbacks, audio, the store, the session run to its summary; the live state it publishes.
        .target(
            name: "IntervalProLaunch",
            dependencies: [
                "IntervalProCore", "IntervalProRuntime", "IntervalProIO", "IntervalProFormats", "IntervalProSound",
                "IntervalProAudio", "IntervalProDBus", "IntervalProBlueZ", "IntervalProHistory", "IntervalProStorage",
                "IntervalProEventLoop", "IntervalProMPRIS", "IntervalProHRV", "IntervalProANT", "IntervalProANTLink",
                "IntervalProUSB", "IntervalProNetwork", "IntervalProServices", "CLinux",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // The phone's screen and remote: the page, its JSON API and WebSocket, on Hummingbird.
        .target(
            name: "IntervalProWeb",
            dependencies: [
                "IntervalProCore", "IntervalProRuntime", "IntervalProLaunch", "IntervalProHistory", "IntervalProStorage",
                "IntervalProIO", "IntervalProHRV", "IntervalProNetwork", "IntervalProServices", "IntervalProFormats",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        // intervals.icu and Strava as plain values: requests, answers, accounts, the retry
        // policy, planned workouts as plans. Pure: no I/O, no C.
        .target(
            name: "IntervalProServices", dependencies: ["IntervalProCore", "IntervalProFormats"],
            swiftSettings: strictSettings),
        // Headers only: libcurl is opened at run time (see shim.h).
        .systemLibrary(name: "CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // Talking to the services: HTTP over libcurl, the accounts file, Strava's tokens, the
        // upload queue kept in the store.
        .target(
            name: "IntervalProNetwork",
            dependencies: [
                "IntervalProCore", "IntervalProServices", "IntervalProStorage", "IntervalProHistory", "IntervalProIO",
                "IntervalProHRV", "CCurl", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // libqrencode, for the QR code of the web page's address.
        .systemLibrary(name: "CQRencode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        // QR codes as plain values: the module matrix, terminal text, a PBM image.
        .target(name: "IntervalProQR", dependencies: ["CQRencode"], swiftSettings: strictSettings),
        // The command line: parsing, exit codes and printing, for both executables below.
        .target(
            name: "IntervalProCLI",
            dependencies: [
                "IntervalProCore", "IntervalProRuntime", "IntervalProIO", "IntervalProSound", "IntervalProAudio",
                "IntervalProBlueZ", "IntervalProHistory", "IntervalProStorage",
                "IntervalProFormats", "IntervalProLaunch",
                "IntervalProServices", "IntervalProNetwork", "IntervalProHRV",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // Every command, without the page's server stack, so that none pays for it at start-up;
        // `serve`, `run --web` and Strava's sign-in go on in intervalpro-web (docs/dev/architecture.md).
        .executableTarget(
            name: "intervalpro", dependencies: ["IntervalProCLI"], swiftSettings: strictSettings,
            linkerSettings: executableLinking
        ),
        // The same commands with the server stack (Hummingbird, SwiftNIO) and the QR code.
        .executableTarget(
            name: "intervalpro-web",
            dependencies: [
                "IntervalProCLI", "IntervalProWeb", "IntervalProQR", "IntervalProLaunch", "IntervalProIO",
                "IntervalProNetwork", "IntervalProServices",
            ],
            swiftSettings: strictSettings,
            linkerSettings: executableLinking
        ),
        .executableTarget(
            name: "intervalpro-bench",
            dependencies: ["IntervalProCore", "IntervalProRuntime", "IntervalProHRV"],
            path: "Benchmarks/intervalpro-bench",
            swiftSettings: strictSettings,
            linkerSettings: executableLinking
        ),
        // What several test targets share: a private dbus-daemon, the fake BlueZ and MPRIS services,
        // 1 Hz samples carrying a strap's beats.
        .target(
            name: "IntervalProTestSupport", dependencies: ["IntervalProCore"], path: "Tests/Support",
            swiftSettings: strictSettings),
        .testTarget(
            name: "IntervalProDBusTests", dependencies: ["IntervalProDBus", "IntervalProTestSupport"],
            swiftSettings: testSettings
        ),
        .executableTarget(
            name: "intervalpro-audio-bench",
            dependencies: ["IntervalProCore", "IntervalProSound", "IntervalProAudio"],
            path: "Benchmarks/intervalpro-audio-bench",
            swiftSettings: strictSettings,
            linkerSettings: executableLinking
        ),
        .testTarget(
            name: "IntervalProCoreTests", dependencies: ["IntervalProCore", "AllocationCounter"], swiftSettings: testSettings
        ),
        .testTarget(
            name: "IntervalProANTTests",
            dependencies: [
                "IntervalProANT", "IntervalProANTLink", "IntervalProCore", "IntervalProEventLoop", "IntervalProRuntime",
                "IntervalProUSB",
            ],
            swiftSettings: testSettings),
        .testTarget(
            name: "IntervalProHRVTests",
            dependencies: [
                "IntervalProHRV", "IntervalProCore", "IntervalProTestSupport",
                .product(name: "RealModule", package: "swift-numerics"),
            ],
            swiftSettings: testSettings),
        // Test instrumentation: counts heap allocations per thread (render-path checks).
        .target(name: "AllocationCounter", path: "Tests/AllocationCounter"),
        .testTarget(
            name: "IntervalProSoundTests", dependencies: ["IntervalProCore", "IntervalProSound", "AllocationCounter"],
            swiftSettings: testSettings
        ),
        .testTarget(
            name: "IntervalProAudioTests",
            dependencies: ["IntervalProCore", "IntervalProSound", "IntervalProAudio", "AllocationCounter"],
            swiftSettings: testSettings
        ),
        .testTarget(
            name: "IntervalProRuntimeTests", dependencies: ["IntervalProCore", "IntervalProRuntime"],
            swiftSettings: testSettings
        ),
        .testTarget(
            name: "IntervalProIOTests", dependencies: ["IntervalProCore", "IntervalProIO"],
            swiftSettings: testSettings
        ),
        .testTarget(
            name: "IntervalProFormatsTests",
            dependencies: ["IntervalProCore", "IntervalProFIT", "IntervalProFormats", "IntervalProIO"],
            swiftSettings: testSettings
        ),
        .testTarget(
            name: "IntervalProHistoryTests",
            dependencies: ["IntervalProCore", "IntervalProHistory", "IntervalProFIT", "IntervalProHRV"],
            swiftSettings: testSettings
        ),
        .testTarget(
            name: "IntervalProStorageTests",
            dependencies: [
                "IntervalProCore", "IntervalProHistory", "IntervalProHRV", "IntervalProIO", "IntervalProRuntime", "IntervalProStorage",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: testSettings
        ),
        .testTarget(
            name: "IntervalProEventLoopTests", dependencies: ["IntervalProEventLoop", "CLinux"], swiftSettings: testSettings
        ),
        .testTarget(
            name: "IntervalProBlueZTests", dependencies: ["IntervalProBlueZ", "IntervalProDBus", "IntervalProCore"],
            swiftSettings: testSettings
        ),
        .testTarget(
            name: "IntervalProWebTests",
            dependencies: [
                "IntervalProWeb", "IntervalProLaunch", .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"), "IntervalProCore", "IntervalProRuntime",
                "IntervalProHRV", "IntervalProHistory", "IntervalProStorage",
            ],
            swiftSettings: testSettings),
        .testTarget(
            name: "IntervalProLaunchTests",
            dependencies: [
                "IntervalProLaunch", "IntervalProAudio", "IntervalProBlueZ", "IntervalProCore", "IntervalProHistory", "IntervalProHRV",
                "IntervalProIO",
                "IntervalProNetwork",
                "IntervalProRuntime", "IntervalProServices", "IntervalProStorage", "IntervalProTestSupport",
            ],
            swiftSettings: testSettings),
        .testTarget(
            name: "IntervalProCLITests",
            // Not on the executables it runs (`swift build --build-tests` builds them all the same):
            // their bundle would take their static runtime (executableLinking) and lose Testing.
            dependencies: ["IntervalProFIT", "IntervalProIO", "IntervalProTestSupport"],
            swiftSettings: testSettings
        ),
        .testTarget(name: "IntervalProQRTests", dependencies: ["IntervalProQR"], swiftSettings: testSettings),
        .testTarget(
            name: "IntervalProServicesTests",
            dependencies: ["IntervalProServices", "IntervalProNetwork", "IntervalProCore", "IntervalProFormats"],
            swiftSettings: testSettings
        ),
    ]
)
