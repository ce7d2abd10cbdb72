import Foundation
import LocalBroker
import MQTTLink
import TuyaController
import TuyaCore
import TuyaWire
import Storage

/// The `mqtt` suite: TuyaController over a real broker (LocalBroker on 127.0.0.1) to
/// 1,000 simulated devices (500 lights, 500 diffusers) run by `youll-devices simulate` in
/// a separate process, so this process's peak RSS is the gateway's own. Then the C floor
/// (Benchmarks/mqtt-floor, compiled by scripts/bench) does the same round trips and sweep
/// through the same broker to the same simulator process, after the controller stopped.
///
/// Round trip samples rotate over the devices (sample i goes to device i % 1,000) and
/// each device gets its two values alternately, so every command changes its state; when
/// the rotation comes back to a device sooner than the profile's 300 ms frame gap, the
/// loop waits before starting the clock, so no sample includes the gateway's gap wait.
/// The floor does exactly the same (its GAP_MS argument).
struct MQTTBenchmarks {
    struct Options {
        /// `youll-devices` (default: beside this executable).
        var simulator: String?
        /// The compiled `mqtt_floor`; without it the floor is skipped.
        var floor: String?
        var profiles = "devices"
        var lights = 500
        var diffusers = 500
        var samples = 2000
        var seed: UInt64 = 42
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// The two values each device alternates between (percent brightness; the devices
    /// start elsewhere, so the first command changes state too).
    static let values = [37, 63]
    static let frameGap = Duration.milliseconds(300)
    /// Waiting a little past the gap keeps clock granularity from delaying a sample.
    static let gapMargin = Duration.milliseconds(2)

    let options: Options

    func run() async throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent(
            "youll-bench-mqtt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let broker = try LocalBroker()
        let simulator = Spawned()
        defer {
            // Also on error: no process of the bench outlives it.
            stop(simulator.process)
            broker.stop()
            try? FileManager.default.removeItem(at: work)
        }
        try await measure(broker: broker, work: work, simulator: simulator)
    }

    /// The simulator process, once launched, for the cleanup in `run`.
    final class Spawned {
        var process: ChildProcess?
    }

    /// Sweeps measured on each side; the median is reported (the C floor uses the same).
    static let sweepCount = 5

    // MARK: - The run

    private func measure(broker: LocalBroker, work: URL, simulator spawned: Spawned) async throws {
        let library = ProfileLibrary.load(directories: [URL(fileURLWithPath: options.profiles)])
        guard library.profile(id: "rgbcct-bulb-v2") != nil else {
            throw Failure("no device profiles in \(options.profiles) (run from the package root or pass --profiles)")
        }
        let count = options.lights + options.diffusers
        let rssBefore = Self.statusMegabytes("VmRSS:")
        let controller = TuyaController(
            bus: try MQTTDeviceBus(configuration: MQTTConfiguration(url: broker.url)), library: library)
        try await controller.start()
        // Subscribed before the devices connect: their first reports show up as pairing
        // candidates, which tells when every device is on the broker.
        await controller.openPairingWindow()

        let devicesJSON = work.appendingPathComponent("devices.json")
        let simulator = try launchSimulator(broker: broker, devicesJSON: devicesJSON, log: work)
        spawned.process = simulator
        try await waitForCandidates(controller, count: count, simulator: simulator, log: work)
        await controller.closePairingWindow()

        // Pair all of them at once, as `pair import` would.
        let json = try [UInt8](Data(contentsOf: devicesJSON))
        let outcomes = try await controller.importTinyTuya(devicesJSON: json)
        let keys = Dictionary(uniqueKeysWithValues: outcomes.map { ($0.0.id, $0.0.localKey) })
        let devices = outcomes.compactMap { _, outcome -> TuyaDevice? in
            if case .paired(let device) = outcome { return device }
            return nil
        }
        guard devices.count == count else {
            let failed = outcomes.first { if case .paired = $0.1 { false } else { true } }
            throw Failure(
                "paired \(devices.count) of \(count); first failure: \(failed.map { "\($0.0): \($0.1)" } ?? "?")")
        }
        // Let the burst of first queries after pairing settle.
        try await Task.sleep(for: .seconds(1))
        let rssPaired = Self.statusMegabytes("VmRSS:")

        var commands = CommandPlan(devices: devices, library: library)

        try await measureRoundTrips(controller, devices: devices, commands: &commands)
        try await measureSweeps(controller, devices: devices, commands: &commands)

        if let peak = Self.statusMegabytes("VmHWM:") {
            print(String(format: "BENCH mqtt.gateway.rss.peak %.1f MB", peak))
            // Context for the peak: the process before the controller existed, and now.
            let now = Self.statusMegabytes("VmRSS:") ?? 0
            print(
                String(
                    format: "# gateway RSS %.1f MB before the controller, %.1f MB paired, %.1f MB after the sweep",
                    rssBefore ?? 0, rssPaired ?? 0, now))
        }
        await controller.stop()

        // The floor: same broker, same simulator process, same rotation and values.
        if let floor = options.floor {
            let frames = work.appendingPathComponent("frames.txt")
            try commands.floorFrames(keys: keys).write(to: frames, atomically: true, encoding: .utf8)
            try await runFloor(floor, port: broker.port, frames: frames)
        }
    }

    /// Waits (up to 60 s) until `count` devices have shown up as pairing candidates, or
    /// the simulator has exited.
    private func waitForCandidates(_ controller: TuyaController, count: Int, simulator: ChildProcess, log work: URL)
        async throws
    {
        let deadline = ContinuousClock.now + .seconds(60)
        while await controller.pairingCandidates().count < count {
            guard simulator.isRunning else { throw Failure("the simulator exited (log: \(work.path)/simulator.log)") }
            guard ContinuousClock.now < deadline else {
                let seen = await controller.pairingCandidates().count
                throw Failure("only \(seen) of \(count) simulated devices came online in 60 s")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Round trip: one command at a time, rotating over the devices; reports p50 and p99.
    private func measureRoundTrips(_ controller: TuyaController, devices: [TuyaDevice], commands: inout CommandPlan)
        async throws
    {
        var samples: [Double] = []
        samples.reserveCapacity(options.samples)
        for sample in 0..<options.samples {
            let index = sample % devices.count
            try await commands.waitForGap(index)
            let (command, _) = commands.next(index)
            let start = ContinuousClock.now
            _ = try await controller.send(command, to: devices[index].id)
            samples.append(milliseconds(ContinuousClock.now - start))
        }
        samples.sort()
        report3("mqtt.rtt.p50", samples[samples.count / 2], "ms")
        report3("mqtt.rtt.p99", samples[samples.count * 99 / 100], "ms")
    }

    /// Sweeps: one command to every device at once, until all are confirmed; the median of
    /// `sweepCount`, as the C floor reports, since one ~100 ms sweep on a shared 2-core
    /// machine is noisy.
    private func measureSweeps(_ controller: TuyaController, devices: [TuyaDevice], commands: inout CommandPlan)
        async throws
    {
        let sweeps = try await Self.sweeps(controller, devices: devices, commands: &commands)
        print(String(format: "BENCH mqtt.sweep1000 %.1f ms", sweeps[sweeps.count / 2]))
        print(
            String(
                format: "# gateway sweeps: min %.1f, median %.1f, max %.1f ms over %d", sweeps[0],
                sweeps[sweeps.count / 2], sweeps[sweeps.count - 1], sweeps.count))
    }

    /// `sweepCount` sweeps of one command to every device at once, each until all are
    /// confirmed, in milliseconds, sorted; throws when a command is not confirmed.
    static func sweeps(_ controller: TuyaController, devices: [TuyaDevice], commands: inout CommandPlan)
        async throws -> [Double]
    {
        var sweeps: [Double] = []
        for _ in 0..<sweepCount {
            for index in devices.indices { try await commands.waitForGap(index) }
            let batch = devices.indices.map { index in (devices[index].id, commands.next(index).command) }
            let start = ContinuousClock.now
            let failures = await withTaskGroup(of: Bool.self) { group in
                for (id, command) in batch {
                    group.addTask { (try? await controller.send(command, to: id)) == nil }
                }
                return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            sweeps.append(milliseconds(ContinuousClock.now - start))
            guard failures == 0 else {
                throw Failure("\(failures) of \(devices.count) sweep commands were not confirmed")
            }
        }
        return sweeps.sorted()
    }

    // MARK: - Processes

    private func launchSimulator(broker: LocalBroker, devicesJSON: URL, log: URL) throws -> ChildProcess {
        let path = options.simulator ?? Self.besideMe("youll-devices")
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw Failure("no youll-devices at \(path) (build it in release or pass --simulator)")
        }
        return try ChildProcess.spawn(
            path,
            [
                "simulate", "--lights", "\(options.lights)", "--diffusers", "\(options.diffusers)",
                "--broker", broker.url, "--devices-json", devicesJSON.path, "--seed", "\(options.seed)",
                "--report-delay-ms", "0", "--profiles", options.profiles,
            ],
            outputPath: log.appendingPathComponent("simulator.log").path)
    }

    /// SIGTERM (the simulator disconnects its devices), SIGKILL after 5 s.
    private func stop(_ process: ChildProcess?) {
        guard let process, process.isRunning else { return }
        process.signal(SIGTERM)
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { process.kill() }
    }

    private func runFloor(_ path: String, port: Int, frames: URL) async throws {
        // The floor bounds its own waits (5 s per round trip, 30 s for the sweep).
        let output = try await ChildProcess.run(
            path,
            ["\(port)", frames.path, "\(options.samples)", "\(Self.milliseconds(Self.frameGap + Self.gapMargin))"])
        guard output.status == 0 else {
            throw Failure("mqtt_floor exited with \(output.status.map(String.init) ?? "a signal")")
        }
        for line in output.stdout.split(separator: "\n") where line.hasPrefix("BENCH ") {
            print(line)
        }
    }

    // MARK: - Helpers

    static func besideMe(_ name: String) -> String {
        let me =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent(name).path
    }

    /// A kB field of /proc/self/status in MB: `VmHWM:` is this process's peak RSS (the
    /// gateway: controller, bus, links, and this harness), `VmRSS:` the current one.
    static func statusMegabytes(_ field: String) -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(field) {
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap { Double($0) }
            return kilobytes.map { $0 / 1024 }
        }
        return nil
    }

    static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) * 1e-15
    }

    private func milliseconds(_ duration: Duration) -> Double { Self.milliseconds(duration) }

    private func report3(_ name: String, _ value: Double, _ unit: String) {
        print("BENCH \(name) \(String(format: "%.3f", value)) \(unit)")
    }
}

/// Which command goes to which device next, shared by the gateway's run and the floor's
/// frames: device i's n-th command sets the value `values[n % 2]`.
struct CommandPlan {
    let devices: [TuyaDevice]
    let library: ProfileLibrary
    private(set) var sent: [Int]
    private var lastSent: [ContinuousClock.Instant?]

    init(devices: [TuyaDevice], library: ProfileLibrary) {
        self.devices = devices
        self.library = library
        sent = Array(repeating: 0, count: devices.count)
        lastSent = Array(repeating: nil, count: devices.count)
    }

    static func command(for device: TuyaDevice, value: Int) -> DeviceCommand {
        device.profileID.contains("diffuser")
            ? .diffuser(DiffuserCommand(ledBrightness: value)) : .light(LightCommand(brightness: value))
    }

    /// Sleeps until the frame gap since the last command to device `index` has passed.
    func waitForGap(_ index: Int) async throws {
        guard let last = lastSent[index] else { return }
        let release = last + MQTTBenchmarks.frameGap + MQTTBenchmarks.gapMargin
        if ContinuousClock.now < release { try await Task.sleep(until: release, clock: .continuous) }
    }

    mutating func next(_ index: Int) -> (command: DeviceCommand, value: Int) {
        let value = MQTTBenchmarks.values[sent[index] % 2]
        sent[index] += 1
        lastSent[index] = ContinuousClock.now
        return (Self.command(for: devices[index], value: value), value)
    }

    /// The floor's FRAMES_FILE: per device, its next two commands as encrypted protocol-5
    /// frames, in the order the floor alternates them.
    func floorFrames(keys: [DeviceID: String]) throws -> String {
        var lines: [String] = []
        lines.reserveCapacity(devices.count)
        let now = Int64(Date().timeIntervalSince1970)
        for (index, device) in devices.enumerated() {
            guard let profile = library.profile(id: device.profileID), let localKey = keys[device.id] else {
                throw MQTTBenchmarks.Failure("no profile or key for \(device.id)")
            }
            let key = try AESKey(localKey: localKey)
            let mapper = DataPointMapper(profile: profile)
            var hexFrames: [String] = []
            for step in 0..<2 {
                let value = MQTTBenchmarks.values[(sent[index] + step) % 2]
                let writes = try mapper.writes(for: Self.command(for: device, value: value))
                let body = TuyaEnvelope.command(dps: DataPointJSON.encode(writes)).encode(timestamp: now)
                let frame = try MQTTFrame.encode(
                    body: body, key: key, sequence: UInt32(sent[index] + step) & 0xffff, source: 0)
                hexFrames.append(frame.map { String(format: "%02x", $0) }.joined())
            }
            lines.append("\(device.id.rawValue) \(hexFrames.joined(separator: " "))")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
