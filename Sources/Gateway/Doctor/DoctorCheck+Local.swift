import BLELink
import Foundation
import TuyaCore

/// The verdicts that need no network: configuration, BLE, profiles, clock. Each takes what was
/// observed and returns the line(s) to print, so tests can give any input without the machine.
extension DoctorCheck {
    /// `file` is the configuration file that was read, nil when none exists and defaults apply.
    public static func configuration(
        _ result: Result<GatewayConfiguration, ConfigurationError>, file: String?, searched: [String]
    ) -> DoctorCheck {
        switch result {
        case .success:
            if let file { return .ok("config", "\(file) loads") }
            return .ok(
                "config", "no configuration file (looked for \(searched.joined(separator: ", "))); defaults apply")
        case .failure(let error):
            let fix =
                error.variable.map { "correct or unset the environment variable \($0)" }
                ?? "correct \(error.keyPath.isEmpty ? "the file" : error.keyPath) in \(error.source)"
            return .fail("config", error.description, fix: fix + "; the other checks need a configuration that loads")
        }
    }

    /// `probe` is only called when BLE is not switched off.
    public static func bluetooth(
        _ ble: GatewayConfiguration.BLE, probe: (String) throws(BLEUnavailable) -> BluetoothAdapter
    ) -> DoctorCheck {
        guard ble.mode != .off else { return .ok("ble", "disabled in config (ble.enabled: off)") }
        do {
            let adapter = try probe(ble.adapter)
            return .ok("ble", "\(adapter.name) (\(adapter.address)) is up and usable")
        } catch {
            switch ble.mode {
            case .on:
                return .fail(
                    "ble", "\(error.cause); the daemon will not start (ble.enabled: on)", fix: error.fix)
            case .auto, .off:
                return .warn(
                    "ble", "\(error.cause); the daemon runs without BLE (ble.enabled: auto)",
                    fix: error.fix + "; or set ble.enabled: off")
            }
        }
    }

    /// What the running daemon does with its adapter, from its `health_check` answer:
    /// connections in use against the limit, and who waits. nil when the daemon did not
    /// answer or has no adapter (the `ble` check already says why).
    public static func bleLinks(health: JSONValue?) -> DoctorCheck? {
        guard let ble = health?.objectValue?["ble"]?.objectValue,
            let adapter = ble["adapter"]?.stringValue.map({ BridgeText.printable($0, maximumLength: 64) }),
            let limit = ble["limit"]?.int64Value
        else { return nil }
        // The answer comes over the broker: names are shown with any control character as text.
        func names(_ key: String) -> [String] {
            guard case .array(let items)? = ble[key] else { return [] }
            return items.prefix(16).compactMap { $0.stringValue.map { BridgeText.printable($0, maximumLength: 64) } }
        }
        let connected = names("connected")
        let waiting = names("waiting")
        let held = connected.isEmpty ? "" : " (\(connected.joined(separator: ", ")))"
        let queue = waiting.isEmpty ? "none waiting" : "waiting: \(waiting.joined(separator: ", "))"
        let text = "the daemon holds \(connected.count) of \(limit) connections on \(adapter)\(held); \(queue)"
        guard waiting.isEmpty else {
            return .warn(
                "ble-links", text,
                fix: "raise ble.max_connections, or give devices that need not stay connected "
                    + "`ble: {connection: on_demand}` in their profile")
        }
        return .ok("ble-links", text)
    }

    /// One ok or fail line for the library as a whole, then a warn per file that did not load.
    public static func profiles(
        _ library: ProfileLibrary, folders: GatewayConfiguration.ProfileFolders, searched: [URL]? = nil
    ) -> [DoctorCheck] {
        let count = library.all.count
        let paths = searched.map { $0.map(\.path) } ?? [folders.installed, folders.user]
        let places = paths.dropLast().joined(separator: ", ") + (paths.count > 1 ? " and " : "") + (paths.last ?? "")
        var checks: [DoctorCheck] = [
            count == 0
                ? .fail(
                    "profiles", "no device profiles in \(places)",
                    fix: "install the profiles (the devices/ folder of the package) to \(folders.installed), "
                        + "or point profiles.installed at them")
                : .ok("profiles", "\(count) profile\(count == 1 ? "" : "s") from \(places)")
        ]
        checks += library.errors.map {
            .warn("profiles", $0.description, fix: "correct or remove this file; the other profiles still load")
        }
        return checks
    }

    /// The running daemon's database, from its `health_check` answer: a line only when it
    /// answered, a warning while writes fail (a full or failing disk), with the reason.
    public static func database(health: JSONValue?) -> DoctorCheck? {
        guard let state = health?.objectValue?["database"]?.stringValue else { return nil }
        if state == "ok" { return .ok("database", "the daemon's database takes writes") }
        let shown = BridgeText.printable(String(state.prefix(300)))
        return .warn(
            "database", "the daemon's database is \(shown)",
            fix: "free space on the state directory's disk or fix its permissions; writes resume by themselves")
    }

    /// The clock must be roughly right: TLS certificates, device timestamps and reminders depend on it.
    public static func clock(now: Date) -> DoctorCheck {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let year = calendar.component(.year, from: now)
        let text = now.formatted(.iso8601)
        guard (2025..<2100).contains(year) else {
            return .fail(
                "clock", "the system clock says \(text), which cannot be right",
                fix: "set the clock, or enable NTP (timedatectl set-ntp true)")
        }
        return .ok("clock", text)
    }
}
