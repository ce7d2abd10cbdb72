// swift-tools-version:6.2
// youll-devices: a Swift-on-Linux gateway for Tuya lights and aroma diffusers.
// Module layout and import rules: ../shared/ARCHITECTURE.md.
import PackageDescription

// Every target of this package is built with warnings as errors (scripts/test also checks
// that each import is a declared dependency), so no warning can land unnoticed.
let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .treatAllWarnings(as: .error),
]

// The release daemon is what sits in a gateway's memory all day, so it is linked for a small
// footprint (issue 15). scripts/install and scripts/bench build it with scripts/release-build:
// `--static-swift-stdlib` (no relocation of the Swift runtime's and Foundation's shared
// libraries at start, nothing needed from the toolchain at run time) and every function in a
// section of its own. Where the C library can load them (glibc 2.36, Debian 12) it is linked by
// lld (shipped with the toolchain):
// - with relative relocations packed instead of 150,000 RELA entries read and applied at start
//   (the executable stays position-independent);
// - without the dynamic symbol table the static Swift runtime asks for (`-export-dynamic`):
//   nothing looks the daemon's own symbols up at run time, and 3.7 MB of it was resident;
// - with the functions the daemon runs placed together, in the order of daemon.order
//   (scripts/profile-order writes it). The kernel maps the cached code around each page a
//   process touches (64 KB, or a whole large folio), so the few functions that run, scattered
//   through 33 MB of code, kept about 25 MB of it resident.
// `youll-bench serve-load` measures the effect (`BENCH serve.load.rss`).
#if canImport(Glibc)
    import Glibc
    let glibcLoadsPackedRelocations: Bool = {
        var text = [CChar](repeating: 0, count: 64)  // "glibc 2.36"
        guard confstr(Int32(_CS_GNU_LIBC_VERSION), &text, text.count) > 0 else { return false }
        let name = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let version = name.split(separator: " ").last?.split(separator: ".").compactMap { Int($0) }
        guard let version, version.count >= 2 else { return false }
        return (version[0], version[1]) >= (2, 36)
    }()
#else
    let glibcLoadsPackedRelocations = false
#endif
// scripts/profile-order links the daemon with its functions shuffled (YOULL_LINK_SHUFFLE=seed)
// to tell the functions that run from their neighbours on the same page.
let functionLayout: [String] =
    if let seed = Context.environment["YOULL_LINK_SHUFFLE"], !seed.isEmpty {
        ["--shuffle-sections=.text*=\(seed)"]
    } else {
        [
            "--symbol-ordering-file=\(Context.packageDirectory)/Sources/youll-devices/daemon.order",
            "--no-warn-symbol-ordering",
        ]
    }
let releaseDaemonLinking: [LinkerSetting] =
    glibcLoadsPackedRelocations
    ? [
        .unsafeFlags(
            ["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "--no-export-dynamic"]
                + functionLayout.flatMap { ["-Xlinker", $0] },
            .when(platforms: [.linux], configuration: .release))
    ] : []

let package = Package(
    name: "youll-devices",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "youll-devices", targets: ["youll-devices"]),
        .library(name: "TuyaCore", targets: ["TuyaCore"]),
        .library(name: "TuyaWire", targets: ["TuyaWire"]),
        .library(name: "DeepLinks", targets: ["DeepLinks"]),
        .library(name: "Maintenance", targets: ["Maintenance"]),
        .library(name: "SessionEngine", targets: ["SessionEngine"]),
        // For the fuzz harnesses of the HCI host's decoders (Fuzz/).
        .library(name: "BLELink", targets: ["BLELink"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.0.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.1.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    ],
    targets: [
        // Time for every pure core: one capped, jittered backoff and a clock seen as offsets
        // from its start. A leaf, so MQTTLink (which imports no domain code) shares it too.
        .target(name: "Timing", swiftSettings: strict),
        .testTarget(name: "TimingTests", dependencies: ["Timing", "YoullTestSupport"], swiftSettings: strict),
        // Domain types, device profiles parsed from YAML text (Storage reads devices/), typed
        // commands and state, the module seams. Pure: no files, no sockets.
        .target(
            name: "TuyaCore",
            dependencies: [.product(name: "Yams", package: "Yams"), "Timing"],
            swiftSettings: strict
        ),
        // Byte-level codecs for Tuya MQTT "2.2" and Tuya BLE. Pure, no I/O.
        .target(
            name: "TuyaWire",
            dependencies: [
                "TuyaCore", "CLibCrypto",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        // Tuya LAN devices: one TCP connection per device (port 6668) and the UDP discovery
        // listeners (6666, 6667, 7000), over SwiftNIO.
        .target(
            name: "LANLink",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // Async MQTT client over libmosquitto: TLS, auth, last will, QoS 1, reconnect with backoff.
        .target(name: "MQTTLink", dependencies: ["CMosquitto", "Timing"], swiftSettings: strict),
        // OpenSSL's libcrypto, for AES and HMAC keyed once per key and kept, and AES-ECB
        // (TuyaWire/Crypto: LANCipher.swift, CBCContexts.swift); libmosquitto already loads it.
        .systemLibrary(
            name: "CLibCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .systemLibrary(
            name: "CMosquitto",
            pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev"])]
        ),
        .systemLibrary(
            name: "CBluetooth",
            pkgConfig: "bluez",
            providers: [.apt(["libbluetooth-dev"])]
        ),
        // BlueZ: the availability probe (kernel, adapter, power, permissions), byte channels
        // (L2CAP LE sockets, socketpairs), the ATT bearer and a minimal GATT client.
        .target(name: "BLELink", dependencies: ["CBluetooth"], swiftSettings: strict),
        // TuyaWire and TuyaCore: one test follows a Tuya advert from the HCI packet to the pairing list.
        .testTarget(
            name: "BLELinkTests",
            dependencies: ["BLELink", "YoullTestSupport", "TuyaWire", "TuyaCore", "DeviceSimulator"],
            swiftSettings: strict),
        // A private mosquitto on a free loopback port, and child processes, for tests, the demo and
        // benchmarks: swift-subprocess for what runs within one call, posix_spawn for what outlives it.
        .target(
            name: "LocalBroker",
            dependencies: [
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strict),
        // Simulated Tuya Wi-Fi lights and diffusers on a broker, and BLE peripherals (a GATT server
        // over a socketpair), for tests, the demo and benchmarks.
        // Talks to libmosquitto directly, not through MQTTLink: one poll loop drives every
        // simulated device's connection, while MQTTLink runs one thread per connection.
        // NIO: simulated LAN devices, one event loop thread for every listener and connection.
        .target(
            name: "DeviceSimulator",
            dependencies: [
                "TuyaCore", "TuyaWire", "CMosquitto", "BLELink",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "youll-devices",
            dependencies: [
                "TuyaCore",
                "TuyaWire",
                "DeviceSimulator",
                "TuyaController",
                "MQTTLink",
                "LocalBroker",
                "Gateway",
                "BLELink",
                "Storage", "Maintenance", "DeepLinks", "SessionEngine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // The demo scrapes /metrics as Prometheus would (not URLSession: see DemoObservabilityStep).
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            // Read by the release link (releaseDaemonLinking above), not compiled.
            exclude: ["daemon.order"],
            swiftSettings: strict,
            linkerSettings: releaseDaemonLinking
        ),
        // Benchmarks run by scripts/bench (release build): codecs, MQTT round trips, the daemon.
        .executableTarget(
            name: "youll-bench",
            dependencies: [
                "TuyaCore", "TuyaWire", "TuyaController", "MQTTLink", "DeviceSimulator", "LocalBroker", "Storage",
                // LANLink: the LAN round trip measured hop by hop (LANHops).
                "BLELink", "DeepLinks", "LANLink",
                "SessionEngine", "Timing", "YoullTestSupport",
                // The LAN codec's floor: the libcrypto calls of one frame alone (LANCryptoFloor).
                "CLibCrypto",
            ],
            path: "Benchmarks/WireBench",
            swiftSettings: strict,
            // Linked as the daemon is: the in-process sweeps (lan-sweep) report this process's memory.
            linkerSettings: releaseDaemonLinking
        ),
        // The service behind TuyaControllerProtocol: registry, pairing, one actor per device link.
        .target(
            name: "TuyaController",
            dependencies: [
                "TuyaCore", "TuyaWire", "MQTTLink", "BLELink", "LANLink", "Timing",
                // The LAN links log bad frames from a device (rate-limited).
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // Composition root: the configuration file, the daemon's service group, the MQTT bridge API.
        .target(
            name: "Gateway",
            dependencies: [
                "TuyaCore", "TuyaWire", "TuyaController", "MQTTLink", "Storage", "BLELink", "LANLink", "Maintenance",
                "DeepLinks", "SessionEngine", "Timing",
                .product(name: "Yams", package: "Yams"),
                // HPKE (sealed local keys) and HMAC (signed bridge requests).
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                // Webhook delivery (WebhookPoster).
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: strict
        ),
        // Meditation sessions: the pure planner (config + preset -> timeline of cues), the runner on an
        // injected clock, history and badges. Drives devices only through TuyaControllerProtocol.
        .target(name: "SessionEngine", dependencies: ["TuyaCore", "Timing"], swiftSettings: strict),
        .testTarget(
            name: "SessionEngineTests", dependencies: ["SessionEngine", "TuyaCore", "Timing", "YoullTestSupport"],
            swiftSettings: strict),
        // The one test rig every test target shares: the daemon in a scoped `withRunningDaemon`, the
        // manual clock, one deadline, one seeded generator, hex vectors, repository paths, a real notify
        // socket standing in for systemd's, and the private Python tools.
        .target(
            name: "YoullTestSupport",
            dependencies: [
                "LocalBroker", "Gateway", "TuyaController", "TuyaCore", "DeviceSimulator", "Storage",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Tests/Support", swiftSettings: strict),
        .testTarget(
            name: "GatewayTests",
            dependencies: [
                "YoullTestSupport", "Gateway", "TuyaCore", "TuyaWire", "MQTTLink", "Storage", "TuyaController",
                "BLELink",
                "LocalBroker", "DeviceSimulator", "Maintenance", "DeepLinks", "SessionEngine", "Timing",
                .product(name: "Logging", package: "swift-log"),
                // To hold the daemon's database locked, as a full disk would refuse its writes.
                .product(name: "GRDB", package: "GRDB.swift"),
                // To play a gateway's key pair for sealed local keys.
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            exclude: ["Fixtures"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "TuyaControllerTests",
            dependencies: [
                "YoullTestSupport", "TuyaController", "BLELink", "LocalBroker", "TuyaCore", "TuyaWire", "MQTTLink",
                "Timing", "LANLink",
                "DeviceSimulator",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // The gateway's SQLite state through GRDB: devices, secrets, desired and confirmed state,
        // pairing candidates, the event log, backup and restore.
        .target(
            name: "Storage",
            dependencies: ["TuyaCore", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: strict
        ),
        // Writes committed state in a loop until StorageTests kills it with SIGKILL.
        .executableTarget(
            name: "youll-storage-crash-writer",
            dependencies: ["Storage", "TuyaCore"],
            path: "Benchmarks/StorageCrashWriter",
            swiftSettings: strict
        ),
        .testTarget(
            name: "StorageTests",
            dependencies: [
                "Storage", "TuyaCore", "LocalBroker", "youll-storage-crash-writer", "YoullTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "TuyaCoreTests", dependencies: ["TuyaCore", "YoullTestSupport", "DeviceSimulator"],
            swiftSettings: strict),
        // The pure routing engine for deep links: route table, strict URL parser, dispatcher.
        .target(name: "DeepLinks", dependencies: ["TuyaCore"], swiftSettings: strict),
        .testTarget(
            name: "DeepLinksTests", dependencies: ["DeepLinks", "TuyaCore", "YoullTestSupport", "DeviceSimulator"],
            swiftSettings: strict),
        // Maintenance reminders: rules from profiles, usage counting, the scheduler, alerts with
        // deep links, and delivery (webhook from a persistent outbox). Pure apart from the poster.
        .target(name: "Maintenance", dependencies: ["TuyaCore", "DeepLinks", "Timing"], swiftSettings: strict),
        .testTarget(
            name: "MaintenanceTests",
            dependencies: ["Maintenance", "TuyaCore", "DeepLinks", "YoullTestSupport", "Timing"],
            swiftSettings: strict),
        .testTarget(
            // LocalBroker: the LAN tests run tinytuya from the private venv as a child process.
            name: "TuyaWireTests",
            dependencies: [
                "TuyaWire", "TuyaCore", "YoullTestSupport", "DeviceSimulator", "LocalBroker",
                // The libcrypto ciphers (LAN sessions, AES-CBC and AES-ECB) are checked
                // against swift-crypto's own calls.
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: strict),
        .testTarget(name: "SystemLibrariesTests", dependencies: ["CMosquitto", "CBluetooth"], swiftSettings: strict),
        .testTarget(
            name: "DeviceSimulatorTests",
            dependencies: [
                "DeviceSimulator", "LocalBroker", "TuyaCore", "TuyaWire", "CMosquitto", "BLELink", "YoullTestSupport",
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "MQTTLinkTests",
            dependencies: ["MQTTLink", "LocalBroker", "Timing", "YoullTestSupport", "DeviceSimulator"],
            swiftSettings: strict),
        .testTarget(
            name: "CLITests",
            dependencies: [
                "youll-devices", "LocalBroker", "MQTTLink", "DeviceSimulator", "TuyaCore", "TuyaWire",
                "YoullTestSupport",
                "Gateway", "Storage", "Maintenance", "DeepLinks", "SessionEngine",
            ],
            swiftSettings: strict
        ),
    ]
)
