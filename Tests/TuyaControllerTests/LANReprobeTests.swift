import LANLink
import Testing
import Timing
import TuyaCore
import TuyaWire
import YoullTestSupport

@testable import TuyaController

#if canImport(Glibc)
    import Glibc
#endif

/// What a LAN link that keeps failing does about it: take a newer version or another address
/// from the device's broadcasts, never an older version, and ask a quiet 3.5 device to
/// announce itself.
@Suite("A LAN link that keeps failing", .serialized, .timeLimit(.minutes(1)))
struct LANReprobeTests {
    @Test("a broadcast moves a device to another version, never to 3.1, whose key cannot be proven")
    func neverTo31() {
        #expect(TuyaController.reprobedVersion(stored: "3.3", broadcast: "3.4") == "3.4")
        #expect(TuyaController.reprobedVersion(stored: "3.4", broadcast: "3.3") == "3.3")
        #expect(TuyaController.reprobedVersion(stored: "3.4", broadcast: "3.1") == "3.4")
        #expect(TuyaController.reprobedVersion(stored: "3.1", broadcast: "3.1") == "3.1")
        #expect(TuyaController.reprobedVersion(stored: "3.5", broadcast: "3.10") == nil)
    }

    @Test("a 3.5 device that stops answering is asked to announce itself once its link has failed five times")
    func solicitsForAFailing35Device() async throws {
        let target = try HeldUDPPort()
        defer { target.close() }
        let listening = try HeldUDPPort()
        let discoveryPort = listening.port
        listening.close()
        let device = try InMemoryLANDevice(
            devId: LANDeviceLinkTests.devId, key: LANDeviceLinkTests.key, version: .v3_5, dps: ["1": .bool(false)])
        device.update { $0.refuse = true }
        var profile = Fixtures.whiteBulb
        profile.transports = [.lan]
        let id = try #require(DeviceID(LANDeviceLinkTests.devId))
        let stored = StoredDevice(
            device: TuyaDevice(id: id, name: "lamp", profileID: profile.id, category: .light, transport: .lan),
            localKey: try AESKey(localKey: LANDeviceLinkTests.key),
            lan: try LANEndpoint(ip: "192.0.2.10", version: "3.5", sourceID: 77))
        let clock = ManualClock()
        let network = LANNetwork(
            connector: device, discovery: LANDiscoveryListener(host: "127.0.0.1", ports: [discoveryPort]),
            solicitation: .init(host: "127.0.0.1", port: target.port, answerTo: "127.0.0.1"))
        let controller = TuyaController(
            bus: InMemoryBus(), library: ProfileLibrary(profiles: [profile]),
            store: InMemoryDeviceStore(devices: [stored]), lan: network, clock: clock)
        try await controller.start()

        // Refused four times, then backing off 1, 2, 4 and 8 s: nothing asked yet.
        var received = false
        for _ in 0..<8 where !received {
            await clock.waitForSleeper(dueBy: clock.now.advanced(by: .seconds(60)))
            if device.statistics.attempts >= 5 { received = Self.receives(on: target, waitingUpTo: 10_000) }
            if !received, let next = clock.armed.first { clock.advance(by: clock.now.duration(to: next)) }
        }
        #expect(received, "no solicitation after \(device.statistics.attempts) refused connections")
        #expect(device.statistics.attempts >= 5)
        await controller.stop()
    }

    /// Whether a datagram arrives on `port` within `milliseconds`.
    static func receives(on port: HeldUDPPort, waitingUpTo milliseconds: Int32) -> Bool {
        var descriptor = pollfd(fd: port.descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, milliseconds) == 1 else { return false }
        var buffer = [UInt8](repeating: 0, count: 2048)
        return recv(port.descriptor, &buffer, buffer.count, 0) > 0
    }
}
