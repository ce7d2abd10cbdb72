import Foundation
import NIOCore
import NIOPosix
import TuyaCore
import TuyaWire

/// Simulated Tuya lights and diffusers on the LAN protocol (protocol/TUYA.md §2), each
/// listening on TCP 6668 at its own loopback address and announcing itself by UDP, all on
/// one SwiftNIO event loop thread (a few kilobytes per device, so 500 fit in one process).
/// What `youll-devices simulate --lan`, the demo and the integration tests run.
///
/// The devices share the MQTT simulator's model (`SimulatedDevice`), so DP rules, diffuser
/// water and timer, and misbehaviour (drop share, flooding, wrong key, going offline) are
/// the same on both transports. Identities come from the seed; `devicesJSON()` hands them
/// to the gateway's import with `ip` and `version`.
public final class LANSimulatorFleet: Sendable {
    public let options: LANSimulatorOptions
    /// Lights first, then diffusers.
    public let identities: [LANDeviceIdentity]
    private let group: MultiThreadedEventLoopGroup
    private let loop: any EventLoop
    private let box: NIOLoopBoundBox<LANFleetState?>
    private let indexByDevId: [String: Int]

    /// Builds the identities and the event loop; nothing listens until `start()`.
    public init(options: LANSimulatorOptions, library: ProfileLibrary) throws {
        self.options = options
        guard !options.versions.isEmpty else { throw LANSimulatorError.noVersions }
        let known = library.all.map(\.id)
        guard let light = library.profile(id: options.lightProfile) else {
            throw SimulatorError.unknownProfile(options.lightProfile, known: known)
        }
        guard let diffuser = library.profile(id: options.diffuserProfile) else {
            throw SimulatorError.unknownProfile(options.diffuserProfile, known: known)
        }
        guard var address = LoopbackAddress(options.baseAddress)?.advanced(by: 0) else {
            throw LANSimulatorError.invalidAddress(options.baseAddress)
        }
        var generator = SeededGenerator(seed: options.seed)
        var seen = Set<String>()
        var identities: [LANDeviceIdentity] = []
        let plan =
            (0..<max(0, options.lights)).map { ($0, light, "Simulated LAN light") }
            + (0..<max(0, options.diffusers)).map { ($0, diffuser, "Simulated LAN diffuser") }
        for (position, (number, profile, kind)) in plan.enumerated() {
            var devId = DeviceIdentity.makeDevId(using: &generator)
            while !seen.insert(devId).inserted { devId = DeviceIdentity.makeDevId(using: &generator) }
            let identity = DeviceIdentity(
                devId: devId, localKey: DeviceIdentity.makeLocalKey(using: &generator), name: "\(kind) \(number + 1)",
                profile: profile)
            if position > 0 {
                guard let next = address.advanced(by: 1) else {
                    throw LANSimulatorError.invalidAddress(options.baseAddress)
                }
                address = next
            }
            identities.append(
                LANDeviceIdentity(
                    identity: identity, ip: address.description,
                    version: options.versions[position % options.versions.count]))
        }
        self.identities = identities
        indexByDevId = Dictionary(uniqueKeysWithValues: identities.enumerated().map { ($1.devId, $0) })
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        loop = group.next()
        box = NIOLoopBoundBox.makeEmptyBox(valueType: LANFleetState.self, eventLoop: loop)
    }

    /// Starts every device listening and announcing (and the solicitation listener when
    /// configured). Throws `LANSimulatorError.cannotListen` when an address is taken;
    /// call `stop()` either way.
    public func start() async throws {
        let identities = identities
        let options = options
        let box = box
        let epoch = Int64(Date().timeIntervalSince1970)
        LANSocketFactory.raiseDescriptorLimit(to: identities.count * 3 + 256)
        try await loop.flatSubmit { [loop] () -> EventLoopFuture<Void> in
            let state = LANFleetState(loop: loop)
            box.value = state
            let origin = ContinuousClock.now
            var started: [EventLoopFuture<Void>] = []
            for (index, entry) in identities.enumerated() {
                let seed = options.seed &+ UInt64(index) &* 0x9E37_79B9
                guard
                    let model = try? SimulatedDevice(
                        devId: entry.devId, localKey: entry.localKey, profile: entry.identity.profile,
                        behaviour: options.behaviour, seed: seed, unixEpoch: epoch, mqttFrames: false)
                else { continue }
                let device = SimulatedLANDevice(
                    model: model, localKey: entry.localKey, version: entry.version, ip: entry.ip, seed: seed ^ 0x4C41_4E
                )
                let host = LANDeviceHost(device: device, loop: loop, options: options, origin: origin) {
                    box.value?.changed(index)
                }
                state.hosts.append(host)
                started.append(host.start())
            }
            if let address = options.solicitationAddress {
                started.append(
                    state.listenForSolicitations(at: address, port: options.solicitationPort, options: options))
            }
            return EventLoopFuture.andAllSucceed(started, on: loop)
        }.get()
    }

    /// Closes every socket, ends every wait and stops the event loop thread.
    public func stop() async {
        let box = box
        try? await loop.submit {
            box.value?.stop()
            box.value = nil
        }.get()
        try? await group.shutdownGracefully()
    }

    public func identity(of devId: String) -> LANDeviceIdentity? {
        indexByDevId[devId].map { identities[$0] }
    }

    /// The device's current data points, or nil for an unknown devId.
    public func state(of devId: String) async -> DataPoints? {
        await withDevice(devId) { host in host.device.model.state }
    }

    /// What the shared model did (commands applied, frames dropped, …).
    public func statistics(of devId: String) async -> SimulatedDevice.Statistics? {
        await withDevice(devId) { host in host.device.model.statistics }
    }

    /// What the LAN front did (connections accepted and refused, pushes, broadcasts).
    public func lanStatistics(of devId: String) async -> SimulatedLANDevice.Statistics? {
        await withDevice(devId) { host in host.device.statistics }
    }

    /// Where the device listens now.
    public func address(of devId: String) async -> String? {
        await withDevice(devId) { host in host.device.ip }
    }

    /// Waits until `condition` holds for the device, checked on the event loop after every
    /// thing that happens to it; false at the timeout or for an unknown devId.
    public func waitUntil(
        _ devId: String, timeout: Duration, _ condition: @escaping @Sendable (SimulatedLANDevice) -> Bool
    ) async -> Bool {
        guard let index = indexByDevId[devId] else { return false }
        let box = box
        return await withCheckedContinuation { continuation in
            loop.execute {
                guard let state = box.value else { return continuation.resume(returning: false) }
                state.wait(for: index, timeout: timeout, condition: condition, continuation: continuation)
            }
        }
    }

    public func setMisbehaviour(_ misbehaviour: Misbehaviour, for devId: String) async {
        _ = await withDevice(devId) { host in
            host.update { device, _ in
                device.setMisbehaviour(misbehaviour)
                return []
            }
        }
    }

    /// Takes the device off the network (no listener, no connection, no announcements),
    /// back after `duration` or at `comeOnline`.
    public func goOffline(_ devId: String, for duration: Duration? = nil) async {
        _ = await withDevice(devId) { host in host.update { $0.goOffline(at: $1, for: duration) } }
    }

    /// Brings the device back; returns once it listens again.
    public func comeOnline(_ devId: String) async {
        await whileListening(devId) { host in host.update { $0.comeOnline(at: $1) } }
    }

    /// Refills a diffuser's tank, clearing its water-shortage fault.
    public func refill(_ devId: String) async {
        _ = await withDevice(devId) { host in host.update { $0.refill(at: $1) } }
    }

    /// Gives the device a new address, as a DHCP lease change does: the connection drops,
    /// the device listens at `ip` and announces itself from there.
    /// Returns once the device listens at the new address.
    public func move(_ devId: String, to ip: String) async {
        await whileListening(devId) { host in host.move(to: ip) }
    }

    /// A tinytuya-style devices.json with `ip` and `version` for every device.
    public func devicesJSON() -> String {
        var lan: [String: DevicesJSON.LANAddress] = [:]
        for entry in identities {
            lan[entry.devId] = DevicesJSON.LANAddress(ip: entry.ip, version: entry.version.rawValue)
        }
        return DevicesJSON.render(identities.map(\.identity), lan: lan)
    }

    public func writeDevicesJSON(to path: String) throws(SimulatorError) {
        do {
            try Data(devicesJSON().utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw .cannotWrite(path: path, reason: error.localizedDescription)
        }
    }

    private func withDevice<Result: Sendable>(
        _ devId: String, _ body: @escaping @Sendable (LANDeviceHost) -> Result
    ) async -> Result? {
        guard let index = indexByDevId[devId] else { return nil }
        let box = box
        return try? await loop.submit { () -> Result? in
            guard let state = box.value, state.hosts.indices.contains(index) else { return nil }
            return body(state.hosts[index])
        }.get()
    }

    /// Runs `body` on the device's host, then waits for the listener it may have opened.
    private func whileListening(_ devId: String, _ body: @escaping @Sendable (LANDeviceHost) -> Void) async {
        guard let index = indexByDevId[devId] else { return }
        let box = box
        try? await loop.flatSubmit { [loop] () -> EventLoopFuture<Void> in
            guard let state = box.value, state.hosts.indices.contains(index) else {
                return loop.makeSucceededVoidFuture()
            }
            let host = state.hosts[index]
            body(host)
            return host.listening ?? loop.makeSucceededVoidFuture()
        }.get()
    }

    /// Runs a fleet until the calling task is cancelled: the entry point of
    /// `youll-devices simulate --lan N`. `ready` is called once every device listens.
    public static func run(
        options: LANSimulatorOptions, devicesJSONPath: String? = nil, library: ProfileLibrary,
        ready: @Sendable (LANSimulatorFleet) -> Void = { _ in }
    ) async throws {
        let fleet = try LANSimulatorFleet(options: options, library: library)
        if let devicesJSONPath { try fleet.writeDevicesJSON(to: devicesJSONPath) }
        do {
            try await fleet.start()
        } catch {
            await fleet.stop()
            throw error
        }
        ready(fleet)
        let (cancelled, signal) = AsyncStream<Never>.makeStream()
        await withTaskCancellationHandler {
            for await _ in cancelled {}
        } onCancel: {
            signal.finish()
        }
        await fleet.stop()
    }
}
