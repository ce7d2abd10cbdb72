// swift-tools-version:6.1
// libFuzzer harnesses for every decoder of untrusted bytes, in one executable; the
// harness is picked with YOULL_FUZZ_TARGET. Built and run by scripts/fuzz with
// `-sanitize=fuzzer,address`; kept out of the main package so a normal `swift build`
// never needs the fuzzer runtime.
import PackageDescription

let package = Package(
    name: "youll-devices-fuzz",
    dependencies: [.package(name: "youll-devices", path: "..")],
    targets: [
        .executableTarget(
            name: "YoullFuzz",
            dependencies: [
                .product(name: "TuyaWire", package: "youll-devices"),
                .product(name: "TuyaCore", package: "youll-devices"),
                .product(name: "DeepLinks", package: "youll-devices"),
                .product(name: "BLELink", package: "youll-devices"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6), .unsafeFlags(["-parse-as-library"])]
        )
    ]
)
