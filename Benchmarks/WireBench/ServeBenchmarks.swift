import DeviceSimulator
import Foundation
import LocalBroker
import Storage
import TuyaCore

#if canImport(Glibc)
    import Glibc
#endif

/// The `serve` suite: the real `youll-devices serve` binary (release) against a private
/// mosquitto (LocalBroker on 127.0.0.1).
///
/// - Start: 1,000 devices (500 lights, 500 diffusers) paired in the state directory
///   through Storage, each with its key and a confirmed state, none of them reachable.
///   Timed from spawning `serve` to `bridge/state` online at this process's client
///   (`serve.start1000`), and to `bridge/devices` listing all 1,000
///   (`serve.start1000.devices`); the median of `starts` runs, after one warm-up. The
///   floor, in the same run and through the same broker and client: spawning the plain C
///   libmosquitto client (`mqtt_floor --announce`) until its retained QoS-1 publish
///   arrives (`serve.floor.announce`).
/// - Idle: 100 simulated devices (50 lights, 50 diffusers) on the broker, in this
///   process, paired before the daemon starts. Once all report `availability` online
///   (and a short settle), the daemon's CPU time (utime + stime in /proc) over
///   `idleSeconds` of wall time, as a percentage of one core (`serve.idle100.cpu`), and
///   its RSS after the window. The broker's CPU over the same window is the baseline.
struct ServeBenchmarks {
    struct Options {
        /// The release `youll-devices` (default: beside this executable).
        var daemon: String?
        /// The compiled `mqtt_floor`; without it the floor is skipped.
        var floor: String?
        var profiles = "devices"
        var pairedDevices = 1000
        var onlineDevices = 100
        /// Timed starts of the daemon (and of the floor), after one warm-up of each.
        var starts = 5
        var idleSeconds = 60.0
        var seed: UInt64 = 7
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    static let online = #"{"state":"online"}"#
    /// After the last device came online: the daemon's first queries and state publications
    /// are done before the idle window opens.
    static let settle = Duration.seconds(2)

    let options: Options

    func run() async throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent(
            "youll-bench-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let broker = try LocalBroker()
        defer {
            broker.stop()
            try? FileManager.default.removeItem(at: work)
        }
        let daemon = options.daemon ?? MQTTBenchmarks.besideMe("youll-devices")
        guard FileManager.default.isExecutableFile(atPath: daemon) else {
            throw Failure("no youll-devices at \(daemon) (build it in release or pass --daemon)")
        }
        let profiles = URL(fileURLWithPath: options.profiles).standardizedFileURL
        let library = ProfileLibrary.load(directories: [profiles])
        guard library.profile(id: "rgbcct-bulb-v2") != nil else {
            throw Failure("no device profiles in \(options.profiles) (run from the package root or pass --profiles)")
        }
        try await measureStart(
            DaemonUnderTest(
                binary: daemon, work: work, name: "start", baseTopic: "bench", brokerURL: broker.url,
                profiles: profiles),
            stateDirectory: DaemonUnderTest.stateDirectory(work: work, name: "start"), broker: broker,
            library: library)
        try await measureIdle(
            DaemonUnderTest(
                binary: daemon, work: work, name: "idle", baseTopic: "bench-idle", brokerURL: broker.url,
                profiles: profiles),
            stateDirectory: DaemonUnderTest.stateDirectory(work: work, name: "idle"), broker: broker,
            library: library)
    }

    // MARK: - Start with 1,000 paired devices

    private func measureStart(
        _ daemon: DaemonUnderTest, stateDirectory: URL, broker: LocalBroker, library: ProfileLibrary
    ) async throws {
        let lights = options.pairedDevices / 2
        let fleet = try SimulatorFleet(
            options: .init(lights: lights, diffusers: options.pairedDevices - lights, seed: options.seed),
            library: library, broker: SwarmConfiguration(brokerURL: broker.url))
        let seeding = ContinuousClock.now
        try await Self.pair(fleet.identities, in: stateDirectory)
        print(
            String(
                format: "# paired %d unreachable devices in the state directory in %.1f s",
                fleet.identities.count, MQTTBenchmarks.milliseconds(ContinuousClock.now - seeding) / 1e3))

        let state = "bench/bridge/state"
        let devices = "bench/bridge/devices"
        let floorTopic = "bench-floor/bridge/state"
        let watch = try await TopicWatch(url: broker.url, filters: [state, devices, floorTopic])
        var starts: [Double] = []
        var stops: [Double] = []
        var listed: [Double] = []
        var floors: [Double] = []
        let expected = fleet.identities.count
        for run in 0...options.starts {
            if let floor = options.floor {
                let time = try await announceFloor(floor, topic: floorTopic, port: broker.port, watch: watch)
                if run > 0 { floors.append(time) }
            }
            // No retained state or list from the last run: only this start's messages count.
            try await watch.publishRetained(state, [])
            try await watch.publishRetained(devices, [])
            let mark = await watch.mark
            let spawned = ContinuousClock.now
            let process = try daemon.spawn()
            do {
                let ready = try await watch.wait(for: state, after: mark, timeout: .seconds(30)) {
                    $0.text == Self.online
                }
                let list = try await watch.wait(for: devices, after: mark, timeout: .seconds(30)) {
                    Self.arrayCount($0.payload) == expected
                }
                if run > 0 {
                    starts.append(MQTTBenchmarks.milliseconds(ready.receivedAt - spawned))
                    listed.append(MQTTBenchmarks.milliseconds(list.receivedAt - spawned))
                }
            } catch {
                process.kill()
                throw Failure("\(error); daemon log \(daemon.logPath):\n\(daemon.log.suffix(2000))")
            }
            let stopping = ContinuousClock.now
            guard process.terminate() else {
                throw Failure(
                    "the daemon did not stop within 10 s of SIGTERM; its log ends:\n\(daemon.log.suffix(3000))")
            }
            if run > 0 { stops.append(MQTTBenchmarks.milliseconds(ContinuousClock.now - stopping)) }
        }
        await watch.close()

        Self.reportStarts(starts, listed: listed, floors: floors, devices: expected)
        // SIGTERM to exit, holding 1,000 devices (polled every 10 ms).
        Self.print1("serve.stop1000", Self.median(stops.sorted()), "ms")
        Self.print1("serve.stop1000.max", stops.max() ?? 0, "ms")
    }

    /// Prints the start times (spawn to online, spawn to the full device list) and, with
    /// `floors`, how they compare with the C floor's.
    private static func reportStarts(_ starts: [Double], listed: [Double], floors: [Double], devices expected: Int) {
        let starts = starts.sorted()
        let listed = listed.sorted()
        let floors = floors.sorted()
        print1("serve.start1000", median(starts), "ms")
        print1("serve.start1000.max", starts.last ?? 0, "ms")
        print1("serve.start1000.devices", median(listed), "ms")
        print(spread("daemon starts (spawn to bridge/state online)", starts))
        print(spread("daemon starts (spawn to bridge/devices with \(expected))", listed))
        if !floors.isEmpty {
            print1("serve.floor.announce", median(floors), "ms")
            print(spread("floor starts (spawn to its retained publish)", floors))
            printRatio("serve.start1000.vs-floor", median(starts), median(floors))
        }
    }

    /// One run of the floor: spawn `mqtt_floor --announce` and time its retained publish.
    private func announceFloor(_ floor: String, topic: String, port: Int, watch: TopicWatch) async throws -> Double {
        try await watch.publishRetained(topic, [])
        let mark = await watch.mark
        let spawned = ContinuousClock.now
        let process = try ChildProcess.spawn(floor, ["--announce", "127.0.0.1", "\(port)", topic, Self.online])
        let message = try await watch.wait(for: topic, after: mark, timeout: .seconds(10)) { $0.text == Self.online }
        guard process.waitForExit() == 0 else { throw Failure("mqtt_floor --announce failed") }
        return MQTTBenchmarks.milliseconds(message.receivedAt - spawned)
    }

    // MARK: - Idle with 100 online devices

    private func measureIdle(
        _ daemon: DaemonUnderTest, stateDirectory: URL, broker: LocalBroker, library: ProfileLibrary
    ) async throws {
        let lights = options.onlineDevices / 2
        let fleet = try SimulatorFleet(
            options: .init(lights: lights, diffusers: options.onlineDevices - lights, seed: options.seed &+ 1),
            library: library, broker: SwarmConfiguration(brokerURL: broker.url))
        let names = try await Self.pair(fleet.identities, in: stateDirectory)
        try await fleet.start()
        defer { fleet.stop() }
        guard await fleet.waitUntilConnected(timeout: .seconds(30)) else {
            throw Failure("the \(options.onlineDevices) simulated devices did not connect within 30 s")
        }

        let watch = try await TopicWatch(url: broker.url, filters: ["bench-idle/+/availability"])
        let process = try daemon.spawn()
        defer {
            process.terminate()
        }
        let topics = Set(names.map { "bench-idle/\($0)/availability" })
        do {
            _ = try await watch.waitUntil(after: 0, timeout: .seconds(60), "availability online for every device") {
                Self.onlineCount($0, topics: topics) == topics.count ? true : nil
            }
        } catch {
            let seen = Self.onlineCount(await watch.received(after: 0), topics: topics)
            throw Failure("\(error) (\(seen) of \(topics.count) online); daemon log \(daemon.logPath)")
        }
        try await Task.sleep(for: Self.settle)

        guard let brokerPID = broker.pid else { throw Failure("the broker is not running") }
        guard let daemonBefore = ProcessStats.cpuTicks(process.pid), let brokerBefore = ProcessStats.cpuTicks(brokerPID)
        else { throw Failure("cannot read /proc/<pid>/stat of the daemon or the broker") }
        let preciseBefore = (ProcessStats.cpuNanoseconds(process.pid), ProcessStats.cpuNanoseconds(brokerPID))
        let opened = ContinuousClock.now
        try await Task.sleep(for: .seconds(options.idleSeconds))
        guard let daemonAfter = ProcessStats.cpuTicks(process.pid), let brokerAfter = ProcessStats.cpuTicks(brokerPID)
        else { throw Failure("the daemon or the broker exited during the idle window") }
        let preciseAfter = (ProcessStats.cpuNanoseconds(process.pid), ProcessStats.cpuNanoseconds(brokerPID))
        let wall = MQTTBenchmarks.milliseconds(ContinuousClock.now - opened) / 1e3
        let rss = ProcessStats.statusMegabytes(process.pid, "VmRSS:")
        let stillOnline = Self.onlineCount(await watch.received(after: 0), topics: topics)
        await watch.close()

        Self.reportIdle(
            IdleWindow(
                wall: wall, daemonTicks: daemonAfter - daemonBefore, brokerTicks: brokerAfter - brokerBefore,
                daemonNanoseconds: preciseBefore.0.flatMap { start in preciseAfter.0.map { (start, $0) } },
                brokerNanoseconds: preciseBefore.1.flatMap { start in preciseAfter.1.map { (start, $0) } },
                rss: rss, online: stillOnline, devices: topics.count))
    }

    /// What the idle window measured: wall seconds, CPU ticks, the precise CPU clocks
    /// (start, end) where the kernel has them, the daemon's RSS, devices online at the end.
    struct IdleWindow {
        var wall: Double
        var daemonTicks: Int
        var brokerTicks: Int
        var daemonNanoseconds: (UInt64, UInt64)?
        var brokerNanoseconds: (UInt64, UInt64)?
        var rss: Double?
        var online: Int
        var devices: Int
    }

    /// Prints the idle CPU of the daemon and the broker, the daemon's RSS, and their ratio
    /// (from the nanosecond clocks when the broker used any time, else from ticks).
    private static func reportIdle(_ window: IdleWindow) {
        let (wall, daemonTicks, brokerTicks) = (window.wall, window.daemonTicks, window.brokerTicks)
        let percent = { (ticks: Int) in Double(ticks) / ProcessStats.ticksPerSecond / wall * 100 }
        print(String(format: "BENCH serve.idle100.cpu %.2f %%", percent(daemonTicks)))
        print(String(format: "BENCH serve.idle100.broker.cpu %.2f %%", percent(brokerTicks)))
        if let rss = window.rss { print(String(format: "BENCH serve.idle100.rss %.1f MB", rss)) }
        print(
            String(
                format:
                    "# idle window %.1f s: daemon %d ticks, broker %d ticks (%.0f ticks/s); %d of %d devices online at the end",
                wall, daemonTicks, brokerTicks, ProcessStats.ticksPerSecond, window.online, window.devices))
        // A tick is 10 ms: the broker may use only a few in the window, so the ratio comes
        // from the processes' nanosecond CPU-time clocks when the kernel has them.
        if let (daemonStart, daemonEnd) = window.daemonNanoseconds,
            let (brokerStart, brokerEnd) = window.brokerNanoseconds, brokerEnd > brokerStart, daemonEnd >= daemonStart
        {
            let daemonTime = Double(daemonEnd - daemonStart) / 1e6
            let brokerTime = Double(brokerEnd - brokerStart) / 1e6
            print(
                String(
                    format:
                        "# CPU time in the window (clock_getcpuclockid): daemon %.1f ms (%.3f %%), broker %.1f ms (%.3f %%)",
                    daemonTime, daemonTime / 10 / wall, brokerTime, brokerTime / 10 / wall))
            printRatio("serve.idle100.cpu.vs-broker", daemonTime, brokerTime)
        } else if brokerTicks > 0 {
            printRatio("serve.idle100.cpu.vs-broker", Double(daemonTicks), Double(brokerTicks))
        } else {
            print("# the broker used no measurable CPU in the window (under one tick): no ratio")
        }
    }

    // MARK: - Helpers

    /// Pairs `identities` in a fresh state database through Storage's public API, as
    /// `device/add` would leave them: the device, its key, and a confirmed state (the
    /// simulated device's initial data points). Returns the names, which are the topics'
    /// device level (`light-0001`, `diffuser-0001`).
    @discardableResult
    static func pair(_ identities: [DeviceIdentity], in directory: URL) async throws -> [String] {
        let database = try GatewayDatabase.open(directory: directory)
        var names: [String] = []
        var counts: [String: Int] = [:]
        for identity in identities {
            let profile = identity.profile
            guard let id = DeviceID(identity.devId) else { throw Failure("invalid simulated devId") }
            let kind = identity.name.contains("diffuser") ? "diffuser" : "light"
            counts[kind, default: 0] += 1
            let name = kind + "-" + String(format: "%04d", counts[kind] ?? 0)
            let device = TuyaDevice(
                id: id, name: name, profileID: profile.id, category: profile.category, transport: .mqtt,
                productID: profile.productIDs.first)
            try await database.saveDevice(device, localKey: LocalKey(identity.localKey))
            let simulated = try SimulatedDevice(devId: identity.devId, localKey: identity.localKey, profile: profile)
            try await database.saveConfirmed(simulated.state, for: id)
            names.append(name)
        }
        try database.close()
        return names
    }

    /// How many of `topics` last said online.
    static func onlineCount(_ messages: ArraySlice<TopicWatch.Message>, topics: Set<String>) -> Int {
        var last: [String: Bool] = [:]
        for message in messages where topics.contains(message.topic) { last[message.topic] = message.text == online }
        return last.values.filter { $0 }.count
    }

    /// The element count of a JSON array payload, nil for anything else.
    static func arrayCount(_ payload: [UInt8]) -> Int? {
        guard !payload.isEmpty else { return nil }
        return ((try? JSONSerialization.jsonObject(with: Data(payload))) as? [Any])?.count
    }

    static func median(_ sorted: [Double]) -> Double {
        sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    static func spread(_ what: String, _ sorted: [Double]) -> String {
        guard let first = sorted.first, let last = sorted.last else { return "# \(what): none" }
        return "# \(what): "
            + String(format: "min %.1f, median %.1f, max %.1f ms over %d", first, median(sorted), last, sorted.count)
    }

    static func print1(_ name: String, _ value: Double, _ unit: String) {
        print("BENCH \(name) \(String(format: "%.1f", value)) \(unit)")
    }

    /// `BENCH <name>.ratio <value> x`, as scripts/bench prints its ratios.
    static func printRatio(_ name: String, _ value: Double, _ baseline: Double) {
        guard baseline > 0 else { return }
        print("BENCH \(name).ratio \(String(format: "%.2f", value / baseline)) x")
    }
}
