import Foundation
import TuyaCore

/// N simulated lights and M simulated diffusers on one `MosquittoSwarm`: what
/// `youll-devices simulate`, the demo and the integration tests run. Identities are
/// generated from a seed, so the same options give the same devIds and keys every run,
/// and `devicesJSON()` hands them to the gateway's import.
public final class SimulatorFleet: Sendable {
    /// What to simulate.
    public struct Options: Sendable, Hashable {
        public var lights: Int
        public var diffusers: Int
        public var lightProfile: String
        public var diffuserProfile: String
        /// Decides devIds, keys, sequence numbers and dropped commands.
        public var seed: UInt64
        public var behaviour: DeviceBehaviour

        public init(
            lights: Int, diffusers: Int, lightProfile: String = "rgbcct-bulb-v2",
            diffuserProfile: String = "aroma-diffuser-modern", seed: UInt64 = 1,
            behaviour: DeviceBehaviour = DeviceBehaviour()
        ) {
            self.lights = lights
            self.diffusers = diffusers
            self.lightProfile = lightProfile
            self.diffuserProfile = diffuserProfile
            self.seed = seed
            self.behaviour = behaviour
        }
    }

    public let options: Options
    /// Lights first, then diffusers, in swarm index order.
    public let identities: [DeviceIdentity]
    public let swarm: MosquittoSwarm
    private let indexByDevId: [String: Int]

    /// Builds identities and the swarm; nothing connects until `start()`.
    public init(options: Options, library: ProfileLibrary, broker: SwarmConfiguration) throws(SimulatorError) {
        self.options = options
        let known = library.all.map(\.id)
        guard let light = library.profile(id: options.lightProfile) else {
            throw .unknownProfile(options.lightProfile, known: known)
        }
        guard let diffuser = library.profile(id: options.diffuserProfile) else {
            throw .unknownProfile(options.diffuserProfile, known: known)
        }
        var generator = SeededGenerator(seed: options.seed)
        var seen = Set<String>()
        var identities: [DeviceIdentity] = []
        let plan =
            (0..<max(0, options.lights)).map { ($0, light, "Simulated light") }
            + (0..<max(0, options.diffusers)).map { ($0, diffuser, "Simulated diffuser") }
        for (number, profile, kind) in plan {
            var devId = DeviceIdentity.makeDevId(using: &generator)
            while !seen.insert(devId).inserted { devId = DeviceIdentity.makeDevId(using: &generator) }
            identities.append(
                DeviceIdentity(
                    devId: devId, localKey: DeviceIdentity.makeLocalKey(using: &generator),
                    name: "\(kind) \(number + 1)", profile: profile))
        }
        self.identities = identities
        indexByDevId = Dictionary(uniqueKeysWithValues: identities.enumerated().map { ($1.devId, $0) })
        swarm = try MosquittoSwarm(configuration: broker)
    }

    /// Creates every device on the swarm and starts connecting them.
    public func start() async throws(SimulatorError) {
        let identities = identities
        let options = options
        let epoch = Int64(Date().timeIntervalSince1970)
        _ = try await swarm.add {
            let origin = ContinuousClock.now
            return identities.enumerated().compactMap { index, identity -> (any SwarmPeer)? in
                guard
                    let device = try? SimulatedDevice(
                        devId: identity.devId, localKey: identity.localKey, profile: identity.profile,
                        behaviour: options.behaviour, seed: options.seed &+ UInt64(index) &* 0x9E37_79B9,
                        unixEpoch: epoch)
                else { return nil }
                return SimulatedDeviceLink(device: device, origin: origin)
            }
        }
        try swarm.start()
    }

    /// Disconnects every device and stops the swarm thread.
    public func stop() {
        swarm.stop()
    }

    /// True once every device holds a broker connection.
    public func waitUntilConnected(timeout: Duration) async -> Bool {
        await swarm.waitUntilConnected(timeout: timeout)
    }

    public func identity(of devId: String) -> DeviceIdentity? {
        indexByDevId[devId].map { identities[$0] }
    }

    /// The device's current data points, or nil for an unknown devId.
    public func state(of devId: String) async -> DataPoints? {
        await withDevice(devId) { link, _ in link.device.state }
    }

    public func statistics(of devId: String) async -> SimulatedDevice.Statistics? {
        await withDevice(devId) { link, _ in link.device.statistics }
    }

    /// Waits until `condition` holds for the device, checked on the swarm thread after every
    /// turn of its loop (so after every frame it handles); false at the timeout or for an
    /// unknown devId. Waiting on what the device did, not on time passing.
    public func waitUntil(
        _ devId: String, timeout: Duration, _ condition: @escaping @Sendable (SimulatedDevice) -> Bool
    ) async -> Bool {
        guard let index = indexByDevId[devId] else { return false }
        return await swarm.waitUntil(timeout: timeout) { engine in
            guard let link = engine.peer(at: index) as? SimulatedDeviceLink else { return nil }
            return condition(link.device) ? true : nil
        } ?? false
    }

    public func setMisbehaviour(_ misbehaviour: Misbehaviour, for devId: String) async {
        _ = await withDevice(devId) { link, _ in link.device.misbehaviour = misbehaviour }
    }

    /// Takes the device off the broker, back after `duration` or at `comeOnline`.
    public func goOffline(_ devId: String, for duration: Duration? = nil) async {
        _ = await withDevice(devId) { link, context in
            link.perform(link.device.goOffline(at: link.elapsed(context.now), for: duration), context)
        }
    }

    public func comeOnline(_ devId: String) async {
        _ = await withDevice(devId) { link, context in
            link.perform(link.device.comeOnline(at: link.elapsed(context.now)), context)
        }
    }

    /// Refills a diffuser's tank, clearing its water-shortage fault.
    public func refill(_ devId: String) async {
        _ = await withDevice(devId) { link, context in
            link.perform(link.device.refill(at: link.elapsed(context.now)), context)
        }
    }

    /// Raises the fault labelled `label` on a diffuser; false when its profile has no such
    /// fault (or the devId is unknown).
    public func raiseFault(_ label: String, on devId: String) async -> Bool {
        await withDevice(devId) { link, context in
            guard let actions = link.device.raiseFault(label, at: link.elapsed(context.now)) else { return false }
            link.perform(actions, context)
            return true
        } ?? false
    }

    /// Writes `devicesJSON()` to `path`.
    public func writeDevicesJSON(to path: String) throws(SimulatorError) {
        do {
            try Data(devicesJSON().utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw .cannotWrite(path: path, reason: error.localizedDescription)
        }
    }

    /// A tinytuya-style devices.json for these devices (see `DevicesJSON`).
    public func devicesJSON() -> String {
        DevicesJSON.render(identities)
    }

    private func withDevice<Result: Sendable>(
        _ devId: String, _ body: @escaping @Sendable (SimulatedDeviceLink, SwarmContext) -> Result
    ) async -> Result? {
        guard let index = indexByDevId[devId] else { return nil }
        return await swarm.perform { engine in
            guard let link = engine.peer(at: index) as? SimulatedDeviceLink else { return nil }
            return body(link, engine.context(for: index))
        }
    }

    /// Runs a fleet until the calling task is cancelled: the entry point for
    /// `youll-devices simulate --lights N --diffusers M [--broker URL] [--devices-json PATH]
    /// [--report-delay-ms MS]`.
    /// `ready` is called once every device is connected (or after 30 s, whichever is
    /// first), with the fleet, so the CLI can print what it started.
    public static func run(
        lights: Int, diffusers: Int, brokerURL: String = "mqtt://127.0.0.1:1883", devicesJSONPath: String? = nil,
        library: ProfileLibrary, seed: UInt64 = 1, behaviour: DeviceBehaviour = DeviceBehaviour(),
        ready: @Sendable (SimulatorFleet) async -> Void = { _ in }
    ) async throws(SimulatorError) {
        let fleet = try SimulatorFleet(
            options: Options(lights: lights, diffusers: diffusers, seed: seed, behaviour: behaviour), library: library,
            broker: SwarmConfiguration(brokerURL: brokerURL))
        if let devicesJSONPath { try fleet.writeDevicesJSON(to: devicesJSONPath) }
        try await fleet.start()
        defer { fleet.stop() }
        _ = await fleet.waitUntilConnected(timeout: .seconds(30))
        await ready(fleet)
        let (cancelled, signal) = AsyncStream<Never>.makeStream()
        await withTaskCancellationHandler {
            for await _ in cancelled {}
        } onCancel: {
            signal.finish()
        }
    }
}
