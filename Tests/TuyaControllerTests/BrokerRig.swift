import YoullTestSupport
import Timing
import DeviceSimulator
import Foundation
import LocalBroker
import MQTTLink
import Synchronization
import Testing
import TuyaController
import TuyaCore

// Real parts started by `withBrokerRig`: LocalBroker mosquitto, SimulatorFleet devices, TuyaController over MQTTDeviceBus.

/// One test's private broker, simulated devices and controller, stopped when the test ends.
struct BrokerRig: Sendable {
    static let profiles = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("devices")
    static let library = ProfileLibrary.load(directories: [profiles])

    let broker: LocalBroker
    let fleet: SimulatorFleet
    let controller: TuyaController
    /// Every controller event since start, for checks of what did *not* happen.
    let log: EventLog

    /// Fast settings: short timeouts, so failures show within a test's few seconds.
    static func configuration(_ configure: (inout TuyaController.Configuration) -> Void) -> TuyaController.Configuration
    {
        var configuration = TuyaController.Configuration()
        // These only bound the success paths; generous so a loaded CI machine passes.
        configuration.pairingTimeout = .seconds(10)
        configuration.confirmationTimeout = .seconds(10)
        configure(&configuration)
        return configuration
    }

    /// The gateway's MQTT settings: quick reconnects, so a broker restart is over in milliseconds.
    static func mqtt(url: String, tls: MQTTConfiguration.TLS? = nil) throws -> MQTTConfiguration {
        var configuration = try MQTTConfiguration(url: url, tls: tls)
        configuration.reconnect = Backoff(initial: .milliseconds(20), maximum: .milliseconds(200), jitter: 0.2)
        return configuration
    }

    static func swarm(url: String) throws -> SwarmConfiguration {
        var configuration = try SwarmConfiguration(brokerURL: url)
        configuration.reconnectDelay = .milliseconds(20) ... .milliseconds(200)
        return configuration
    }

    func identity(_ index: Int) -> DeviceIdentity { fleet.identities[index] }

    /// Pairs a simulated device and returns it, failing the test on any other outcome.
    @discardableResult
    func pair(_ identity: DeviceIdentity, productID: String? = nil) async throws -> TuyaDevice {
        let outcome = try await controller.pair(
            devId: identity.devId, localKey: identity.localKey, name: identity.name, productID: productID)
        guard case .paired(let device) = outcome else { throw RigFailure("pairing \(identity.name) gave \(outcome)") }
        return device
    }

    func light(_ id: DeviceID) async throws -> LightState {
        try Self.light(#require(await controller.confirmedState(of: id)))
    }

    static func light(_ state: DeviceState) throws -> LightState {
        guard case .light(let light) = state else { throw RigFailure("expected a light state, got \(state)") }
        return light
    }

    /// The device's value for one DP, as the simulator holds it.
    func simulated(_ identity: DeviceIdentity, _ dp: Int) async -> DPValue? {
        await fleet.state(of: identity.devId)?[DataPointID(dp)!]
    }
}

/// Starts a broker, `lights` + `diffusers` simulated devices on it and a controller, runs
/// `body`, and stops all three whether `body` succeeds or throws.
func withBrokerRig<T: Sendable>(
    lights: Int = 1, diffusers: Int = 0, seed: UInt64 = 11, controllerLibrary: ProfileLibrary = BrokerRig.library,
    configure: (inout TuyaController.Configuration) -> Void = { _ in },
    _ body: (BrokerRig) async throws -> T
) async throws -> T {
    let broker = try await LocalBroker.started()
    defer { broker.stop() }
    let fleet = try SimulatorFleet(
        options: .init(lights: lights, diffusers: diffusers, seed: seed), library: BrokerRig.library,
        broker: BrokerRig.swarm(url: broker.url))
    try await fleet.start()
    defer { fleet.stop() }
    guard await fleet.waitUntilConnected(timeout: .seconds(10)) else {
        throw RigFailure("simulated devices did not connect")
    }
    let bus = try MQTTDeviceBus(configuration: BrokerRig.mqtt(url: broker.url))
    let controller = TuyaController(
        bus: bus, library: controllerLibrary, configuration: BrokerRig.configuration(configure))
    let log = EventLog(controller.events())
    let rig = BrokerRig(broker: broker, fleet: fleet, controller: controller, log: log)
    do {
        try await controller.start()
        let result = try await body(rig)
        await controller.stop()
        return result
    } catch {
        await controller.stop()
        throw error
    }
}

struct RigFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Collects a controller event stream in the background.
final class EventLog: Sendable {
    private let events = Mutex<[ControllerEvent]>([])
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(_ stream: Mailbox<ControllerEvent>) {
        let started = Task { [weak self] in
            for await event in stream { self?.events.withLock { $0.append(event) } }
        }
        task.withLock { $0 = started }
    }

    deinit { task.withLock { $0?.cancel() } }

    var all: [ControllerEvent] { events.withLock { $0 } }

    func availability(of id: DeviceID) -> [ConnectionStatus] {
        all.compactMap { event in
            if case .availabilityChanged(id, let status) = event { status } else { nil }
        }
    }
}

extension Mailbox<ControllerEvent> {
    /// The next availability change of `id` to `availability`.
    func availability(
        _ availability: Availability, of id: DeviceID, within seconds: Double = 10
    ) async throws -> ConnectionStatus {
        let event = try await first(within: seconds, "\(id) \(availability.rawValue)") { event in
            if case .availabilityChanged(id, let status) = event { status.availability == availability } else { false }
        }
        guard case .availabilityChanged(_, let status) = event else { throw RigFailure("unexpected \(event)") }
        return status
    }

    /// Every event up to and including the next availability change of `id` to `availability`.
    func collect(
        untilAvailability availability: Availability, of id: DeviceID, within seconds: Double = 10
    ) async throws -> [ControllerEvent] {
        let stream = self
        return try await withDeadline(seconds, "\(id) \(availability.rawValue)") {
            var seen: [ControllerEvent] = []
            for await event in stream {
                seen.append(event)
                if case .availabilityChanged(id, let status) = event, status.availability == availability {
                    return seen
                }
            }
            throw DeadlineExceeded(what: "\(id) \(availability.rawValue) (stream ended)")
        }
    }
}
