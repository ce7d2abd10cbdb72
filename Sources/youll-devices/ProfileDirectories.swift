import Foundation

/// Where device profiles are looked for, later folders overriding earlier ones: the
/// installed set, then the user's own (ARCHITECTURE.md: "profiles from the installed
/// devices/ plus a user folder").
enum ProfileDirectories {
    static func search(explicit: [String]) -> [URL] {
        if !explicit.isEmpty { return explicit.map { URL(fileURLWithPath: $0) } }
        var directories: [URL] = []
        if let override = ProcessInfo.processInfo.environment["YOULL_PROFILES"], !override.isEmpty {
            return override.split(separator: ":").map { URL(fileURLWithPath: String($0)) }
        }
        if let checkout = sourceCheckout() { directories.append(checkout) }
        directories.append(URL(fileURLWithPath: "/usr/share/youll-devices/devices"))
        let config =
            ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".config")
        directories.append(URL(fileURLWithPath: "/etc/youll-devices/devices"))
        directories.append(config.appendingPathComponent("youll-devices/devices"))
        return directories
    }

    /// The daemon's folders: the source checkout's `devices/` when the binary runs from one,
    /// then the configured installed and user folders (the user's override).
    /// (`profiles.installed` and `YOULL_PROFILES_DIR` set the installed folder.)
    static func daemon(installed: String, user: String) -> [URL] {
        let all = (sourceCheckout().map { [$0] } ?? []) + [URL(fileURLWithPath: installed), URL(fileURLWithPath: user)]
        // The same folder named twice (the checkout configured as the installed folder) is read once.
        var seen: Set<String> = []
        return all.filter { seen.insert($0.standardizedFileURL.resolvingSymlinksInPath().path).inserted }
    }

    /// `devices/` beside the package the binary was built in, when run from a checkout.
    private static func sourceCheckout() -> URL? {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        for _ in 0..<6 {
            let candidate = directory.appendingPathComponent("devices")
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("README.md").path) {
                return candidate
            }
            directory.deleteLastPathComponent()
        }
        return nil
    }
}
