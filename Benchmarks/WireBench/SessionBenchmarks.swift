import DeviceSimulator
import Foundation
import LocalBroker
import MQTTLink
import SessionEngine
import TuyaController
import TuyaCore
import Storage
import Timing

#if canImport(Glibc)
    import Glibc
#endif

/// `youll-bench session`: the timer's runner on the real clock (`ContinuousClock`).
///
/// - Lateness (`session.sim.cue.lateness.*`): the same against the real controller and a
///   simulated MQTT light, below.
/// - Lateness: a timeline of 200 light commands 100 ms apart played by `SessionRunner`
///   against `InstantController`, a `TuyaControllerProtocol` that answers every call at
///   once, so the figure is the runner's own scheduling (sleep until an absolute
///   deadline, wake, fire), not a device's. Lateness is each cue's actual minus planned
///   time from the runner's cue log: `session.cue.lateness.p50|p99|max` in microseconds.
/// - Idle CPU: a session whose next cue is an hour away, held for `idleSeconds`; the
///   process's CPU time (CLOCK_PROCESS_CPUTIME_ID) over that wall time, as a percentage
///   of one core (`session.idle.cpu`). Near zero means no polling loop.
struct SessionBenchmarks {
    var cues = 200
    var spacing: Duration = .milliseconds(100)
    var idleSeconds: Double = 5
    /// Device profiles for the simulated light.
    var profiles = "devices"

    static let lamp = DeviceID("benchlamp0000000000001")!

    func run() async throws {
        try await lateness(controller: InstantController(), device: Self.lamp, name: "session.cue.lateness")
        try await latenessWithSimulatedLight()
        try await idleCPU()
    }

    /// The same timeline against the real `TuyaController` driving a simulated MQTT light
    /// (Tuya's device protocol over a private mosquitto, in this process). Commands to the
    /// light are coalesced to its 300 ms frame gap; lateness is still per cue.
    private func latenessWithSimulatedLight() async throws {
        let library = ProfileLibrary.load(directories: [URL(fileURLWithPath: profiles)])
        let broker = try LocalBroker()
        defer { broker.stop() }
        let fleet = try SimulatorFleet(
            options: .init(lights: 1, diffusers: 0, seed: 2027), library: library,
            broker: SwarmConfiguration(brokerURL: broker.url))
        try await fleet.start()
        defer { fleet.stop() }
        guard await fleet.waitUntilConnected(timeout: .seconds(15)), let identity = fleet.identities.first else {
            throw BenchError("the simulated light did not connect")
        }
        let controller = TuyaController(
            bus: try MQTTDeviceBus(configuration: MQTTConfiguration(url: broker.url)), library: library)
        try await controller.start()
        guard case .paired(let device) = try await controller.pair(devId: identity.devId, localKey: identity.localKey)
        else { throw BenchError("the simulated light did not pair") }
        try await lateness(controller: controller, device: device.id, name: "session.sim.cue.lateness")
        await controller.stop()
    }

    private func timeline(_ offsets: [Duration], device: DeviceID = lamp) -> SessionTimeline {
        let cues = offsets.enumerated().map { index, offset in
            SessionCue(
                index: index, offset: offset, kind: .bell(stage: 0, ring: index + 1), deviceID: device,
                action: .send(.light(LightCommand(brightness: 20 + index % 60))))
        }
        let end = (offsets.last ?? .zero) + .seconds(1)
        return SessionTimeline(
            session: ResolvedSession(
                warmUp: .zero, stages: [SessionStage(name: "bench", length: end)], isOpenEnded: false),
            presetName: "bench", cues: cues, endingCues: [], devicesToCapture: [])
    }

    private func lateness(controller: any TuyaControllerProtocol, device: DeviceID, name: String) async throws {
        // The first cue 200 ms in, so starting the runner is not measured.
        let offsets = (0..<cues).map { .milliseconds(200) + spacing * $0 }
        let runner = SessionRunner(
            timeline: timeline(offsets), controller: InstantController(), clock: ContinuousClock())
        let events = await runner.events()
        try await runner.start()
        for await event in events {
            if case .ended = event { break }
        }
        let late = await runner.cueLog().map { Self.microseconds($0.lateness) }.sorted()
        guard late.count == cues else { throw BenchError("only \(late.count) of \(cues) cues fired") }
        func percentile(_ p: Double) -> Double {
            late[min(late.count - 1, Int((Double(late.count) * p).rounded(.up)) - 1)]
        }
        report("\(name).p50", percentile(0.50), "us")
        report("\(name).p99", percentile(0.99), "us")
        report("\(name).max", late.last ?? 0, "us")
    }

    private func idleCPU() async throws {
        let runner = SessionRunner(
            timeline: timeline([.zero, .seconds(3600)]), controller: InstantController(), clock: ContinuousClock())
        try await runner.start()
        // Let the first cue fire and its command settle.
        try await Task.sleep(for: .milliseconds(300))
        let cpuBefore = Self.processCPUSeconds()
        let wallBefore = ContinuousClock.now
        try await Task.sleep(for: .milliseconds(Int64(idleSeconds * 1000)))
        let cpu = Self.processCPUSeconds() - cpuBefore
        let wall = (ContinuousClock.now - wallBefore)
        let wallSeconds = Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18
        try await runner.stop()
        print(String(format: "BENCH session.idle.cpu %.3f %%", cpu / wallSeconds * 100))
    }

    static func microseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1e6 + Double(duration.components.attoseconds) / 1e12
    }

    static func processCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

/// A controller that answers at once: every device online, every command confirmed.
actor InstantController: TuyaControllerProtocol {
    private var state = LightState(power: true, brightness: 50)

    func devices() -> [TuyaDevice] {
        [
            TuyaDevice(
                id: SessionBenchmarks.lamp, name: "bench-lamp", profileID: "rgbcct-bulb-v2", category: .light,
                transport: .mqtt, productID: "bench")
        ]
    }
    func device(_ id: DeviceID) -> TuyaDevice? { devices().first { $0.id == id } }
    func status(of id: DeviceID) -> ConnectionStatus? { ConnectionStatus(availability: .online) }
    func confirmedState(of id: DeviceID) -> DeviceState? { .light(state) }
    func pendingState(of id: DeviceID) -> DeviceState? { .light(state) }
    func send(_ command: DeviceCommand, to id: DeviceID) -> DeviceState {
        if case .light(let light) = command { state.brightness = light.brightness ?? state.brightness }
        return .light(state)
    }
    nonisolated func events() -> Mailbox<ControllerEvent> { .finished() }
}
