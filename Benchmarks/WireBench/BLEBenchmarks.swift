import BLELink
import DeviceSimulator
import Foundation
import TuyaController
import TuyaCore
import Storage

#if canImport(Glibc)
    import Glibc
#endif

/// The BLE path end to end: `TuyaController.send` to a BLE diffuser → the Tuya BLE session
/// (AES-CBC, CRC-16, fragmentation) → GATT write without response → ATT over a
/// `socketpair(AF_UNIX, SOCK_SEQPACKET)` → the simulated peripheral's GATT server and Tuya
/// device → its acknowledgement and report as notifications → reassembled, decrypted and
/// confirmed. Beside it, in the same run, the floor: a raw 20-byte echo over the same kind of
/// socketpair between two threads doing blocking `write`/`read`, no Swift concurrency at all,
/// and the per-hop echoes of `BLELadder`.
///
/// The profile's frame gap (a rate limit towards real radios, 300 ms) is set to 0 here, so
/// the figure is the protocol path's latency, not the limiter's wait.
struct BLEBenchmarks {
    struct Options {
        var samples = 2000
        var profiles = "devices"
        /// Only the DP writes through the larger MTU (for a profiler).
        var dpWriteOnly = false
    }

    let options: Options

    func run() async throws {
        if options.dpWriteOnly {
            let (pool, onReader) = try await dpWrites(serverMTU: 247, alsoOnLinkExecutor: true)
            Self.report("ble.dpwrite.p50", pool.times[pool.times.count / 2])
            Self.report("ble.dpwrite.p99", pool.times[pool.times.count * 99 / 100])
            print("BENCH ble.dpwrite.packets \(String(format: "%.1f", pool.packets)) packets")
            print("BENCH ble.dpwrite.context-switches \(String(format: "%.1f", pool.switches)) switches")
            if let onReader { Self.reportOnLinkExecutor(onReader) }
            return
        }
        let floor = try rawEcho(samples: options.samples * 5)
        Self.report("ble.floor.echo.p50", floor[floor.count / 2])
        Self.report("ble.floor.echo.p99", floor[floor.count * 99 / 100])
        let pinned = try pinnedFloors("ble.floor.echo") { try rawEcho(samples: options.samples * 5, placement: $0) }

        // The same echo through BLELink's `SocketChannel` (its reader thread, async `receive()`)
        // at both ends: what one packet round trip costs through the async API.
        let channel = try await channelEcho(samples: options.samples * 5)
        Self.report("ble.floor.channel-echo.p50", channel[channel.count / 2])
        Self.report("ble.floor.channel-echo.p99", channel[channel.count * 99 / 100])

        // Per hop: the echo through one more layer per rung (see `BLELadder`).
        let ladder = BLELadder(samples: options.samples * 5)
        let rungs = [
            ("socket", try await ladder.socket()), ("gatt", try await ladder.gatt()),
            ("transport", try await ladder.transport()),
        ]
        for (name, times) in rungs {
            Self.report("ble.hop.\(name).p50", times[times.count / 2])
            Self.report("ble.hop.\(name).p99", times[times.count * 99 / 100])
        }

        // A device on older firmware first: it refuses the ATT MTU exchange, so every Tuya frame
        // crosses in 20-byte packets (what every DP write took before the gateway offered 247).
        let legacyWrites = try await dpWrites(serverMTU: nil).pool
        let (legacy, legacyFrames, legacyPackets) = (legacyWrites.times, legacyWrites.frames, legacyWrites.packets)
        Self.report("ble.dpwrite.mtu23.p50", legacy[legacy.count / 2])
        Self.report("ble.dpwrite.mtu23.p99", legacy[legacy.count * 99 / 100])
        print("BENCH ble.dpwrite.mtu23.frames \(String(format: "%.1f", legacyFrames)) frames")
        print("BENCH ble.dpwrite.mtu23.packets \(String(format: "%.1f", legacyPackets)) packets")

        let (pool, onReader) = try await dpWrites(serverMTU: 247, alsoOnLinkExecutor: true)
        let (samples, frames, packets, switches) = (pool.times, pool.frames, pool.packets, pool.switches)
        Self.report("ble.dpwrite.p50", samples[samples.count / 2])
        Self.report("ble.dpwrite.p99", samples[samples.count * 99 / 100])
        print("BENCH ble.dpwrite.frames \(String(format: "%.1f", frames)) frames")
        print("BENCH ble.dpwrite.packets \(String(format: "%.1f", packets)) packets")
        print("BENCH ble.dpwrite.context-switches \(String(format: "%.1f", switches)) switches")
        print(
            "BENCH ble.dpwrite.p50.vs-echo.ratio \(String(format: "%.2f", samples[samples.count / 2] / floor[floor.count / 2])) x"
        )
        print(
            "BENCH ble.dpwrite.p99.vs-echo.ratio \(String(format: "%.2f", samples[samples.count * 99 / 100] / floor[floor.count * 99 / 100])) x"
        )
        print(
            "BENCH ble.dpwrite.mtu23.p50.vs-echo.ratio \(String(format: "%.2f", legacy[legacy.count / 2] / floor[floor.count / 2])) x"
        )
        print(
            "BENCH ble.dpwrite.mtu23.p99.vs-echo.ratio \(String(format: "%.2f", legacy[legacy.count * 99 / 100] / floor[floor.count * 99 / 100])) x"
        )
        reportRatios("ble.dpwrite.p50.vs-echo", of: samples, to: pinned)
        // The same writes from a task preferring the link's executor (its reader thread): the
        // cost of the two hops between a caller on the pool and the link is the difference.
        if let onReader {
            Self.reportOnLinkExecutor(onReader)
            reportRatios("ble.dpwrite.on-link-executor.p50.vs-echo", of: onReader.times, to: pinned)
        }
        print(
            "BENCH ble.dpwrite.p50.vs-channel-echo.ratio \(String(format: "%.2f", samples[samples.count / 2] / channel[channel.count / 2])) x"
        )
    }

    static func report(_ name: String, _ microseconds: Double) {
        print("BENCH \(name) \(String(format: "%.1f", microseconds)) us")
    }

    /// `ble.dpwrite.on-link-executor.*`: p50, p99 and context switches per write.
    private static func reportOnLinkExecutor(_ writes: Writes) {
        report("ble.dpwrite.on-link-executor.p50", writes.times[writes.times.count / 2])
        report("ble.dpwrite.on-link-executor.p99", writes.times[writes.times.count * 99 / 100])
        print(
            "BENCH ble.dpwrite.on-link-executor.context-switches \(String(format: "%.1f", writes.switches)) switches")
    }

    // MARK: - The floor

    /// Round trips of a 20-byte packet, in microseconds, sorted.
    private func rawEcho(samples: Int, placement: EchoPlacement? = nil) throws -> [Double] {
        var descriptors: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &descriptors) == 0 else {
            throw BenchError("socketpair: errno \(errno)")
        }
        let (near, far) = (descriptors[0], descriptors[1])
        let cpus = placement?.cpus
        let echo = Thread {
            pinned(to: cpus?.1) {
                var buffer = [UInt8](repeating: 0, count: 64)
                while true {
                    let count = read(far, &buffer, buffer.count)
                    guard count > 0 else { return }
                    _ = write(far, buffer, count)
                }
            }
        }
        echo.start()
        defer {
            close(near)
            close(far)
        }
        let packet = [UInt8](repeating: 0xA5, count: 20)
        var buffer = [UInt8](repeating: 0, count: 64)
        let clock = ContinuousClock()
        var times: [Double] = []
        times.reserveCapacity(samples)
        try pinned(to: cpus?.0) {
            for index in 0..<(samples + 200) {
                let start = clock.now
                guard write(near, packet, packet.count) == packet.count,
                    read(near, &buffer, buffer.count) == packet.count
                else { throw BenchError("raw echo failed: errno \(errno)") }
                if index >= 200 { times.append(Self.microseconds(start.duration(to: clock.now))) }
            }
        }
        return times.sorted()
    }

    /// Round trips of a 20-byte packet through two `SocketChannel`s, in microseconds, sorted.
    private func channelEcho(samples: Int) async throws -> [Double] {
        let (near, far) = try SocketChannel.pair()
        let echo = Task {
            while let packet = try await far.receive() { try await far.send(packet) }
        }
        defer {
            echo.cancel()
            Task {
                await near.close()
                await far.close()
            }
        }
        let packet = [UInt8](repeating: 0xA5, count: 20)
        let clock = ContinuousClock()
        var times: [Double] = []
        times.reserveCapacity(samples)
        for index in 0..<(samples + 200) {
            let start = clock.now
            try await near.send(packet)
            guard try await near.receive() != nil else { throw BenchError("channel echo ended") }
            if index >= 200 { times.append(Self.microseconds(start.duration(to: clock.now))) }
        }
        return times.sorted()
    }

    // MARK: - The gateway

    /// DP write → confirmed latencies in microseconds (sorted), Tuya frames per write (the
    /// device's received frames plus the reports it sent), ATT packets per write (written
    /// plus notified) and the process's context switches per write.
    struct Writes {
        var times: [Double]
        var frames: Double
        var packets: Double
        var switches: Double
    }

    /// Writes against a peripheral offering `serverMTU` (nil: refusing the exchange) from a
    /// task on the pool and, with `alsoOnLinkExecutor`, then from a task preferring the link's
    /// executor, to the same paired device.
    private func dpWrites(
        serverMTU: UInt16?, alsoOnLinkExecutor: Bool = false
    ) async throws -> (pool: Writes, onExecutor: Writes?) {
        let library = ProfileLibrary.load(directories: [URL(fileURLWithPath: options.profiles)])
        guard var profile = library.profile(id: "ble-diffuser-dituo") else {
            throw BenchError("profile ble-diffuser-dituo not found in \(options.profiles)")
        }
        profile.frameGapMilliseconds = 0
        let identity = (uuid: "tuyabench0123456", key: "0123456789abcdef", devId: "bfbenchble0000001")
        let device = try SimulatedBLEDevice(
            identity: .init(uuid: identity.uuid, localKey: identity.key, devId: identity.devId, protocolVersion: 4),
            profile: profile, options: .init(serverMTU: serverMTU), seed: 1)
        let peripheral = SimulatedBLEPeripheral(device: device)
        let air = SimulatedBLEAir()
        let address = "DC:23:4D:BE:4C:01"
        await air.place(peripheral, at: address, layout: .fd50)
        let radio = BLERadio(adapter: "socketpair") { identity in
            GATTTuyaTransport { try await air.connect(to: identity.address) }
        }
        let controller = TuyaController(
            bus: SilentBus(), library: ProfileLibrary(profiles: [profile]), radio: radio)
        try await controller.start()
        defer { Task { await controller.stop() } }
        let outcome = try await controller.pairBLE(
            devId: identity.devId, localKey: identity.key,
            identity: try BLEIdentity(address: address, uuid: identity.uuid), profileID: profile.id)
        guard case .paired(let paired) = outcome else { throw BenchError("pairing failed: \(outcome)") }

        let warmup = 50
        let samples = options.samples
        func measure(on executor: (any TaskExecutor)?) async throws -> Writes {
            let before = await peripheral.statistics
            let switchesBefore = processContextSwitches()
            let times = try await withTaskExecutorPreference(executor) {
                try await Self.mistModeWrites(controller, to: paired.id, samples: samples, warmup: warmup)
            }
            let switches = processContextSwitches() - switchesBefore
            let after = await peripheral.statistics
            let frames =
                Double(after.framesReceived - before.framesReceived) + Double(after.reportsSent - before.reportsSent)
            let packets =
                Double(after.packetsReceived - before.packetsReceived) + Double(after.packetsSent - before.packetsSent)
            let writes = Double(samples + warmup)
            return Writes(
                times: times, frames: frames / writes, packets: packets / writes, switches: Double(switches) / writes)
        }
        let pool = try await measure(on: nil)
        guard alsoOnLinkExecutor else { return (pool, nil) }
        guard let executor = await controller.preferredExecutor(for: paired.id) else {
            throw BenchError("the BLE link of \(paired.id.rawValue) has no executor")
        }
        return (pool, try await measure(on: executor))
    }

    /// DP write → confirmed latencies in microseconds, sorted: the diffuser's mist mode
    /// toggled `samples` times after `warmup` unmeasured ones.
    static func mistModeWrites(_ controller: TuyaController, to id: DeviceID, samples: Int, warmup: Int)
        async throws -> [Double]
    {
        let modes = ["small", "large"]
        let clock = ContinuousClock()
        var times: [Double] = []
        for index in 0..<(samples + warmup) {
            let command = DeviceCommand.diffuser(DiffuserCommand(mistMode: modes[index % 2]))
            let start = clock.now
            try await controller.send(command, to: id)
            if index >= warmup { times.append(microseconds(start.duration(to: clock.now))) }
        }
        return times.sorted()
    }

    static func microseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1e6 + Double(duration.components.attoseconds) * 1e-12
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The controller needs a broker bus; the BLE benchmark has no Wi-Fi devices, so nothing flows on it.
final class SilentBus: DeviceBus {
    private let stream: AsyncStream<DeviceBusEvent>
    private let sink: AsyncStream<DeviceBusEvent>.Continuation

    init() {
        (stream, sink) = AsyncStream.makeStream(of: DeviceBusEvent.self)
    }

    func connect() async throws { sink.yield(.connected) }
    func publish(topic: String, payload: [UInt8]) async throws {}
    func send(topic: String, payload: [UInt8]) {}
    func subscribe(_ topic: String) async throws {}
    func busEvents() -> any AsyncSequence<DeviceBusEvent, Never> & Sendable { stream }
    func close() async { sink.finish() }
}
