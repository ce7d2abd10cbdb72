import Foundation
import LocalBroker
import SessionEngine
import Testing
import TuyaCore
import YoullTestSupport

/// One preset list for every door: a real mosquitto on a free port, the daemon in this
/// process with a real SQLite state directory and a preset added as the config file's
/// `timer.presets` adds it, and `deeplink/resolve` through the real `BridgeClient`.
@Suite("timer presets in deep links", .serialized, .timeLimit(.minutes(2)))
struct DeepLinkPresetTests {
    static let evening = SessionPreset(name: "evening", light: nil, diffuser: nil)

    @Test(
        "a preset from timer.presets resolves in youll://timer links, with maintenance on or off",
        arguments: [true, false])
    func configuredPresetResolves(maintenance: Bool) async throws {
        let broker = try await LocalBroker.started()
        defer { broker.stop() }
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("youll-presets-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        try await withRunningDaemon(
            broker: broker, state: state,
            configure: { configuration in
                configuration.timer.presets.append(Self.evening)
                configuration.maintenance.enabled = maintenance
            }
        ) { daemon in
            let resolved = try await daemon.client.request(
                "deeplink/resolve", ["url": .string("youll://timer?preset=evening&minutes=10")],
                timeout: daemon.timeout)
            #expect(resolved.objectValue?["resolution"]?.stringValue == "proceed")
            #expect(resolved.objectValue?["destination"]?.objectValue?["preset"]?.stringValue == "evening")
            await #expect(throws: (any Error).self) {
                _ = try await daemon.client.request(
                    "deeplink/resolve", ["url": .string("youll://timer?preset=zen&minutes=10")],
                    timeout: daemon.timeout)
            }
        }
    }
}
