import Dispatch
import Foundation
import Gateway
import Logging
import SessionEngine
import Storage
import TuyaController
import TuyaCore
import TuyaWire

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `timer start --foreground` (or with no daemon): the session runs in this process with
/// its own controller over the configured broker and the state directory's devices,
/// exactly as the daemon would run it (same parser, planner, runner and store). Holds the
/// state lock meanwhile, so it refuses while a daemon runs. Ctrl-C stops the session and
/// applies its end state.
struct TimerForeground {
    let options: BridgeOptions

    func run(payload: [String: JSONValue]) async throws {
        let request: SessionStartRequest
        do {
            guard
                case .session(.start(let parsed)) = try BridgeRequest.parse(
                    verb: "session/start", payload: CompactJSON.encode(.object(payload)))
            else { throw CLIError("session/start: not a start request") }
            request = parsed
        }
        let configuration = try options.loadConfiguration()
        let directory = URL(fileURLWithPath: configuration.stateDirectory)
        let lock: DaemonLock
        do {
            lock = try GatewayDatabase.acquireDaemonLock(in: directory)
        } catch {
            throw CLIError(
                "\(error); a daemon runs on this state directory: drop --foreground to run the session there")
        }
        defer { withExtendedLifetime(lock) {} }
        let database = try GatewayDatabase.open(directory: directory)
        defer { try? database.close() }
        let library = ProfileLibrary.load(
            directories: ProfileDirectories.daemon(
                installed: configuration.profiles.installed, user: configuration.profiles.user))
        var busConfiguration = configuration.mqttLinkConfiguration()
        busConfiguration.clientID = configuration.effectiveClientID + "-timer"
        var settings = TuyaController.Configuration()
        settings.confirmationTimeout = configuration.devices.confirmationTimeout
        let controller = TuyaController(
            bus: try MQTTDeviceBus(configuration: busConfiguration), library: library,
            store: SQLiteDeviceStore(database: database), configuration: settings)
        try await controller.start()
        await waitForDevices(controller, limit: try options.waitLimit(default: 5))

        var errorLog = Logger(label: "youll-devices") { StreamLogHandler.standardError(label: $0) }
        errorLog.logLevel = .error
        let logger = errorLog
        let (endings, ended) = AsyncStream.makeStream(of: Void.self)
        let live = TimerFollow.isLive && !options.json
        let json = options.json
        let service = SessionService(
            tuyaController: controller, store: SQLiteSessionStore(database: database),
            settings: SessionService.Settings(configuration.timer, library: library),
            announce: { announcement in
                if case .status(let status, let names) = announcement {
                    guard live, let status else { return }
                    print(
                        "\r\u{1B}[K" + TimerLine.render(SessionStatusPayload(status, names: names).json), terminator: ""
                    )
                    flushStandardOutput()
                    return
                }
                guard let (type, data) = SessionEventPayload.event(for: announcement) else { return }
                if json {
                    printJSONLine(.object(["type": .string(type), "data": .object(data)]))
                } else if type == "session_cue" {
                    print((live ? "\r\u{1B}[K" : "") + TimerLine.cue(data))
                } else if type == "session_ended" {
                    let elapsed = TimerLine.clock(TimerLine.seconds(data["elapsed_seconds"]) ?? 0)
                    print(
                        (live ? "\r\u{1B}[K" : "") + "session \(data["state"]?.stringValue ?? "ended") after \(elapsed)"
                    )
                }
                flushStandardOutput()
                if type == "session_ended" { ended.yield() }
            },
            log: { logger.log($0) })
        do {
            _ = try await service.start(request)
        } catch {
            await controller.stop()
            throw error
        }
        signal(SIGINT, SIG_IGN)
        let interrupt = DispatchSource.makeSignalSource(signal: SIGINT)
        interrupt.setEventHandler {
            Task { _ = try? await service.stop(immediately: true) }
        }
        interrupt.resume()
        defer {
            interrupt.cancel()
            signal(SIGINT, SIG_DFL)
        }
        for await _ in endings { break }
        // The end state's commands settle before the controller goes.
        try? await Task.sleep(for: .milliseconds(500))
        await controller.stop()
    }

    /// Gives paired devices a moment to connect, so the start scene reaches them at once
    /// (an offline device still catches up later).
    private func waitForDevices(_ controller: TuyaController, limit: Duration) async {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            var online = true
            for device in await controller.devices()
            where await controller.status(of: device.id)?.availability != .online {
                online = false
            }
            if online { return }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }
}
