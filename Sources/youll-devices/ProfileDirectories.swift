import Foundation
import TuyaCore

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

    /// `devices/` of the source checkout the binary was built in: the nearest folder above the
    /// executable holding both `Package.swift` and `devices/`. The executable is found through
    /// `/proc/self/exe`, so running it through a symlink or from `$PATH` finds the checkout too.
    static func sourceCheckout() -> URL? {
        for executable in executablePaths() {
            var directory = executable.deletingLastPathComponent()
            for _ in 0..<8 {
                let devices = directory.appendingPathComponent("devices")
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path),
                    FileManager.default.fileExists(atPath: devices.path, isDirectory: &isDirectory),
                    isDirectory.boolValue
                {
                    return devices
                }
                guard directory.path != "/" else { break }
                directory.deleteLastPathComponent()
            }
        }
        return nil
    }

    /// The running binary: the kernel's answer first, then `argv[0]` when it holds a path.
    private static func executablePaths() -> [URL] {
        var paths: [URL] = []
        if let resolved = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            paths.append(URL(fileURLWithPath: resolved))
        }
        if let argument = CommandLine.arguments.first, argument.contains("/") {
            paths.append(URL(fileURLWithPath: argument).resolvingSymlinksInPath())
        }
        return paths
    }

    /// Loads the profiles of `directories`; none at all is an error that says where it looked
    /// and how to name the right folder (the usual cause: a binary run away from its profiles).
    static func requireProfiles(in directories: [URL]) throws -> ProfileLibrary {
        let library = ProfileLibrary.load(directories: directories)
        guard library.all.isEmpty else { return library }
        throw CLIError(noProfilesMessage(searched: directories, errors: library.errors.map(\.description)))
    }

    static func noProfilesMessage(searched: [URL], errors: [String] = []) -> String {
        let places = searched.map(\.path).joined(separator: ", ")
        let skipped =
            errors.isEmpty ? "" : " (\(errors.count) file\(errors.count == 1 ? "" : "s") skipped: \(errors[0]))"
        return "no device profiles found; looked in \(places.isEmpty ? "no folder" : places)\(skipped). "
            + "Name the folder holding them with --profiles DIR, YOULL_PROFILES=DIR[:DIR…] or profiles.installed "
            + "in the configuration file (in a source checkout it is devices/)"
    }
}
