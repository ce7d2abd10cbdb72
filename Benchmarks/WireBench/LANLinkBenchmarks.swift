import DeviceSimulator
import Foundation
import LocalBroker
import Storage
import TuyaController
import TuyaCore
import TuyaWire

#if canImport(Glibc)
    import Glibc
#endif

/// The LAN path end to end, per protocol version: `TuyaController.send` to a paired LAN bulb
/// → the link's one persistent TCP connection (session key agreed for 3.4/3.5) → a CONTROL
/// frame to a simulated device on its own loopback address → its answer and STATUS push →
/// decrypted and confirmed. Beside it, in the same run, the floor: a raw 64-byte echo over a
/// loopback TCP connection between two threads doing blocking `write`/`read`.
///
/// The profile's frame gap (a rate limit towards real bulbs) is set to 0, and the simulated
/// device answers at once, so the figure is the gateway's path, not a wait.
///
/// With `python` (scripts/python-tools), the peer too: once the gateway has let the device
/// go, tinytuya's `Device.set_value` on one persistent connection to the same simulated
/// device (Benchmarks/tinytuya/bench_tinytuya_set.py), and how many times faster ours is.
struct LANLinkBenchmarks {
    var samples = 1000
    var profiles = "devices"
    var python: String?
    /// Only the DP writes through the controller (for a profiler): no floor, no hops, no peer.
    var dpWriteOnly = false

    func run() async throws {
        if dpWriteOnly {
            for version in [LANProtocolVersion.v3_3, .v3_4, .v3_5] {
                let name = version.benchName
                let figures = try await dpWrites(version: version, hops: false)
                report("\(name).dpwrite", figures.times)
                report("\(name).dpwrite.on-link-executor", figures.onExecutor)
            }
            return
        }
        let floor = try tcpEcho(samples: samples * 5)
        report("lan.floor.tcp-echo.p50", floor[floor.count / 2])
        report("lan.floor.tcp-echo.p99", floor[floor.count * 99 / 100])
        let pinned = try pinnedFloors("lan.floor.tcp-echo") { try tcpEcho(samples: samples * 5, placement: $0) }
        let streamEcho = try await LANHops.streamEcho(samples: samples * 5)
        report("lan.hop.stream-echo.p50", streamEcho[streamEcho.count / 2])
        report("lan.hop.stream-echo.p99", streamEcho[streamEcho.count * 99 / 100])
        for version in [LANProtocolVersion.v3_3, .v3_4, .v3_5] {
            let name = version.benchName
            let figures = try await dpWrites(version: version)
            let (times, peer) = (figures.times, figures.peer)
            report("\(name).hop.session", figures.hop)
            report("\(name).hop.loop-session", figures.loopHop)
            report("\(name).dpwrite", times)
            report("\(name).dpwrite.on-link-executor", figures.onExecutor)
            reportRatios("\(name).dpwrite.on-link-executor.p50.vs-tcp-echo", of: figures.onExecutor, to: pinned)
            print(
                "BENCH \(name).dpwrite.p50.vs-tcp-echo.ratio \(String(format: "%.2f", times[times.count / 2] / floor[floor.count / 2])) x"
            )
            reportRatios("\(name).dpwrite.p50.vs-tcp-echo", of: times, to: pinned)
            print(
                "BENCH \(name).dpwrite.p99.vs-tcp-echo.ratio \(String(format: "%.2f", times[times.count * 99 / 100] / floor[floor.count * 99 / 100])) x"
            )
            guard let peer else { continue }
            print(peer.lines.joined(separator: "\n"))
            print(
                "BENCH \(name).dpwrite.p50.faster-than-tinytuya.ratio \(String(format: "%.2f", peer.p50 / times[times.count / 2])) x"
            )
            print(
                "BENCH \(name).dpwrite.p50.faster-than-tinytuya-nowait.ratio \(String(format: "%.2f", peer.p50NoWait / times[times.count / 2])) x"
            )
        }
    }

    /// tinytuya's figures for one device: its BENCH lines and its p50s in microseconds, as
    /// users run it (10 ms `sendWait` after each send) and with `set_sendWait(None)`.
    struct Peer {
        var lines: [String]
        var p50: Double
        var p50NoWait: Double
    }

    private func report(_ name: String, _ microseconds: Double) {
        print("BENCH \(name) \(String(format: "%.1f", microseconds)) us")
    }

    /// `<name>.p50` and `<name>.p99` of sorted times.
    private func report(_ name: String, _ times: [Double]) {
        report("\(name).p50", times[times.count / 2])
        report("\(name).p99", times[times.count * 99 / 100])
    }

    /// The figures of one version: DP writes from a task on the pool (`times`) and from a task
    /// preferring the link's executor (`onExecutor`), then, once the controller let the bulb
    /// go, the session round trips without the controller and tinytuya's.
    struct Figures {
        var times: [Double]
        var onExecutor: [Double]
        var hop: [Double] = []
        var loopHop: [Double] = []
        var peer: Peer?
    }

    /// Writes that each change the bulb's brightness, confirmed, in microseconds, sorted: from
    /// a task on the pool, then from a task preferring the link's executor (its event loop).
    /// With them, the same round trip without the controller (`LANHops.session`), measured
    /// once the controller has let the bulb go.
    private func dpWrites(version: LANProtocolVersion, hops: Bool = true) async throws -> Figures {
        var library = ProfileLibrary.load(directories: [URL(fileURLWithPath: profiles)])
        guard var profile = library.profile(id: "rgbcct-bulb-v2") else {
            throw BenchError("the profile rgbcct-bulb-v2 is not in \(profiles)")
        }
        profile.frameGapMilliseconds = 0
        library = ProfileLibrary(profiles: library.all.filter { $0.id != profile.id } + [profile])
        let base = "127.\(Int.random(in: 100...250)).\(Int.random(in: 1...250)).1"
        let fleet = try LANSimulatorFleet(
            options: .init(
                lights: 1, diffusers: 0, versions: [version], baseAddress: base, broadcastInterval: nil,
                solicitationPort: 0, behaviour: DeviceBehaviour(reportDelay: .zero)),
            library: library)
        try await fleet.start()
        let controller = TuyaController(bus: SilentBus(), library: library)
        try await controller.start()
        guard let identity = fleet.identities.first else { throw BenchError("no simulated LAN bulb") }
        let outcome = try await controller.pairLAN(
            devId: identity.devId, localKey: identity.localKey, ip: identity.ip, version: version.rawValue,
            profileID: profile.id)
        guard case .paired(let paired) = outcome else { throw BenchError("LAN pairing failed: \(outcome)") }
        let name = version.benchName
        let times = try await timedSends(controller, to: paired.id, name: "\(name).dpwrite")
        guard let executor = await controller.preferredExecutor(for: paired.id) else {
            throw BenchError("the LAN link of \(paired.id.rawValue) has no executor to prefer")
        }
        let onExecutor = try await withTaskExecutorPreference(executor) {
            try await timedSends(controller, to: paired.id, name: "\(name).dpwrite.on-link-executor")
        }
        await controller.stop()
        var figures = Figures(times: times, onExecutor: onExecutor)
        do {
            if hops {
                figures.hop = try await LANHops.session(identity, samples: samples)
                figures.loopHop = try await LANHops.loopSession(identity, samples: samples)
                figures.peer = try await tinytuyaSetValue(identity, profile: profile)
            }
        } catch {
            await fleet.stop()
            throw error
        }
        await fleet.stop()
        return figures
    }

    /// `samples` confirmed brightness changes after 50 unmeasured ones, in microseconds, sorted;
    /// prints the context switches per write as `<name>.context-switches`.
    private func timedSends(_ controller: TuyaController, to id: DeviceID, name: String) async throws -> [Double] {
        let clock = ContinuousClock()
        var times: [Double] = []
        times.reserveCapacity(samples)
        let switchesBefore = processContextSwitches()
        for index in 0..<(samples + 50) {
            let started = clock.now
            _ = try await controller.send(.light(LightCommand(brightness: 10 + index % 80)), to: id)
            let elapsed = started.duration(to: clock.now)
            if index >= 50 {
                times.append(Double(elapsed.components.attoseconds) / 1e12 + Double(elapsed.components.seconds) * 1e6)
            }
        }
        let switches = Double(processContextSwitches() - switchesBefore) / Double(samples + 50)
        print("BENCH \(name).context-switches \(String(format: "%.1f", switches)) switches")
        return times.sorted()
    }

    /// tinytuya's `set_value` round trips to the same device, once the gateway let it go
    /// (a device takes one client at a time); nil without `python`.
    private func tinytuyaSetValue(_ identity: LANDeviceIdentity, profile: DeviceProfile) async throws -> Peer? {
        guard let python else { return nil }
        guard let dp = profile.capabilities[.brightness]?.dataPoint else {
            throw BenchError("\(profile.id) has no brightness DP")
        }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("tinytuya/bench_tinytuya_set.py").path
        let output = try await ChildProcess.run(
            python,
            [
                script, identity.devId, identity.ip, identity.localKey, identity.version.rawValue, "\(dp.rawValue)",
                "\(samples)",
            ])
        let lines = output.stdout.split(separator: "\n").map(String.init).filter { $0.hasPrefix("BENCH ") }
        func figure(_ suffix: String) -> Double? {
            lines.first { $0.contains(".setvalue\(suffix).p50 ") }.flatMap { Double($0.split(separator: " ")[2]) }
        }
        guard output.status == 0, let p50 = figure(""), let p50NoWait = figure("-nowait") else {
            throw BenchError("tinytuya set_value failed: \(output.stderr.suffix(400))")
        }
        return Peer(lines: lines, p50: p50, p50NoWait: p50NoWait)
    }

    /// Round trips of 64 bytes over one loopback TCP connection, in microseconds, sorted.
    private func tcpEcho(samples: Int, placement: EchoPlacement? = nil) throws -> [Double] {
        var (listener, address) = try LANHops.loopbackListener()
        defer { close(listener) }
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(client) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, length) == 0 }
        }
        guard connected else { throw BenchError("connect: errno \(errno)") }
        let server = accept(listener, nil, nil)
        guard server >= 0 else { throw BenchError("accept: errno \(errno)") }
        var one: Int32 = 1
        for fd in [client, server] {
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        }
        let size = 64
        let cpus = placement?.cpus
        let echo = Thread {
            pinned(to: cpus?.1) {
                var buffer = [UInt8](repeating: 0, count: size)
                while Self.exchange(server, &buffer, size, echo: true) {}
                close(server)
            }
        }
        echo.start()
        var buffer = [UInt8](repeating: 7, count: size)
        var times: [Double] = []
        times.reserveCapacity(samples)
        let clock = ContinuousClock()
        try pinned(to: cpus?.0) {
            for index in 0..<(samples + 100) {
                let started = clock.now
                guard Self.exchange(client, &buffer, size, echo: false) else { throw BenchError("echo broke") }
                let elapsed = started.duration(to: clock.now)
                if index >= 100 { times.append(Double(elapsed.components.attoseconds) / 1e12) }
            }
        }
        shutdown(client, Int32(SHUT_RDWR))
        return times.sorted()
    }

    /// One exchange of `size` bytes: write then read (the client), or read then write back
    /// (the echo). False at the connection's end.
    private static func exchange(_ fd: Int32, _ buffer: inout [UInt8], _ size: Int, echo: Bool) -> Bool {
        func move(_ write: Bool) -> Bool {
            var done = 0
            while done < size {
                let count = buffer.withUnsafeMutableBytes { bytes in
                    write
                        ? Glibc.write(fd, bytes.baseAddress! + done, size - done)
                        : Glibc.read(fd, bytes.baseAddress! + done, size - done)
                }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return false }
                done += count
            }
            return true
        }
        return echo ? move(false) && move(true) : move(true) && move(false)
    }
}
