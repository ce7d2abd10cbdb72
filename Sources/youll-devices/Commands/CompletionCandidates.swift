import ArgumentParser
import Foundation
import Gateway

/// What the shell completes for arguments that are not files (issue 14 item 20): paired
/// devices' friendly names, presets and a device's fields. Asked of the running daemon's
/// retained `bridge/devices` and of the configuration, each within a second; when neither
/// answers the shell offers nothing rather than file names.
enum CompletionCandidates {
    /// How long a completion may wait for the broker: a shell waits on it.
    static let limit = Duration.seconds(1)

    /// Friendly names of the paired devices.
    static let devices = CompletionKind.custom { words, _, prefix in
        offered(await pairedDevices(words).map(\.friendlyName), startingWith: prefix).sorted()
    }

    /// A comma-separated list of friendly names (`timer start --devices`): completes the last item.
    static let deviceList = CompletionKind.custom { words, _, prefix in
        let done = prefix.split(separator: ",", omittingEmptySubsequences: false).dropLast().joined(separator: ",")
        let last = prefix.split(separator: ",", omittingEmptySubsequences: false).last.map(String.init) ?? ""
        let head = done.isEmpty ? "" : done + ","
        return offered(await pairedDevices(words).map(\.friendlyName), startingWith: last).sorted().map { head + $0 }
    }

    /// The configured presets (`timer.presets`, built-ins included).
    static let presets = CompletionKind.custom { words, _, prefix in
        let configured = (try? configuration(words))?.timer.presets.map(\.name) ?? ["calm", "focus", "sleep"]
        return offered(configured, startingWith: prefix)
    }

    /// `field=` for the device named earlier on the line (`set lamp bri<TAB>`), from its capabilities.
    static let fields = CompletionKind.custom { words, index, prefix in
        guard !prefix.contains("=") else { return [] }
        let devices = await pairedDevices(words)
        let others = words.enumerated().filter { $0.offset != index }.map(\.element)
        let named = others.lazy.compactMap { word in devices.first { $0.friendlyName == word || $0.id == word } }.first
        let names = named?.capabilities ?? []
        return offered(names, startingWith: prefix).sorted().map { $0 + "=" }
    }

    /// The words of `words` that start with `prefix` and may be offered to the shell.
    static func offered(_ words: [String], startingWith prefix: String) -> [String] {
        words.filter { $0.hasPrefix(prefix) && isShellSafe($0) }
    }

    /// Whether a word may be offered to the shell. bash's `compgen -W`, which the generated
    /// script hands the candidates to, expands every word (`$(…)`, backquotes, `${…}`, `~`,
    /// braces) and so runs what it finds; and the names come from the retained
    /// `bridge/devices`, which anyone on the broker can publish. Only letters, digits and
    /// `_ - . : @ %` pass: a name with a space, a quote or a `$` is still usable when typed,
    /// only not offered.
    static func isShellSafe(_ word: String) -> Bool {
        !word.isEmpty
            && word.unicodeScalars.allSatisfy { scalar in
                scalar.properties.isAlphabetic || scalar.properties.numericType == .decimal
                    || "_-.:@%".unicodeScalars.contains(scalar)
            }
    }

    /// The configuration the command on the line would use: its `--config`, else the usual search.
    private static func configuration(_ words: [String]) throws -> GatewayConfiguration {
        let environment = ProcessInfo.processInfo.environment
        let explicit = words.firstIndex(of: "--config").flatMap { words.indices.contains($0 + 1) ? words[$0 + 1] : nil }
        return try ConfigurationLoader.load(
            path: explicit, environment: environment, isService: ConfigurationLoader.isService(environment: environment)
        )
    }

    /// The daemon's device list, or none when the broker or the list is not there within `limit`.
    static func pairedDevices(_ words: [String]) async -> [BridgeDevice] {
        guard let configuration = try? configuration(words),
            let client = try? BridgeClient(configuration: configuration, connectTimeout: limit)
        else { return [] }
        defer { Task { await client.close() } }
        guard (try? await client.connect(timeout: limit)) != nil else { return [] }
        return (try? await client.devices(timeout: limit)) ?? []
    }
}
