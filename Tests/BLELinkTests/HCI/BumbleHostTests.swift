import BLELink
import Foundation
import Testing
import TuyaWire
import YoullTestSupport

/// Our HCI host over H4/TCP against Bumble's virtual controller, with Tuya peripherals that are
/// Bumble hosts and GATT servers answering the Tuya BLE protocol (Tests/Python). Real parts: a
/// Python child process, a TCP socket, Bumble's controllers and host stack.
@Suite("HCI host against Bumble", .serialized)
struct BumbleHostTests {
    static let localKey = "0123456789abcdef"
    static let a201 = BumbleRig.Peripheral(
        address: "C4:00:00:00:00:01", layout: "a201", uuid: "uuidA201test0001", localKey: localKey,
        devId: "bfa201devid0000000001", productID: "abcdefgh", protocolVersion: 3)
    static let fd50 = BumbleRig.Peripheral(
        address: "C4:00:00:00:00:02", layout: "fd50", uuid: "uuidFD50test0002", localKey: localKey,
        devId: "bffd50devid0000000002", productID: "hgfedcba", protocolVersion: 4)

    static func open(_ rig: BumbleRig) async throws -> HCIHost {
        let stream = try await HCITransportOpener.open(try BLETransportSetting(parsing: rig.transport))
        return try await HCIHost.open(stream)
    }

    @Test(
        "a scan finds both Tuya layouts, with the scan response merged, on legacy and extended controllers",
        arguments: [true, false])
    func scanBothLayouts(legacyController: Bool) async throws {
        let rig = try await BumbleRig.start(peripherals: [Self.a201, Self.fd50], legacyController: legacyController)
        defer { rig.stop() }
        let host = try await Self.open(rig)
        #expect(await host.controller?.usesExtendedCommands == !legacyController)
        let scanner = HCIScanner(host: host)
        var adverts: [String: TuyaAdvertisement] = [:]
        for await device in try await scanner.start() {
            let data = device.data
            let fields = TuyaAdvertisingFields(
                serviceUUIDs: data.serviceUUIDs16, serviceData: data.serviceData16,
                manufacturerData: data.manufacturerData, localName: data.localName)
            guard device.scanResponse != nil, let advert = try? TuyaAdvertisement.decode(fields) else { continue }
            adverts[device.address] = advert
            if adverts.count == 2 { break }
        }
        await scanner.stop()
        let a201 = try #require(adverts[Self.a201.address])
        #expect(a201.layout == .a201 && a201.productID == "abcdefgh" && a201.isBound == false)
        #expect(a201.deviceUUID == Self.a201.uuid, "decrypted from the scan response's manufacturer data")
        #expect(a201.protocolVersion == 3 && a201.localName == "TY")
        let fd50 = try #require(adverts[Self.fd50.address])
        #expect(fd50.layout == .fd50 && fd50.productID == "hgfedcba" && fd50.isBound == false)
        #expect(fd50.encryptedDeviceID?.count == 16)
        #expect(await scanner.devices.first { $0.address == Self.a201.address }?.addressType == .randomDevice)
        await host.close()
    }

    @Test("connect, exchange MTU, find the Tuya service, enable notifications, write and get notifications")
    func connectAndExchange() async throws {
        let rig = try await BumbleRig.start(peripherals: [Self.a201, Self.fd50], aclLength: 16, aclCount: 3)
        defer { rig.stop() }
        let host = try await Self.open(rig)
        for (peripheral, layout) in [(Self.a201, TuyaGATTLayout.a201), (Self.fd50, .fd50)] {
            let channel = try await host.connect(to: peripheral.address, addressType: .randomDevice)
            try await rig.expectLine(containing: "\(peripheral.address) connected")
            // 16-byte ACL buffers cut every 20-byte write in two; an MTU of 185 lets the device answer in
            // PDUs longer than the buffers.
            let bearer = ATTBearer(channel: channel, preferredMTU: 185)
            let client = GATTClient(bearer: bearer)
            #expect(try await client.exchangeMTU() == 185)
            let service = try await client.discoverTuyaService()
            #expect(service.layout == layout)
            try await client.enableNotifications()
            var exchange = try TuyaFrameExchange(
                client: client, localKey: peripheral.localKey, protocolVersion: UInt8(peripheral.protocolVersion))
            let result = try await exchange.pair(
                uuid: peripheral.uuid, localKey: peripheral.localKey, devId: peripheral.devId)
            #expect(result == 0)
            try await rig.expectLine(containing: "\(peripheral.address) paired")
            let mark = rig.mark
            await client.close()
            try await rig.expectLine(containing: "\(peripheral.address) disconnected reason=0x13", after: mark)
        }
        #expect(await host.connectedHandles.isEmpty)
        #expect(await host.failure == nil)
        let lastProblem = await host.lastProblem
        #expect(await host.problemCount == 0, "\(lastProblem ?? "")")
        await host.close()
    }

    @Test("a device advertising from a public address is found as public and connected as public")
    func publicAddress() async throws {
        var device = Self.a201
        device.address = "DC:23:4D:12:34:56"
        device.isPublic = true
        let rig = try await BumbleRig.start(peripherals: [device])
        defer { rig.stop() }
        let host = try await Self.open(rig)
        let scanner = HCIScanner(host: host)
        var heard: DiscoveredDevice?
        for await found in try await scanner.start() where found.address == device.address {
            heard = found
            break
        }
        await scanner.stop()
        #expect(heard?.addressType == .publicDevice)
        let client = GATTClient.connect(over: try await host.connect(to: device.address, addressType: .publicDevice))
        #expect(try await client.discoverTuyaService().layout == .a201)
        await client.close()
        await host.close()
    }

    @Test("a peripheral without the Tuya service fails discovery clearly, naming the services it has")
    func noTuyaService() async throws {
        var impostor = Self.a201
        impostor.gatt = "none"
        let rig = try await BumbleRig.start(peripherals: [impostor])
        defer { rig.stop() }
        let host = try await Self.open(rig)
        let client = GATTClient.connect(over: try await host.connect(to: impostor.address, addressType: .randomDevice))
        let result: Result<TuyaGATTService, GATTError>
        do throws(GATTError) {
            result = .success(try await client.discoverTuyaService())
        } catch {
            result = .failure(error)
        }
        guard case .failure(.tuyaServiceNotFound(let found)) = result else {
            Issue.record("expected tuyaServiceNotFound, got \(result)")
            return
        }
        #expect(found.contains(BluetoothUUID(0x180F)))
        #expect(GATTError.tuyaServiceNotFound(found: found).description.contains("is it a Tuya BLE device?"))
        await client.close()
        await host.close()
    }

    @Test("the device ending the link or going out of range ends the channel with the reason; it reconnects in range")
    func peripheralGoesAway() async throws {
        let rig = try await BumbleRig.start(peripherals: [Self.a201])
        defer { rig.stop() }
        let host = try await Self.open(rig)
        let address = Self.a201.address
        let first = try await host.connect(to: address, addressType: .randomDevice)
        rig.send("disconnect \(address)")
        await #expect(throws: HCIHostError.disconnected(address: address, reason: .remoteUserTerminatedConnection)) {
            while try await first.receive() != nil {}
        }
        let second = try await host.connect(to: address, addressType: .randomDevice)
        rig.send("out-of-range \(address)")
        await #expect(throws: HCIHostError.disconnected(address: address, reason: .connectionTimeout)) {
            while try await second.receive() != nil {}
        }
        // Out of range: the attempt times out and is cancelled; the controller stays usable.
        await #expect(throws: HCIHostError.connectTimedOut(address: address, after: .milliseconds(500))) {
            _ = try await host.connect(to: address, addressType: .randomDevice, timeout: .milliseconds(500))
        }
        rig.send("in-range \(address)")
        let third = try await host.connect(to: address, addressType: .randomDevice)
        let client = GATTClient.connect(over: third)
        #expect(try await client.discoverTuyaService().layout == .a201)
        await client.close()
        await host.close()
    }

    @Test("the controller process killed mid-connection fails every link and the host clearly; nothing hangs")
    func controllerKilled() async throws {
        let rig = try await BumbleRig.start(peripherals: [Self.a201])
        let host = try await Self.open(rig)
        let client = GATTClient.connect(over: try await host.connect(to: Self.a201.address, addressType: .randomDevice))
        _ = try await client.discoverTuyaService()
        try await client.enableNotifications()
        rig.kill()
        var notifications = client.notifications.makeAsyncIterator()
        #expect(await notifications.next() == nil, "the notification stream ends")
        await #expect(throws: GATTError.self) { try await client.write(Array(repeating: 0, count: 20)) }
        let failure = try #require(await host.failure)
        guard case .controllerGone(let reason) = failure else {
            Issue.record("expected controllerGone, got \(failure)")
            return
        }
        #expect(reason.contains(rig.transport))
        #expect(failure.description.hasPrefix("the Bluetooth controller went away"))
        await #expect(throws: HCIHostError.controllerGone(reason)) {
            _ = try await host.connect(to: Self.a201.address, addressType: .randomDevice)
        }
    }

    @Test("three peripherals at once: connected together, each paired over its own link")
    func threeAtOnce() async throws {
        let peripherals = (1...3).map { index in
            BumbleRig.Peripheral(
                address: "C4:00:00:00:01:0\(index)", layout: index == 2 ? "fd50" : "a201",
                uuid: "uuidThree000000\(index)", localKey: Self.localKey, devId: "bfthree00000000000000\(index)",
                protocolVersion: index == 3 ? 4 : 3)
        }
        let rig = try await BumbleRig.start(peripherals: peripherals, aclLength: 27, aclCount: 2)
        defer { rig.stop() }
        let host = try await Self.open(rig)
        let results = try await withThrowingTaskGroup(of: UInt8.self) { group in
            for peripheral in peripherals {
                group.addTask {
                    let channel = try await host.connect(to: peripheral.address, addressType: .randomDevice)
                    let client = GATTClient.connect(over: channel)
                    _ = try await client.discoverTuyaService()
                    try await client.enableNotifications()
                    var exchange = try TuyaFrameExchange(
                        client: client, localKey: peripheral.localKey,
                        protocolVersion: UInt8(peripheral.protocolVersion))
                    return try await exchange.pair(
                        uuid: peripheral.uuid, localKey: peripheral.localKey, devId: peripheral.devId)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results == [0, 0, 0])
        #expect(await host.connectedHandles.count == 3)
        await host.close()
    }
}
