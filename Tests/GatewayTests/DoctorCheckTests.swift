import BLELink
import Foundation
import MQTTLink
import Testing
import TuyaCore

@testable import Gateway
import YoullTestSupport

/// Pure: each check's status for crafted observations.
@Suite("doctor verdicts")
struct DoctorCheckTests {
    let broker = "mqtt://broker.lan:1883"

    @Test("a configuration that loads is ok and names the file, or says that defaults apply")
    func configurationLoads() {
        let configuration = ConfigFixture.userDefaults
        let withFile = DoctorCheck.configuration(.success(configuration), file: "/etc/y.yaml", searched: [])
        #expect(withFile.status == .ok)
        #expect(withFile.detail == "/etc/y.yaml loads")
        let without = DoctorCheck.configuration(.success(configuration), file: nil, searched: ["/a", "/b"])
        #expect(without.detail.contains("looked for /a, /b"))
    }

    @Test("a bad configuration fails with the loader's message and points at the key to correct")
    func configurationFails() throws {
        let error = try #require(ConfigFixture.error("mqtt:\n  urll: mqtt://x\n"))
        let check = DoctorCheck.configuration(.failure(error), file: "config.yaml", searched: [])
        #expect(check.status == .fail)
        #expect(check.detail == error.description)
        #expect(check.detail.contains("mqtt.urll"))
        #expect(check.fix?.hasPrefix("correct mqtt.urll in config.yaml") == true)
    }

    @Test("a bad environment variable is named in the fix")
    func environmentFails() throws {
        let error = try #require(ConfigFixture.error(environment: ["YOULL_BLE": "maybe"]))
        let check = DoctorCheck.configuration(.failure(error), file: nil, searched: [])
        #expect(check.fix?.hasPrefix("correct or unset the environment variable YOULL_BLE") == true)
    }

    @Test("a reachable broker is ok, then the topic round trip and the daemon get their own lines")
    func brokerReachable() {
        let checks = DoctorCheck.broker(
            BrokerObservation(connection: .connected, roundTrip: .passed, bridgeState: .nothingRetained),
            broker: broker, user: "ada", baseTopic: "youll")
        #expect(checks.map(\.name) == ["broker", "topics", "daemon"])
        #expect(checks.map(\.status) == [.ok, .ok, .warn])
        #expect(checks[0].detail == "mqtt://broker.lan:1883 reachable, authorised as ada")
        #expect(checks[2].detail == "the daemon is not running (nothing retained on youll/bridge/state)")
        #expect(checks[2].fix == "start it with `systemctl start youll-devices` or `youll-devices serve`")
    }

    @Test(
        "each way of not getting in fails with its own fix",
        arguments: [
            (MQTTError.connectionRefused(host: "broker.lan", port: 1883), "start the broker"),
            (.hostNotFound(host: "broker.lan"), "host name in mqtt.url"),
            (.network(host: "broker.lan", port: 1883, reason: "No route to host"), "firewall"),
            (.notAuthorised(username: "ada"), "mqtt.username and mqtt.password"),
            (.tlsFailed(host: "broker.lan", port: 8883), "mqtt.ca_file"),
            (.invalidConfiguration("cannot read the CA file"), "TLS files"),
            (.connectionRejected(code: 2, reason: "identifier rejected"), "broker's log"),
        ])
    func brokerFails(error: MQTTError, fix: String) throws {
        let checks = DoctorCheck.broker(
            BrokerObservation(connection: .failed(error)), broker: broker, user: nil, baseTopic: "youll")
        let check = try #require(checks.only)
        #expect(check.status == .fail)
        #expect(check.detail == "\(broker): \(error)")
        #expect(check.fix?.contains(fix) == true, "\(check.fix ?? "")")
    }

    @Test("a broker that does not answer fails, saying how long it waited")
    func brokerSilent() throws {
        let check = try #require(
            DoctorCheck.broker(
                BrokerObservation(connection: .noAnswer(.seconds(5))), broker: broker, user: nil, baseTopic: "youll"
            ).only)
        #expect(check.status == .fail)
        #expect(check.detail == "mqtt://broker.lan:1883: no answer within 5 s")
    }

    @Test("a refused subscription or a lost echo is a warning naming the ACL line to add")
    func topicsRefused() {
        let refused = DoctorCheck.topics(
            .failed(.subscriptionRefused(topic: "home/bridge/doctor/x")), baseTopic: "home")
        #expect(refused.status == .warn)
        #expect(refused.fix == "allow this user readwrite on home/# in the broker's ACL")
        let lost = DoctorCheck.topics(.noEcho(.seconds(5)), baseTopic: "home")
        #expect(lost.status == .warn)
        #expect(lost.detail.contains("did not come back within 5 s"))
    }

    @Test(
        "the retained bridge state decides whether the daemon runs",
        arguments: [
            (#"{"state":"online"}"#, DoctorCheck.Status.ok), (#"{"state":"offline"}"#, .warn), ("online", .ok),
            ("offline", .warn), (#"{"state":"#, .warn), ("", .warn),
        ])
    func daemonState(payload: String, status: DoctorCheck.Status) {
        let check = DoctorCheck.daemon(.retained(Array(payload.utf8)), baseTopic: "youll")
        #expect(check.status == status)
        if status == .warn, payload.contains("offline") {
            #expect(check.detail == "the daemon is not running (youll/bridge/state is offline)")
        }
    }

    @Test("an oversized bridge state is not parsed and not echoed")
    func hugeState() {
        let payload =
            Array(#"{"state":"online","pad":""#.utf8) + [UInt8](repeating: 0x61, count: 100_000) + [0x22, 0x7D]
        let check = DoctorCheck.daemon(.retained(payload), baseTopic: "youll")
        #expect(check.status == .warn)
        #expect(check.detail.count < 200)
    }

    @Test("BLE switched off is ok without probing")
    func bleOff() {
        var ble = GatewayConfiguration.BLE()
        ble.mode = .off
        let check = DoctorCheck.bluetooth(ble) { _ throws(BLEUnavailable) in
            Issue.record("probed although BLE is off")
            throw .noAdapter("hci0")
        }
        #expect(check.status == .ok)
        #expect(check.detail == "disabled in config (ble.enabled: off)")
    }

    @Test("BLE unavailable is a warning in auto mode and a failure when required, with the probe's fix")
    func bleUnavailable() {
        var ble = GatewayConfiguration.BLE()
        let down = BLEUnavailable.adapterDown("hci0")
        let auto = DoctorCheck.bluetooth(ble) { _ throws(BLEUnavailable) in throw down }
        #expect(auto.status == .warn)
        #expect(auto.detail == "Bluetooth adapter hci0 is powered off; the daemon runs without BLE (ble.enabled: auto)")
        #expect(auto.fix?.hasPrefix(down.fix) == true)
        ble.mode = .on
        ble.adapter = "hci1"
        let on = DoctorCheck.bluetooth(ble) { adapter throws(BLEUnavailable) in throw .noAdapter(adapter) }
        #expect(on.status == .fail)
        #expect(on.detail.hasPrefix("no Bluetooth adapter hci1"))
    }

    @Test("a usable adapter is ok with its address")
    func bleUsable() {
        let check = DoctorCheck.bluetooth(GatewayConfiguration.BLE()) { name in
            BluetoothAdapter(name: name, address: "AA:BB:CC:11:22:33")
        }
        #expect(check == .ok("ble", "hci0 (AA:BB:CC:11:22:33) is up and usable"))
    }

    @Test(
        "the daemon's BLE links: ok with who holds them, a warning naming who waits, nothing without an adapter or an answer"
    )
    func bleLinks() {
        func health(connected: [String], waiting: [String], adapter: JSONValue = .string("hci0")) -> JSONValue {
            .object([
                "ble": .object([
                    "adapter": adapter, "limit": .integer(3), "connected": .array(connected.map(JSONValue.string)),
                    "waiting": .array(waiting.map(JSONValue.string)),
                ])
            ])
        }
        #expect(
            DoctorCheck.bleLinks(health: health(connected: [], waiting: []))
                == .ok("ble-links", "the daemon holds 0 of 3 connections on hci0; none waiting"))
        let busy = DoctorCheck.bleLinks(health: health(connected: ["a", "b", "c"], waiting: ["d"]))
        #expect(busy?.status == .warn)
        #expect(busy?.detail == "the daemon holds 3 of 3 connections on hci0 (a, b, c); waiting: d")
        #expect(busy?.fix?.contains("ble.max_connections") == true)
        #expect(DoctorCheck.bleLinks(health: health(connected: [], waiting: [], adapter: .null)) == nil)
        #expect(DoctorCheck.bleLinks(health: nil) == nil)
        #expect(DoctorCheck.bleLinks(health: .string("garbage")) == nil)
        // The answer comes over the broker, where it can be forged: escapes are shown, not sent.
        let forged = DoctorCheck.bleLinks(
            health: health(connected: ["a\u{1B}[2J"], waiting: [], adapter: .string("hci0\u{1B}]0;x\u{07}")))
        #expect(
            forged?.detail == "the daemon holds 1 of 3 connections on hci0\\u{1b}]0;x\\u{7} (a\\u{1b}[2J); none waiting"
        )
    }

    @Test("no profiles at all fails; broken files are a warning each, after the count")
    func profiles() {
        let folders = GatewayConfiguration.ProfileFolders(installed: "/usr/share/p", user: "/home/ada/p")
        let empty = DoctorCheck.profiles(ProfileLibrary(), folders: folders)
        #expect(empty.map(\.status) == [.fail])
        #expect(empty[0].detail == "no device profiles in /usr/share/p and /home/ada/p")
        let broken = ProfileError(source: "/home/ada/p/lamp.yaml", line: 3, reason: "bad")
        let mixed = DoctorCheck.profiles(
            ProfileLibrary(profiles: [TestProfile.shipped], errors: [broken]), folders: folders)
        #expect(mixed.map(\.status) == [.ok, .warn])
        #expect(mixed[0].detail == "1 profile from /usr/share/p and /home/ada/p")
        #expect(mixed[1].detail == "/home/ada/p/lamp.yaml:3: bad")
    }

    @Test("the profile line names every folder searched, the source checkout's included")
    func profilesSearched() {
        let folders = GatewayConfiguration.ProfileFolders(installed: "/usr/share/p", user: "/home/ada/p")
        let searched = ["/src/youll/devices", "/usr/share/p", "/home/ada/p"].map { URL(fileURLWithPath: $0) }
        let checks = DoctorCheck.profiles(
            ProfileLibrary(profiles: [TestProfile.shipped]), folders: folders, searched: searched)
        #expect(checks.map(\.detail) == ["1 profile from /src/youll/devices, /usr/share/p and /home/ada/p"])
    }

    @Test(
        "the daemon's database: ok when it takes writes, a warning with the reason while degraded, nothing without an answer"
    )
    func databaseHealth() {
        #expect(DoctorCheck.database(health: nil) == nil)
        #expect(DoctorCheck.database(health: .object(["database": .string("ok")]))?.status == .ok)
        let degraded = DoctorCheck.database(
            health: .object(["database": .string("degraded: could not save a device's confirmed state: disk full")]))
        #expect(degraded?.status == .warn)
        #expect(
            degraded?.detail
                == "the daemon's database is degraded: could not save a device's confirmed state: disk full")
        #expect(degraded?.fix?.contains("free space") == true)
    }

    @Test(
        "the clock is sane from 2025 to 2099",
        arguments: [
            (0.0, DoctorCheck.Status.fail), (1_735_689_600, .ok),  // 2025-01-01
            (1_735_689_599, .fail), (4_102_444_799, .ok),  // 2099-12-31T23:59:59
            (4_102_444_800, .fail),  // 2100-01-01
        ])
    func clock(seconds: Double, status: DoctorCheck.Status) {
        let check = DoctorCheck.clock(now: Date(timeIntervalSince1970: seconds))
        #expect(check.status == status)
        if status == .fail { #expect(check.fix == "set the clock, or enable NTP (timedatectl set-ntp true)") }
    }
}

extension Array {
    /// The single element, or nil when there are none or several.
    var only: Element? { count == 1 ? first : nil }
}

enum TestProfile {
    static var shipped: DeviceProfile {
        return Repository.shippedProfiles.all[0]
    }
}
