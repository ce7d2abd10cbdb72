import BLELink
import Foundation
import TuyaController
import TuyaCore
import Storage
import YoullTestSupport

/// BLE through a Bluetooth stack no one here wrote (issue 17): the gateway's own HCI host on
/// `ble.transport: h4-tcp:…` to Bumble's virtual controller, a Bumble peripheral answering the
/// Tuya BLE protocol (Tests/Python/bumble_tuya_peripheral.py), DP write → confirmed through
/// `TuyaController`. The peer in the same run, on the same virtual radio link: Bumble's own
/// GATT write round trip, a second Bumble host writing a descriptor with response to the
/// same peripheral.
///
/// Both sides go through Bumble's Python controllers and link, so the figures say how the
/// gateway's path compares with the cheapest GATT exchange the same stack offers, not how
/// fast a real radio is (a real connection interval is 7.5 ms or more).
struct BLEBumbleBenchmarks {
    struct Options {
        var samples = 300
        var profiles = "devices"
    }

    let options: Options

    static let address = "C4:23:4D:BE:4C:02"
    static let identity = (uuid: "tuyabench0123457", key: "0123456789abcdef", devId: "bfbenchbumble0001")

    func run() async throws {
        let library = ProfileLibrary.load(directories: [URL(fileURLWithPath: options.profiles)])
        guard var profile = library.profile(id: "ble-diffuser-dituo") else {
            throw BenchError("profile ble-diffuser-dituo not found in \(options.profiles)")
        }
        // The limiter towards real radios (300 ms between frames) would be all the figure shows.
        profile.frameGapMilliseconds = 0
        // 251-byte ACL buffers, as a Raspberry Pi's controller offers with LE Data Length
        // Extension: one Tuya frame is one ACL packet, as in Bumble's own exchange.
        let bumble = try await BumbleRig.start(peripherals: [Self.peripheral], aclLength: 251)
        defer { bumble.stop() }

        // The peer first, while the peripheral still advertises: Bumble's own round trip.
        let mark = bumble.mark
        bumble.send("gatt-round-trips \(Self.address) \(options.samples)")
        let line = try await bumble.expectLine(containing: "gatt-round-trips n=", after: mark, timeout: .seconds(300))
        let peer = try Self.figures(line)
        BLEBenchmarks.report("ble.bumble.gatt-write.p50", peer.p50)
        BLEBenchmarks.report("ble.bumble.gatt-write.p99", peer.p99)
        // It disconnects; the peripheral advertises again before the gateway looks for it.
        try await bumble.expectLine(containing: "\(Self.address) disconnected", after: mark, timeout: .seconds(30))

        let times = try await dpWrites(profile: profile, transport: bumble.transport)
        let p50 = times[times.count / 2]
        let p99 = times[times.count * 99 / 100]
        BLEBenchmarks.report("ble.bumble.dpwrite.p50", p50)
        BLEBenchmarks.report("ble.bumble.dpwrite.p99", p99)
        print("BENCH ble.bumble.dpwrite.p50.vs-bumble-gatt-write.ratio \(String(format: "%.2f", p50 / peer.p50)) x")
        print("BENCH ble.bumble.dpwrite.p99.vs-bumble-gatt-write.ratio \(String(format: "%.2f", p99 / peer.p99)) x")
    }

    /// The Dituo diffuser (devices/ble-diffuser-dituo.yaml) with its DPs off.
    static var peripheral: BumbleRig.Peripheral {
        BumbleRig.Peripheral(
            address: address, uuid: identity.uuid, localKey: identity.key, devId: identity.devId,
            productID: "if1nolcm", protocolVersion: 4,
            dps: [
                "1": .bool(false), "2": .bool(false), "3": .enumeration(0), "5": .enumeration(0), "6": .value(0),
                "7": .bool(false), "9": .value(50), "12": .enumeration(0), "101": .enumeration(0),
            ])
    }

    /// `p50_us=X p99_us=Y` from the rig's line.
    static func figures(_ line: String) throws -> (p50: Double, p99: Double) {
        var values: [String: Double] = [:]
        for word in line.split(separator: " ") {
            let parts = word.split(separator: "=", maxSplits: 1)
            if parts.count == 2, let value = Double(parts[1]) { values[String(parts[0])] = value }
        }
        guard let p50 = values["p50_us"], let p99 = values["p99_us"] else {
            throw BenchError("the Bumble rig's round trips are unreadable: \(line)")
        }
        return (p50, p99)
    }

    /// DP write → confirmed latencies in microseconds, sorted.
    private func dpWrites(profile: DeviceProfile, transport: String) async throws -> [Double] {
        let link = HCIControllerLink(setting: try BLETransportSetting(parsing: transport))
        let controller = TuyaController(
            bus: SilentBus(), library: ProfileLibrary(profiles: [profile]), radio: .hci(link, connectionLimit: 3))
        try await controller.start()
        defer {
            Task {
                await controller.stop()
                await link.close()
            }
        }
        let outcome = try await controller.pairBLE(
            devId: Self.identity.devId, localKey: Self.identity.key,
            identity: try BLEIdentity(address: Self.address, randomAddress: true, uuid: Self.identity.uuid),
            profileID: profile.id)
        guard case .paired(let paired) = outcome else { throw BenchError("pairing over Bumble failed: \(outcome)") }

        return try await BLEBenchmarks.mistModeWrites(controller, to: paired.id, samples: options.samples, warmup: 20)
    }
}
