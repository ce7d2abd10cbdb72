import ArgumentParser
import Foundation
import Gateway
import TuyaCore

/// `pair lan DEVID [--ip ADDR] [--protocol 3.x]` (key from --key, --key-file or
/// YOULL_LOCAL_KEY): one stock Tuya Wi-Fi device over the LAN protocol.
struct PairLAN: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lan", abstract: "Pair a Tuya Wi-Fi device over the LAN protocol (TCP 6668).",
        discussion: """
            YOULL_LOCAL_KEY=… youll-devices pair lan bf12ab34cd56ef78aa1234 --name desk
            YOULL_LOCAL_KEY=… youll-devices pair lan bf12ab34cd56ef78aa1234 --ip 192.168.1.40 --protocol 3.5
            Without --ip and --protocol, the address and version come from the device's broadcast
            (`pair permit` lists the devices heard); a device that never broadcasts pairs by --ip and --protocol.
            """)

    @OptionGroup var bridge: BridgeOptions
    @OptionGroup var key: LocalKeyOptions

    @Argument(help: "The Tuya device id (devId).")
    var devId: String

    @Option(name: .long, help: "The device's IPv4 address (default: where it broadcasts from).")
    var ip: String?

    @Option(name: .customLong("protocol"), help: "The LAN protocol version, 3.1 to 3.5 (default: from its broadcast).")
    var version: String?

    @Option(name: .long, help: "Friendly name: the device's topics become <base>/<name> (default: its devId).")
    var name: String?

    @Option(name: .long, help: "Device profile id (default: chosen from the product id or the DPs it reports).")
    var profile: String?

    @Option(name: .customLong("product-id"), help: "Tuya product id (default: the product key it broadcasts).")
    var productID: String?

    func run() async throws {
        try await reportingErrors {
            var request: [String: JSONValue] = [
                "id": .string(devId), "local_key": .string(try key.localKey()), "transport": .string("lan"),
            ]
            if let ip { request["ip"] = .string(ip) }
            if let version { request["version"] = .string(version) }
            if let name { request["name"] = .string(name) }
            if let profile { request["profile"] = .string(profile) }
            if let productID { request["product_id"] = .string(productID) }
            let device = try await bridge.withBridge(waitDefault: pairingWaitSeconds) { client, limit in
                try await client.request("device/add", request, timeout: limit)
            }
            if bridge.json {
                printJSONLine(device)
            } else {
                let paired = BridgeDevice(device)
                print(
                    "paired \(BridgeText.printable(paired?.friendlyName ?? devId)) (\(BridgeText.printable(paired?.id ?? devId)))"
                        + " over the LAN" + (paired?.profile.map { ", profile \(BridgeText.printable($0))" } ?? ""))
            }
        }
    }
}
