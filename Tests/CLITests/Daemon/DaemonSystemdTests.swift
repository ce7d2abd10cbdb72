import Foundation
import Testing
import YoullTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `serve` under systemd's `Type=notify` contract, with a real datagram socket playing systemd.
@Suite("youll-devices serve under systemd", .serialized)
struct DaemonSystemdTests {
    @Test("READY=1 once the bridge is up, WATCHDOG=1 pings at half of WatchdogSec, STOPPING=1 on SIGTERM")
    func notifyProtocol() async throws {
        let rig = try await DaemonRig()
        let socket = try NotifySocketListener()
        // WatchdogSec=1s: the daemon must ping every 0.5 s.
        try await rig.startDaemon(environment: [
            "NOTIFY_SOCKET": socket.environmentValue, "WATCHDOG_USEC": "1000000",
        ])
        var messages: [String] = []
        while !messages.contains(where: { $0.hasPrefix("READY=1") }) || !messages.contains("WATCHDOG=1") {
            guard let message = socket.receive(waitingUpTo: .seconds(10)) else { break }
            messages.append(message)
        }
        let ready = try #require(messages.first { $0.hasPrefix("READY=1") }, "\(messages)")
        #expect(ready.contains("STATUS=0 devices"))
        #expect(messages.contains("WATCHDOG=1"))

        let pid = try #require(rig.daemon?.pid)
        kill(pid, SIGTERM)
        var stopping = false
        while let message = socket.receive(waitingUpTo: .seconds(10)) {
            if message == "STOPPING=1" {
                stopping = true
                break
            }
        }
        #expect(stopping)
        #expect(await rig.stopDaemon() == 0)
        await rig.shutdown()
    }
}

/// BLE at start on a machine whose kernel has no Bluetooth (this project's CI machines);
/// where Bluetooth exists the outcome depends on the adapter, so the suite does not apply.
@Suite(
    "youll-devices serve without Bluetooth",
    .enabled(if: !FileManager.default.fileExists(atPath: "/sys/class/bluetooth"), "this kernel has Bluetooth"))
struct DaemonBluetoothTests {
    @Test("ble.enabled: on refuses to start and says the kernel has no Bluetooth; auto starts with Wi-Fi devices only")
    func bluetoothModes() async throws {
        let required = try await DaemonRig(extraConfig: "ble:\n  enabled: on\n")
        let refused = try await CLIRunner.run(["serve", "--config", required.configPath])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("kernel has no Bluetooth support"), "\(refused.stderr)")
        await required.shutdown()

        let automatic = try await DaemonRig()
        try await automatic.startDaemon()
        let info = try await automatic.observer.wait(for: "youll/bridge/info")
        #expect(info.json?["ble_adapter"] == .null)
        #expect(automatic.log.contains("BLE unavailable, continuing with Wi-Fi devices only"))

        // Pairing BLE devices says why it cannot; pairing in general still works for Wi-Fi.
        let scan = try await automatic.request(
            "permit_join", ["value": .bool(true), "time": .integer(5), "transport": .string("ble")])
        #expect(scan["status"]?.string == "error")
        #expect(scan["error"]?.string?.contains("kernel has no Bluetooth support") == true, "\(scan)")
        let add = try await automatic.request(
            "device/add",
            [
                "id": .string("blediff1"), "local_key": .string("0123456789abcdef"), "transport": .string("ble"),
                "address": .string("DC:23:4D:12:34:56"), "uuid": .string("tuya1234abcd5678"),
            ])
        #expect(add["status"]?.string == "error")
        #expect(add["data"]?["reason"]?.string == "ble_unavailable")
        let both = try await automatic.request("permit_join", ["value": .bool(true), "time": .integer(5)])
        #expect(both["status"]?.string == "ok")
        #expect(both["data"]?["ble"]?.string?.hasPrefix("unavailable: ") == true)

        // The CLI says the same in one line, and never prints the key.
        let scanCLI = try await automatic.cli(["pair", "ble", "--scan", "--seconds", "2"])
        #expect(scanCLI.status == 1)
        #expect(scanCLI.stderr.contains("kernel has no Bluetooth support"), "\(scanCLI.stderr)")
        #expect(scanCLI.stderr.split(separator: "\n").count == 1)
        let pairCLI = try await automatic.cli(
            [
                "pair", "ble", "DC:23:4D:12:34:56", "--uuid", "tuya1234abcd5678", "--dev-id", "blediff1",
                "--product-id", "if1nolcm",
            ],
            environment: ["YOULL_LOCAL_KEY": "0123456789abcdef"])
        #expect(pairCLI.status == 1)
        #expect(pairCLI.stderr.contains("BLE cannot be used"), "\(pairCLI.stderr)")
        #expect(!(pairCLI.stdout + pairCLI.stderr).contains("0123456789abcdef"))
        let missing = try await automatic.cli(["pair", "ble", "DC:23:4D:12:34:56"])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("--uuid"))
        await automatic.shutdown()
    }
}
