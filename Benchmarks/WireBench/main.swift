import Foundation

/// youll-bench: the project's in-process benchmarks, run by scripts/bench in release mode.
/// Prints `BENCH <name> <value> <unit>` lines. Usage: youll-bench wire [--seconds N] [--body JSON]
/// or youll-bench lan [--seconds N] [--body JSON]
/// or youll-bench mqtt [--floor MQTT_FLOOR] [--simulator YOULL_DEVICES] [--profiles DIR] [--samples N]
/// or youll-bench serve [--daemon YOULL_DEVICES] [--floor MQTT_FLOOR] [--profiles DIR] [--starts N]
/// [--idle-seconds S] or youll-bench ble [--profiles DIR] [--samples N] [--dpwrite-only] or youll-bench ble-bumble [--profiles DIR]
/// [--samples N] or youll-bench lan-link [--profiles DIR] [--samples N] [--python PYTHON] [--dpwrite-only]
/// or youll-bench lan-sweep [--devices N] [--simulator YOULL_DEVICES] [--profiles DIR] or youll-bench links [--seconds N]
/// or youll-bench session [--seconds IDLE_SECONDS]
/// or youll-bench serve-load [--daemon YOULL_DEVICES] [--profiles DIR] [--load-seconds S] [--concurrency 16,48,120]
let arguments = Array(CommandLine.arguments.dropFirst())
var options = BenchOptions()
var mqttOptions = MQTTBenchmarks.Options()
var serveOptions = ServeBenchmarks.Options()
var bleOptions = BLEBenchmarks.Options()
var loadOptions = ServeLoadBenchmarks.Options()
var python: String?
var lanDevices = 500
var index = 0
var suite = "wire"
while index < arguments.count {
    switch arguments[index] {
    case "--seconds" where index + 1 < arguments.count:
        options.seconds = Double(arguments[index + 1]) ?? options.seconds
        index += 2
    case "--body" where index + 1 < arguments.count:
        options.body = arguments[index + 1]
        index += 2
    case "--floor" where index + 1 < arguments.count:
        mqttOptions.floor = arguments[index + 1]
        serveOptions.floor = arguments[index + 1]
        index += 2
    case "--simulator" where index + 1 < arguments.count:
        mqttOptions.simulator = arguments[index + 1]
        index += 2
    case "--profiles" where index + 1 < arguments.count:
        mqttOptions.profiles = arguments[index + 1]
        serveOptions.profiles = arguments[index + 1]
        bleOptions.profiles = arguments[index + 1]
        loadOptions.profiles = arguments[index + 1]
        index += 2
    case "--samples" where index + 1 < arguments.count:
        mqttOptions.samples = max(1, Int(arguments[index + 1]) ?? mqttOptions.samples)
        bleOptions.samples = max(100, Int(arguments[index + 1]) ?? bleOptions.samples)
        index += 2
    case "--dpwrite-only":
        // The BLE or LAN DP writes alone, for a profiler: no floor, no ladder, no hops.
        bleOptions.dpWriteOnly = true
        index += 1
    case "--daemon" where index + 1 < arguments.count:
        serveOptions.daemon = arguments[index + 1]
        loadOptions.daemon = arguments[index + 1]
        index += 2
    case "--starts" where index + 1 < arguments.count:
        serveOptions.starts = max(1, Int(arguments[index + 1]) ?? serveOptions.starts)
        index += 2
    case "--idle-seconds" where index + 1 < arguments.count:
        serveOptions.idleSeconds = max(1, Double(arguments[index + 1]) ?? serveOptions.idleSeconds)
        index += 2
    case "--load-seconds" where index + 1 < arguments.count:
        loadOptions.seconds = max(1, Double(arguments[index + 1]) ?? loadOptions.seconds)
        index += 2
    case "--python" where index + 1 < arguments.count:
        python = arguments[index + 1]
        index += 2
    case "--devices" where index + 1 < arguments.count:
        lanDevices = max(1, Int(arguments[index + 1]) ?? lanDevices)
        index += 2
    case "--concurrency" where index + 1 < arguments.count:
        let levels = arguments[index + 1].split(separator: ",").compactMap { Int($0) }.filter { $0 > 0 }
        if !levels.isEmpty { loadOptions.concurrencies = levels }
        index += 2
    case let name:
        suite = name
        index += 1
    }
}

switch suite {
case "wire":
    do {
        try WireBenchmarks(options: options).run()
    } catch {
        FileHandle.standardError.write(Data("youll-bench: \(error)\n".utf8))
        exit(1)
    }
case "lan":
    do {
        try LANBenchmarks(options: options).run()
    } catch {
        FileHandle.standardError.write(Data("youll-bench: lan: \(error)\n".utf8))
        exit(1)
    }
case "mqtt":
    do {
        try await MQTTBenchmarks(options: mqttOptions).run()
    } catch {
        FileHandle.standardError.write(Data("youll-bench: mqtt: \(error)\n".utf8))
        exit(1)
    }
case "serve":
    do {
        try await ServeBenchmarks(options: serveOptions).run()
    } catch {
        FileHandle.standardError.write(Data("youll-bench: serve: \(error)\n".utf8))
        exit(1)
    }
case "serve-load":
    do {
        try await ServeLoadBenchmarks(options: loadOptions).run()
    } catch {
        FileHandle.standardError.write(Data("youll-bench: serve-load: \(error)\n".utf8))
        exit(1)
    }
case "lan-link":
    do {
        try await LANLinkBenchmarks(
            samples: bleOptions.samples / 2, profiles: mqttOptions.profiles, python: python,
            dpWriteOnly: bleOptions.dpWriteOnly
        ).run()
    } catch {
        FileHandle.standardError.write(Data("youll-bench: lan-link: \(error)\n".utf8))
        exit(1)
    }
case "lan-sweep":
    do {
        try await LANSweepBenchmarks(
            devices: lanDevices, simulator: mqttOptions.simulator, profiles: mqttOptions.profiles
        )
        .run()
    } catch {
        FileHandle.standardError.write(Data("youll-bench: lan-sweep: \(error)\n".utf8))
        exit(1)
    }
case "links":
    LinkBenchmarks(seconds: options.seconds).run()
case "ble":
    do {
        try await BLEBenchmarks(options: bleOptions).run()
    } catch {
        FileHandle.standardError.write(Data("youll-bench: ble: \(error)\n".utf8))
        exit(1)
    }
case "ble-bumble":
    do {
        try await BLEBumbleBenchmarks(
            options: .init(samples: max(50, bleOptions.samples / 4), profiles: bleOptions.profiles)
        ).run()
    } catch {
        FileHandle.standardError.write(Data("youll-bench: ble-bumble: \(error)\n".utf8))
        exit(1)
    }
case "session":
    do {
        try await SessionBenchmarks(idleSeconds: max(5, options.seconds), profiles: mqttOptions.profiles).run()
    } catch {
        FileHandle.standardError.write(Data("youll-bench: session: \(error)\n".utf8))
        exit(1)
    }
default:
    FileHandle.standardError.write(
        Data(
            "youll-bench: unknown suite \(suite) (known: wire, lan, mqtt, serve, serve-load, ble, lan-link, lan-sweep, links, session)\n"
                .utf8))
    exit(2)
}
