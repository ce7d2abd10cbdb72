import DeviceSimulator
import Foundation
import LocalBroker
import MQTTLink
import TuyaController
import TuyaCore
import TuyaWire

#if canImport(Glibc)
    import Glibc
#endif

/// The `serve-load` suite: the daemon under load through the bridge API (issue 15, "Load
/// held"). A private mosquitto (LocalBroker), 1,000 simulated devices (500 lights, 500
/// diffusers) in a `youll-devices simulate` process, answering at once.
///
/// - The floor, in the same run: TuyaController in this process, the same devices paired
///   in memory, sweeps one command to every device at once until all are confirmed; the
///   median of five (`serve.load.controller.sweep1000`, and as commands per second).
/// - The daemon: `youll-devices serve` (release) with the devices paired in its state
///   directory. Once every device's `availability` says online, its RSS holding them
///   (`serve.load.rss`). Then, at each concurrency (16, 48, 120), closed-loop clients
///   publish `<base>/<name>/set` with a `transaction` and wait for the answer on
///   `bridge/response/device/set` for `seconds`: confirmed commands per second, p50 and
///   p99 latency, and the daemon's CPU time per confirmed command (its CPU-time clock, all
///   threads; beside it the simulator's, the broker's and this process's, since on a small
///   host they share its cores). Each client round-robins over its own slice of the devices and never sends
///   to a device sooner than the profile's 300 ms frame gap after its last command.
///   Finally the daemon's peak RSS (`VmHWM`).
struct ServeLoadBenchmarks {
    struct Options {
        var daemon: String?
        var profiles = "devices"
        var lights = 500
        var diffusers = 500
        var concurrencies = [16, 48, 120]
        /// Seconds of load at each concurrency.
        var seconds = 10.0
        var seed: UInt64 = 11
    }

    let options: Options
    static let baseTopic = "bench-load"

    func run() async throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent(
            "youll-bench-load-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let broker = try LocalBroker()
        var simulator: ChildProcess?
        defer {
            simulator?.terminate(grace: .seconds(5))
            broker.stop()
            try? FileManager.default.removeItem(at: work)
        }
        let binary = options.daemon ?? MQTTBenchmarks.besideMe("youll-devices")
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw ServeBenchmarks.Failure("no youll-devices at \(binary) (build it in release or pass --daemon)")
        }
        let profiles = URL(fileURLWithPath: options.profiles).standardizedFileURL
        let library = ProfileLibrary.load(directories: [profiles])
        guard library.profile(id: "rgbcct-bulb-v2") != nil else {
            throw ServeBenchmarks.Failure("no device profiles in \(options.profiles) (run from the package root)")
        }
        // The same options and seed as the simulator process: the same ids and keys.
        let fleet = try SimulatorFleet(
            options: .init(lights: options.lights, diffusers: options.diffusers, seed: options.seed),
            library: library, broker: SwarmConfiguration(brokerURL: broker.url))
        simulator = try ChildProcess.spawn(
            binary,
            [
                "simulate", "--lights", "\(options.lights)", "--diffusers", "\(options.diffusers)",
                "--broker", broker.url, "--devices-json", work.appendingPathComponent("devices.json").path,
                "--seed", "\(options.seed)", "--report-delay-ms", "0", "--profiles", profiles.path,
            ], outputPath: work.appendingPathComponent("simulator.log").path)

        let sweep = try await controllerSweep(fleet.identities, library: library, broker: broker)
        let perCommand = sweep / Double(fleet.identities.count)
        print(String(format: "BENCH serve.load.controller.sweep1000 %.1f ms", sweep))
        print(String(format: "BENCH serve.load.controller.rate %.0f /s", 1000 / perCommand))

        let daemon = try DaemonUnderTest(
            binary: binary, work: work, name: "load", baseTopic: Self.baseTopic, brokerURL: broker.url,
            profiles: profiles)
        let names = try await ServeBenchmarks.pair(
            fleet.identities, in: DaemonUnderTest.stateDirectory(work: work, name: "load"))
        let process = try daemon.spawn()
        defer { process.terminate() }
        try await waitUntilOnline(names, broker: broker, daemon: daemon)
        if let rss = ProcessStats.statusMegabytes(process.pid, "VmRSS:") {
            print(String(format: "BENCH serve.load.rss %.1f MB", rss))
            // Heap and stacks apart from the mapped binary and libraries (Foundation, ICU).
            if let anon = ProcessStats.statusMegabytes(process.pid, "RssAnon:"),
                let file = ProcessStats.statusMegabytes(process.pid, "RssFile:")
            {
                print(String(format: "# daemon RSS holding them: %.1f MB anonymous, %.1f MB file-backed", anon, file))
            }
            let files = ProcessStats.residentFiles(process.pid)
            let largest = files.prefix(6).map {
                "\($0.file.split(separator: "/").last ?? "") " + String(format: "%.1f", $0.megabytes)
            }
            print("# largest file-backed parts (MB): \(largest.joined(separator: ", "))")
            let icu = files.filter { $0.file.contains("ICU") }.reduce(0) { $0 + $1.megabytes }
            print(String(format: "BENCH serve.load.rss.icu %.1f MB", icu))
        }

        let targets = names.map { name in
            LoadClientPlan.Target(name: name, field: name.hasPrefix("diffuser") ? "led_brightness" : "brightness")
        }
        let client = try await BridgeLoadClient(url: broker.url, baseTopic: Self.baseTopic)
        // A short warm-up: the first commands of a device allocate what later ones reuse.
        let rig = RigProcesses(daemon: process.pid, simulator: simulator?.pid, broker: broker.pid)
        _ = try await level(16, seconds: 2, targets: targets, client: client, daemon: process, rig: rig, round: 0)
        print(Self.targetLine)
        for (round, concurrency) in options.concurrencies.enumerated() {
            let (measured, cpu) = try await level(
                concurrency, seconds: options.seconds, targets: targets, client: client, daemon: process, rig: rig,
                round: round + 1)
            report(measured, cpu: cpu, controllerPerCommand: perCommand)
        }
        await client.close()
        if let rss = ProcessStats.statusMegabytes(process.pid, "VmRSS:"),
            let peak = ProcessStats.statusMegabytes(process.pid, "VmHWM:")
        {
            print(String(format: "BENCH serve.load.rss.after %.1f MB", rss))
            print(String(format: "BENCH serve.load.rss.peak %.1f MB", peak))
        }
    }

    /// The controller alone: the median of five sweeps of one command to every device.
    private func controllerSweep(_ identities: [DeviceIdentity], library: ProfileLibrary, broker: LocalBroker)
        async throws -> Double
    {
        var stored: [StoredDevice] = []
        for identity in identities {
            guard let id = DeviceID(identity.devId) else { throw ServeBenchmarks.Failure("invalid simulated devId") }
            let device = TuyaDevice(
                id: id, name: identity.name, profileID: identity.profile.id, category: identity.profile.category,
                transport: .mqtt, productID: identity.profile.productIDs.first)
            stored.append(StoredDevice(device: device, localKey: try AESKey(localKey: identity.localKey)))
        }
        let controller = TuyaController(
            bus: try MQTTDeviceBus(configuration: MQTTConfiguration(url: broker.url)), library: library,
            store: InMemoryDeviceStore(devices: stored))
        try await controller.start()
        defer { Task { await controller.stop() } }
        let devices = await controller.devices()
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            var online = 0
            for device in devices where await controller.status(of: device.id)?.availability == .online { online += 1 }
            if online == devices.count { break }
            guard ContinuousClock.now < deadline else {
                throw ServeBenchmarks.Failure("only \(online) of \(devices.count) simulated devices online in 60 s")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        var commands = CommandPlan(devices: devices, library: library)
        let sweeps = try await MQTTBenchmarks.sweeps(controller, devices: devices, commands: &commands)
        await controller.stop()
        print(ServeBenchmarks.spread("controller sweeps", sweeps))
        return ServeBenchmarks.median(sweeps)
    }

    private func waitUntilOnline(_ names: [String], broker: LocalBroker, daemon: DaemonUnderTest) async throws {
        let watch = try await TopicWatch(url: broker.url, filters: ["\(Self.baseTopic)/+/availability"])
        defer { Task { await watch.close() } }
        let topics = Set(names.map { "\(Self.baseTopic)/\($0)/availability" })
        let started = ContinuousClock.now
        do {
            _ = try await watch.waitUntil(after: 0, timeout: .seconds(90), "availability online for every device") {
                ServeBenchmarks.onlineCount($0, topics: topics) == topics.count ? true : nil
            }
        } catch {
            let seen = ServeBenchmarks.onlineCount(await watch.received(after: 0), topics: topics)
            throw ServeBenchmarks.Failure(
                "\(error) (\(seen) of \(topics.count) online); daemon log \(daemon.logPath):\n\(daemon.log.suffix(2000))"
            )
        }
        print(
            String(
                format: "# daemon: all %d devices online %.1f s after the spawn", names.count,
                MQTTBenchmarks.milliseconds(ContinuousClock.now - started) / 1e3))
        await watch.close()
        // The first queries' answers and state publications are done before the load starts.
        try await Task.sleep(for: ServeBenchmarks.settle)
    }

    /// Runs `concurrency` clients for `seconds`; returns what they measured and the daemon's
    /// CPU time in ms over the window.
    private func level(
        _ concurrency: Int, seconds: Double, targets: [LoadClientPlan.Target], client: BridgeLoadClient,
        daemon: ChildProcess, rig: RigProcesses, round: Int
    ) async throws -> (LoadLevel, RigCPU) {
        let plans = LoadClientPlan.plans(clients: concurrency, devices: targets)
        // The level before (or the warm-up) wrote to these devices moments ago: their first
        // commands here would wait out its frame gap in the gateway.
        try await Task.sleep(for: MQTTBenchmarks.frameGap + MQTTBenchmarks.gapMargin)
        let cpuBefore = rig.cpuNanoseconds()
        let start = ContinuousClock.now
        let deadline = start + .milliseconds(Int(seconds * 1000))
        let baseTopic = Self.baseTopic
        var total = LoadLevel(
            concurrency: concurrency, wall: 0, confirmed: 0, failed: 0, timedOut: 0, latencies: [], gapWaits: 0)
        await withTaskGroup(of: LoadLevel.self) { group in
            for plan in plans {
                group.addTask {
                    await plan.run(client, baseTopic: baseTopic, deadline: deadline, sequence: round)
                }
            }
            for await part in group {
                total.confirmed += part.confirmed
                total.failed += part.failed
                total.timedOut += part.timedOut
                total.gapWaits += part.gapWaits
                total.latencies += part.latencies
                if total.firstFailure == nil { total.firstFailure = part.firstFailure }
            }
        }
        let cpu = rig.cpuNanoseconds().milliseconds(since: cpuBefore)
        total.wall = MQTTBenchmarks.milliseconds(deadline - start) / 1e3
        total.latencies.sort()
        guard daemon.isRunning else { throw ServeBenchmarks.Failure("the daemon exited under load") }
        return (total, cpu)
    }

    /// What issue 15 asks of the daemon, printed beside the figures.
    static let targetLine =
        "# target (issue 15): c48 rate >= 2000 /s and p99 < 50 ms with 1,000 devices; daemon RSS <= 48 MB holding them"

    private func report(_ level: LoadLevel, cpu: RigCPU, controllerPerCommand: Double) {
        let name = "serve.load.c\(level.concurrency)"
        print(String(format: "BENCH \(name).rate %.0f /s", level.rate))
        print(String(format: "BENCH \(name).p50 %.2f ms", level.percentile(50)))
        print(String(format: "BENCH \(name).p99 %.2f ms", level.percentile(99)))
        if let daemon = cpu.daemon, level.confirmed > 0 {
            let perCommand = { (ms: Double) in ms * 1000 / Double(level.confirmed) }
            print(String(format: "BENCH \(name).cpu %.0f us", perCommand(daemon)))
            print(
                String(
                    format: "# c%d: daemon CPU %.0f ms over %.1f s (%.0f %% of one core)", level.concurrency, daemon,
                    level.wall, daemon / 10 / level.wall))
            // The rest of the machine's work per command: what bounds the rate on a small host.
            let others = [("simulator", cpu.simulator), ("broker", cpu.broker), ("bench client", cpu.bench)]
            print(
                "# c\(level.concurrency): CPU per confirmed command: daemon "
                    + String(format: "%.0f us", perCommand(daemon))
                    + others.map { label, ms in
                        ms.map { ", \(label) " + String(format: "%.0f us", perCommand($0)) } ?? ""
                    }
                    .joined())
        }
        print(
            "# c\(level.concurrency): \(level.confirmed) confirmed, \(level.failed) failed, \(level.timedOut) timed out, "
                + "\(level.gapWaits) waits for the frame gap"
                + (level.firstFailure.map { "; first failure: \($0)" } ?? ""))
        // Daemon time per confirmed command over the controller's, from the rates: lower is better.
        if level.rate > 0 {
            ServeBenchmarks.printRatio("\(name).vs-controller", 1000 / controllerPerCommand, level.rate)
        }
    }
}

/// The processes of the rig whose CPU time is counted per confirmed command.
struct RigProcesses {
    var daemon: pid_t
    var simulator: pid_t?
    var broker: pid_t?

    func cpuNanoseconds() -> RigCPU.Sample {
        RigCPU.Sample(
            daemon: ProcessStats.cpuNanoseconds(daemon), simulator: simulator.flatMap(ProcessStats.cpuNanoseconds),
            broker: broker.flatMap(ProcessStats.cpuNanoseconds), bench: ProcessStats.cpuNanoseconds(getpid()))
    }
}

/// CPU time in ms over a load level, per process of the rig (nil where /proc said nothing).
struct RigCPU {
    struct Sample {
        var daemon: UInt64?
        var simulator: UInt64?
        var broker: UInt64?
        var bench: UInt64?

        func milliseconds(since before: Sample) -> RigCPU {
            let span = { (after: UInt64?, before: UInt64?) -> Double? in
                guard let after, let before, after >= before else { return nil }
                return Double(after - before) / 1e6
            }
            return RigCPU(
                daemon: span(daemon, before.daemon), simulator: span(simulator, before.simulator),
                broker: span(broker, before.broker), bench: span(bench, before.bench))
        }
    }

    var daemon: Double?
    var simulator: Double?
    var broker: Double?
    var bench: Double?
}
