import ArgumentParser
import Foundation
import Gateway
import TuyaCore

/// `pair ble --scan [--seconds N]` lists Tuya BLE devices the daemon hears;
/// `pair ble ADDRESS --uuid U --dev-id D` (key from --key, --key-file or YOULL_LOCAL_KEY) binds one.
struct PairBLE: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ble", abstract: "Scan for Tuya BLE devices, or pair one by its address.",
        discussion: """
            Scan, then pair one device by its address, uuid and devId; the local key comes from \
            --key-file or YOULL_LOCAL_KEY. The uuid, local key and devId come from the Tuya cloud \
            (as for tinytuya), the product id (--product-id) from the scan.

              youll-devices pair ble --scan --seconds 20
              youll-devices pair ble DC:23:4D:12:34:56 --uuid UUID --dev-id DEVID
            """)

    @OptionGroup var bridge: BridgeOptions
    @OptionGroup var key: LocalKeyOptions

    @Flag(name: .long, help: "List the Tuya BLE devices the daemon hears instead of pairing one.")
    var scan = false

    @Option(name: .long, help: "How long to scan, in seconds (1–3600).")
    var seconds: Int = 15

    @Argument(help: "The device's Bluetooth address (AA:BB:CC:DD:EE:FF).")
    var address: String?

    @Option(name: .long, help: "The device's Tuya uuid.")
    var uuid: String?

    @Option(name: .customLong("dev-id"), help: "The device's Tuya devId (its id in the gateway).")
    var devId: String?

    @Flag(name: .customLong("random-address"), help: "The address is an LE random (static) one.")
    var randomAddress = false

    @Option(name: .long, help: "Friendly name (default: the devId).")
    var name: String?

    @Option(name: .customLong("product-id"), help: "The product id the scan showed; picks the BLE profile listing it.")
    var productID: String?

    @Option(name: .long, help: "Device profile id (default: the BLE profile listing --product-id).")
    var profile: String?

    func validate() throws {
        if scan {
            guard address == nil else { throw ValidationError("--scan lists devices; leave out the address") }
            guard BridgeRequest.permitJoinSeconds.contains(seconds) else {
                throw ValidationError("--seconds: expected 1 to 3600")
            }
        } else {
            guard address != nil else { throw ValidationError("give the device's address, or --scan to find it") }
            guard uuid != nil else { throw ValidationError("--uuid is required to pair a BLE device") }
            guard devId != nil else { throw ValidationError("--dev-id is required to pair a BLE device") }
            guard productID != nil || profile != nil else {
                throw ValidationError("--product-id (shown by --scan) or --profile is required to pair a BLE device")
            }
        }
    }

    func run() async throws {
        try await reportingErrors {
            if scan { try await scanForDevices() } else { try await pairDevice() }
        }
    }

    private func pairDevice() async throws {
        guard let address, let uuid, let devId else { return }
        let request: [String: JSONValue] = [
            "id": .string(devId), "local_key": .string(try key.localKey()), "transport": .string("ble"),
            "address": .string(address), "uuid": .string(uuid), "random_address": .bool(randomAddress),
        ]
        try await addDevice(
            request, name: name, profile: profile, productID: productID, bridge: bridge,
            waitDefault: pairingWaitSeconds + 60
        ) { _ in address }
    }

    private func scanForDevices() async throws {
        let found = try await bridge.withBridge { client, limit in
            let events = try await client.subscribe(["\(client.baseTopic)/bridge/event"])
            _ = try await client.request(
                "permit_join", ["value": .bool(true), "time": .integer(Int64(seconds)), "transport": .string("ble")],
                timeout: limit)
            if !bridge.json { printNote("scanning for \(seconds) s…") }
            var found = ScanList()
            try await forEach(events, for: .seconds(seconds)) { message in
                guard let event = message.json, let type = event["type"]?.stringValue else { return true }
                if type == "device_found", event["data"]?["transport"]?.stringValue == "ble", let data = event["data"] {
                    found.add(data)
                }
                return !(type == "permit_join_changed" && event["data"]?["value"]?.boolValue == false)
            }
            if found.dropped > 0, !bridge.json {
                printNote("more than \(ScanList.limit) devices heard; \(found.dropped) more reports not shown")
            }
            return found.devices
        }
        if bridge.json {
            printJSONLine(.array(found))
            return
        }
        guard !found.isEmpty else {
            printNote("no Tuya BLE device heard; bring it closer or put it in pairing mode")
            return
        }
        var table = TextTable(headers: ["ADDRESS", "PRODUCT", "BOUND", "RSSI", "PROFILE"])
        for device in found {
            let address: String = device["address"]?.stringValue ?? "?"
            let product: String = device["product_id"]?.stringValue ?? "-"
            let bound: String = device["bound"]?.boolValue.map { $0 ? "yes" : "no" } ?? "?"
            let rssi: String = device["rssi"]?.int64Value.map { "\($0) dBm" } ?? "-"
            let profile: String = device["profile"]?.stringValue ?? "(none)"
            table.append([address, product, bound, rssi, profile].map { BridgeText.printable($0) })
        }
        table.print()
    }
}

/// The devices a BLE scan heard, once each by address (the latest report wins, in the order
/// first heard), at most `limit`: the events come over the broker, where anyone can publish
/// a flood of them.
struct ScanList {
    static let limit = 256
    private(set) var devices: [JSONValue] = []
    private var index: [String: Int] = [:]
    /// Devices heard beyond `limit`, not kept.
    private(set) var dropped = 0

    mutating func add(_ device: JSONValue) {
        let address = device["address"]?.stringValue ?? ""
        if !address.isEmpty, let at = index[address] {
            devices[at] = device
        } else if devices.count < Self.limit {
            if !address.isEmpty { index[address] = devices.count }
            devices.append(device)
        } else {
            dropped += 1
        }
    }
}
