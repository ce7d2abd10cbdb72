import Foundation
import LocalBroker
import Testing

@testable import Gateway

/// The shipped unit file and sysusers file, read from scripts/systemd: a typo there is a
/// service that never reports ready, runs as root, or cannot reach the BLE adapter.
@Suite("systemd unit file")
struct SystemdUnitFileTests {
    private let unit: SystemdUnitFile

    init() throws {
        unit = try SystemdUnitFile(contentsOf: SystemdUnitFile.scriptURL("youll-devices.service"))
    }

    @Test("the unit is Type=notify, started as 'youll-devices serve' from where scripts/install puts it")
    func notifyService() throws {
        #expect(unit.value("Service", "Type") == "notify")
        #expect(unit.value("Service", "NotifyAccess") == "main")
        #expect(unit.value("Service", "ExecStart") == "/usr/local/bin/youll-devices serve")
        #expect(unit.value("Service", "Restart") == "on-failure")
        #expect(unit.value("Install", "WantedBy") == "multi-user.target")
        let install = try String(contentsOf: SystemdUnitFile.scriptURL("../install"), encoding: .utf8)
        #expect(install.contains("binary=/usr/local/bin/youll-devices"))
    }

    @Test("WatchdogSec=30 makes the daemon ping every 15 s")
    func watchdog() throws {
        let seconds = try #require(unit.value("Service", "WatchdogSec").flatMap { Int64($0) })
        #expect(seconds == 30)
        // systemd passes WatchdogSec= to the daemon as WATCHDOG_USEC, in microseconds.
        let notifier = try SystemdNotifier(
            environment: ["NOTIFY_SOCKET": "/run/systemd/notify", "WATCHDOG_USEC": "\(seconds * 1_000_000)"])
        #expect(notifier.watchdogInterval == .seconds(15))
    }

    @Test("the service runs as the youll-devices user that the sysusers file creates, never root")
    func dedicatedUser() throws {
        #expect(unit.value("Service", "User") == "youll-devices")
        #expect(unit.value("Service", "DynamicUser") == "no")
        let sysusers = try String(contentsOf: SystemdUnitFile.scriptURL("youll-devices.sysusers"), encoding: .utf8)
        let entries = sysusers.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.isEmpty }
            .map { $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init) }
        #expect(entries.contains { $0.count >= 2 && $0[0] == "u" && $0[1] == "youll-devices" })
    }

    @Test("state lives in a private /var/lib/youll-devices that the daemon finds through $STATE_DIRECTORY")
    func stateDirectory() throws {
        #expect(unit.value("Service", "StateDirectory") == "youll-devices")
        #expect(unit.value("Service", "StateDirectoryMode") == "0700")
        #expect(unit.value("Service", "UMask") == "0077")
        #expect(unit.value("Service", "ConfigurationDirectory") == "youll-devices")
        // What systemd sets for StateDirectory=youll-devices is where the gateway keeps its store.
        let environment = ["STATE_DIRECTORY": "/var/lib/youll-devices", "INVOCATION_ID": "0123abcd"]
        #expect(ConfigurationLoader.isService(environment: environment))
        #expect(
            ConfigurationLoader.defaults(environment: environment, isService: true).stateDirectory
                == "/var/lib/youll-devices")
    }

    @Test(
        "BLE capabilities are granted and nothing else is: ambient and bounding sets are CAP_NET_RAW and CAP_NET_ADMIN")
    func capabilities() {
        let ble: Set = ["CAP_NET_RAW", "CAP_NET_ADMIN"]
        #expect(Set(unit.words("Service", "AmbientCapabilities")) == ble)
        #expect(Set(unit.words("Service", "CapabilityBoundingSet")) == ble)
    }

    @Test("the sandbox leaves what the daemon needs: AF_UNIX for NOTIFY_SOCKET, IP for MQTT, AF_BLUETOOTH for BLE")
    func sandbox() {
        let families = Set(unit.words("Service", "RestrictAddressFamilies"))
        #expect(families == ["AF_UNIX", "AF_INET", "AF_INET6", "AF_BLUETOOTH", "AF_NETLINK"])
        for key in [
            "NoNewPrivileges", "ProtectHome", "PrivateTmp", "ProtectKernelTunables", "ProtectKernelModules",
            "ProtectControlGroups", "RestrictNamespaces", "LockPersonality", "MemoryDenyWriteExecute",
        ] {
            #expect(unit.value("Service", key) == "yes", "\(key)")
        }
        #expect(unit.value("Service", "ProtectSystem") == "strict")
        #expect(unit.value("Service", "SystemCallArchitectures") == "native")
    }

    @Test("the broker is waited for but not required: Wants= and After=, no Requires=")
    func ordering() {
        for target in ["network-online.target", "mosquitto.service"] {
            #expect(unit.words("Unit", "After").contains(target), "\(target)")
            #expect(unit.words("Unit", "Wants").contains(target), "\(target)")
        }
        #expect(unit.words("Unit", "Requires").isEmpty)
        #expect(unit.words("Unit", "BindsTo").isEmpty)
    }

    /// systemd-analyze checks that each key exists and each value parses, which the checks above
    /// cannot; it also wants ExecStart's binary to exist, so a copy runs /bin/true instead.
    @Test(
        "systemd-analyze verify finds no unknown key or bad value in the unit",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze")))
    func systemdAnalyzeVerify() async throws {
        let text = try String(contentsOf: SystemdUnitFile.scriptURL("youll-devices.service"), encoding: .utf8)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("youll-unit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let copy = directory.appendingPathComponent("youll-devices.service")
        try text.replacingOccurrences(of: "ExecStart=/usr/local/bin/youll-devices", with: "ExecStart=/bin/true")
            .write(to: copy, atomically: true, encoding: .utf8)

        // Through ChildProcess (swift-subprocess): Foundation's Process.run() has crashed here
        // with SIGSEGV under load, the crash ChildProcess exists for.
        let output = try await ChildProcess.run("/usr/bin/systemd-analyze", ["verify", copy.path])
        let report = output.stdout + output.stderr
        #expect(output.status == 0, "\(report)")
        let complaints = report.split(separator: "\n").filter { $0.contains(copy.lastPathComponent) }
        #expect(complaints.isEmpty, "\(report)")
    }

    @Test("a line outside a section or without '=' is reported with its number")
    func malformedLine() {
        #expect(throws: SystemdUnitFile.Malformed.self) { try SystemdUnitFile(text: "Type=notify\n") }
        #expect(throws: SystemdUnitFile.Malformed.self) { try SystemdUnitFile(text: "[Service]\nType notify\n") }
        let parsed = try? SystemdUnitFile(text: "[Unit]\nAfter=a \\\n  b\nAfter=c\n")
        #expect(parsed?.words("Unit", "After") == ["a", "b", "c"])
    }
}
