import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Real parts: the built `youll-devices` binary, which starts its own mosquitto and
/// simulated devices.
@Suite("youll-devices demo")
struct DemoCommandTests {
    @Test(
        "the demo pairs and drives three Wi-Fi devices, a BLE diffuser and a LAN bulb through the bridge API, catches a wrong key, runs a short timer session, opens a refill alert's deep link, stops the gateway cleanly and leaves nothing behind"
    )
    func demoRunsEndToEnd() async throws {
        let result = try await CLIRunner.run(["demo"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("5 devices paired and 6 commands confirmed through the MQTT bridge API"))
        #expect(result.stdout.contains("event: device_paired living-room"))
        #expect(result.stdout.contains("pairing_failed"))
        #expect(result.stdout.contains("youll/bridge/state: offline"))
        #expect(result.stdout.contains("brightness 140 → refused"))
        #expect(result.stdout.components(separatedBy: "with profile").count - 1 == 5)
        #expect(result.stdout.contains("ble-diffuser: paired over BLE with profile Dituo BLE aroma diffuser"))
        #expect(result.stdout.contains("youll/ble-diffuser [online]: on, mist on, mode large"))
        // The LAN bulb: protocol 3.4 on TCP 6668 of its own loopback address, driven like the others.
        #expect(result.stdout.contains("lan-bulb: paired over the LAN (protocol 3.4 at 127.0.77.1:6668) with profile"))
        #expect(result.stdout.contains("youll/lan-bulb [online]: on, mode color_temp, brightness 60 %"))
        #expect(result.stdout.contains(#"youll_devices{transport="lan",availability="online"} 1.0"#))
        #expect(result.stdout.contains("check the local key"))
        #expect(result.stdout.components(separatedBy: "→ confirmed in").count - 1 == 6)
        // The timer step: a short session through session/start, its cues printed as they fire.
        #expect(result.stdout.contains("event: session_started focus"))
        #expect(result.stdout.contains("bell 1 of stage 1  living-room  sent"))
        #expect(result.stdout.contains("restore  ble-diffuser"))
        #expect(result.stdout.contains("event: session_ended completed after 00:08"))
        #expect(result.stdout.contains("event: badge_earned first session"))
        #expect(result.stdout.contains("session/history: 1 completed, badges [\"first_session\"]"))
        #expect(!result.stdout.contains("0000000000000000"))
        // The diffuser runs dry: the alert, its deep link opened, the reminder marked done.
        #expect(result.stdout.contains("event: maintenance_alert diffuser: refill (due)"))
        #expect(result.stdout.contains("→ youll://tuya/maintenance?type=refill&device="))
        #expect(result.stdout.contains("open:   1. Switch the diffuser off and unplug it."))
        #expect(result.stdout.contains("open: marked done: ok, 100 % remaining"))
        #expect(!result.stdout.contains("b5T!q8Wz#p2Lm4Xr"), "the BLE diffuser's local key was printed")
        // Home Assistant finds the gateway and every paired device; Prometheus counted the work.
        #expect(result.stdout.components(separatedBy: "homeassistant/device/").count - 1 == 6)
        #expect(result.stdout.contains("ble-diffuser: binary_sensor, 3 button, fan, light, select, 7 sensor"))
        #expect(result.stdout.contains("youll_commands_confirmed_total 6"))
        #expect(result.stdout.contains(#"youll_devices{transport="ble",availability="online"} 1.0"#))
        #expect(!result.stdout.contains("youll_session_cue_lateness_seconds_count 0"))

        // The broker the demo started must be gone: nothing accepts on its port any more.
        let port = try #require(
            result.stdout.split(separator: "\n").first { $0.contains("broker on mqtt://127.0.0.1:") }
                .flatMap { $0.split(separator: ":").last }.flatMap { Int($0.prefix { $0.isNumber }) })
        #expect(!acceptsConnections(port: port))
        // And its temporary state directory is gone.
        let state = try #require(
            result.stdout.split(separator: "\n").first { $0.contains("state in ") }
                .flatMap { $0.split(separator: " ").first { $0.hasPrefix("/") } })
        #expect(!FileManager.default.fileExists(atPath: String(state)))
    }

    private func acceptsConnections(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
