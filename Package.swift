// swift-tools-version:6.1
// youll-devices: a Swift-on-Linux gateway for Tuya lights and aroma diffusers.
// Module layout and import rules: ../shared/ARCHITECTURE.md.
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "youll-devices",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "youll-devices", targets: ["youll-devices"]),
        .library(name: "TuyaCore", targets: ["TuyaCore"]),
        .library(name: "TuyaWire", targets: ["TuyaWire"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.0.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
    ],
    targets: [
        // Domain types, device profiles (YAML in devices/), typed commands and state. Pure.
        .target(
            name: "TuyaCore",
            dependencies: [.product(name: "Yams", package: "Yams")],
            swiftSettings: strict
        ),
        // Byte-level codecs for Tuya MQTT "2.2" and Tuya BLE. Pure, no I/O.
        .target(
            name: "TuyaWire",
            dependencies: [
                "TuyaCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        // Async MQTT client over libmosquitto: TLS, auth, last will, QoS 1, reconnect with backoff.
        .target(name: "MQTTLink", dependencies: ["CMosquitto"], swiftSettings: strict),
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
        .executableTarget(
            name: "youll-devices",
            dependencies: [
                "TuyaCore",
                "TuyaWire",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),
        // Throughput benchmarks run by scripts/bench (release build).
        .executableTarget(
            name: "youll-bench",
            dependencies: ["TuyaCore", "TuyaWire", .product(name: "Crypto", package: "swift-crypto"), .product(name: "CryptoExtras", package: "swift-crypto")],
            path: "Benchmarks/WireBench",
            swiftSettings: strict
        ),
        .testTarget(name: "TuyaCoreTests", dependencies: ["TuyaCore"], swiftSettings: strict),
        .testTarget(name: "TuyaWireTests", dependencies: ["TuyaWire", "TuyaCore"], swiftSettings: strict),
        .testTarget(name: "SystemLibrariesTests", dependencies: ["CMosquitto", "CBluetooth"], swiftSettings: strict),
        .testTarget(name: "MQTTLinkTests", dependencies: ["MQTTLink"], swiftSettings: strict),
        .testTarget(name: "CLITests", dependencies: ["youll-devices"], swiftSettings: strict),
    ]
)
