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

/// One command to each of `devices` LAN bulbs at once until every one is confirmed, through
/// `TuyaController` holding one TCP connection per device (session keys agreed for 3.4 and
/// 3.5), to `youll-devices simulate --lan N` in its own process (3.3, 3.4 and 3.5 in turn,
/// each bulb on TCP 6668 of its own 127.x.y.z address). Then the resident memory of this
/// process, which is the controller holding every connection: the simulator is elsewhere.
///
/// Targets (issue 13): the sweep ≤ 1 s, the RSS ≤ 64 MB.
struct LANSweepBenchmarks {
    var devices = 500
    var simulator: String?
    var profiles = "devices"
    var sweeps = 5

    func run() async throws {
        let binary = simulator ?? MQTTBenchmarks.besideMe("youll-devices")
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw BenchError("no youll-devices at \(binary) (build it in release or pass --simulator)")
        }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("youll-lan-sweep-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let devicesJSON = work.appendingPathComponent("devices.json").path
        let arguments = [
            "simulate", "--lan", "\(devices)", "--lan-diffusers", "0", "--lan-versions", "3.3,3.4,3.5",
            "--lan-base-address", "127.\(Int.random(in: 100...250)).0.1", "--lan-broadcast-seconds", "0",
            "--lan-discovery-port", "\(try LocalBroker.freeLoopbackPort())", "--lan-solicitation-port", "0",
            "--devices-json", devicesJSON, "--report-delay-ms", "0", "--profiles", profiles,
        ]
        let (result, _) = try await ChildProcess.streamingLines(binary, arguments) { lines, signal in
            defer { try? signal(SIGTERM) }
            while let line = try await lines.next() {
                if line.hasPrefix("simulating ") { break }
            }
            return try await sweep(devicesJSON: devicesJSON)
        }
        print("# lan sweep: \(devices) LAN bulbs in a youll-devices simulate process, \(sweeps) sweeps")
        print("BENCH lan.sweep\(devices).p50 \(String(format: "%.1f", result.times[result.times.count / 2])) ms")
        print("BENCH lan.sweep\(devices).max \(String(format: "%.1f", result.times.last ?? 0)) ms")
        print("BENCH lan.sweep\(devices).connections \(result.connections) sockets")
        print("BENCH lan.sweep\(devices).rss \(String(format: "%.1f", result.rss)) MB")
        // This process before the controller started: what the connections add is the difference.
        print("BENCH lan.sweep\(devices).rss.before \(String(format: "%.1f", result.rssBefore)) MB")
        print(
            "# lan sweep: resident anonymous \(String(format: "%.1f", result.rssAnon)) MB, file-backed \(String(format: "%.1f", result.rssFile)) MB"
        )
        print("BENCH lan.sweep\(devices).pairing \(String(format: "%.0f", result.pairing)) ms")
    }

    struct Result: Sendable {
        var times: [Double]
        var connections: Int
        var rss: Double
        var rssBefore: Double
        var rssAnon: Double
        var rssFile: Double
        var pairing: Double
    }

    private func sweep(devicesJSON: String) async throws -> Result {
        var library = ProfileLibrary.load(directories: [URL(fileURLWithPath: profiles)])
        guard var profile = library.profile(id: "rgbcct-bulb-v2") else {
            throw BenchError("the profile rgbcct-bulb-v2 is not in \(profiles)")
        }
        profile.frameGapMilliseconds = 0
        library = ProfileLibrary(profiles: library.all.filter { $0.id != profile.id } + [profile])
        let entries = try Self.devices(in: devicesJSON)
        let rssBefore = Self.residentMegabytes()
        guard entries.count == devices else { throw BenchError("devices.json lists \(entries.count) devices") }
        let controller = TuyaController(bus: SilentBus(), library: library)
        try await controller.start()
        let clock = ContinuousClock()
        let profileID = profile.id
        let pairingStarted = clock.now
        // Paired 50 at a time: each pairing probes the device over its own connection first.
        var paired: [DeviceID] = []
        for chunk in stride(from: 0, to: entries.count, by: 50).map({ entries[$0..<min($0 + 50, entries.count)] }) {
            paired += try await withThrowingTaskGroup(of: DeviceID.self) { group in
                for entry in chunk {
                    group.addTask {
                        let outcome = try await controller.pairLAN(
                            devId: entry.id, localKey: entry.key, ip: entry.ip, version: entry.version,
                            profileID: profileID)
                        guard case .paired(let device) = outcome else {
                            throw BenchError("pairing \(entry.id) at \(entry.ip): \(outcome)")
                        }
                        return device.id
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        let pairing = Self.milliseconds(pairingStarted.duration(to: clock.now))
        var times: [Double] = []
        for round in 0..<(sweeps + 1) {
            let brightness = 20 + round * 10
            let started = clock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                for id in paired {
                    group.addTask {
                        _ = try await controller.send(.light(LightCommand(brightness: brightness)), to: id)
                    }
                }
                try await group.waitForAll()
            }
            // The first round also opens the links' connections: it is not counted.
            if round > 0 { times.append(Self.milliseconds(started.duration(to: clock.now))) }
        }
        let result = Result(
            times: times.sorted(), connections: Self.openSockets(), rss: Self.residentMegabytes(),
            rssBefore: rssBefore, rssAnon: Self.residentMegabytes("RssAnon:"),
            rssFile: Self.residentMegabytes("RssFile:"),
            pairing: pairing)
        await controller.stop()
        return result
    }

    struct Entry: Sendable {
        var id: String
        var key: String
        var ip: String
        var version: String
    }

    /// tinytuya's devices.json as `simulate --lan` writes it: id, key, ip, version.
    static func devices(in path: String) throws -> [Entry] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let array = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] else {
            throw BenchError("\(path) is not a JSON array")
        }
        return try array.map { object in
            guard let id = object["id"] as? String, let key = object["key"] as? String,
                let ip = object["ip"] as? String, let version = object["version"] as? String
            else { throw BenchError("\(path): an entry without id, key, ip or version") }
            return Entry(id: id, key: key, ip: ip, version: version)
        }
    }

    static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15
    }

    /// VmRSS of this process in MB (or another field of /proc/self/status: RssAnon, RssFile).
    static func residentMegabytes(_ field: String = "VmRSS:") -> Double {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) }),
            let kilobytes = Double(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { return 0 }
        return kilobytes / 1024
    }

    /// Descriptors of this process that are sockets.
    static func openSockets() -> Int {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return entries.filter { name in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)"))?.hasPrefix(
                "socket:") == true
        }.count
    }
}
