import Dispatch
import Foundation
import Gateway
import Logging
import SessionEngine
import Storage
import Synchronization
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
        let request = try Self.startRequest(payload)
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
                installed: configuration.profiles.installed, user: configuration.profiles.user),
            defaultFrameGap: configuration.devices.frameGapMilliseconds)
        let controller = try Self.controller(configuration, database: database, library: library)
        try await controller.start()
        if await controller.devices().isEmpty { printNote(TimerStartCommand.noDevicesWarning) }
        await waitForDevices(controller, limit: try options.waitLimit(default: 5))

        var errorLog = Logger(label: "youll-devices") { StreamLogHandler.standardError(label: $0) }
        errorLog.logLevel = .error
        let logger = errorLog
        let (endings, ended) = AsyncStream.makeStream(of: Void.self)
        let service = SessionService(
            tuyaController: controller, store: SQLiteSessionStore(database: database),
            settings: SessionService.Settings(configuration.timer, library: library),
            announce: Self.printer(live: TimerFollow.isLive && !options.json, json: options.json, ended: ended),
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

    /// `payload` read as the bridge's `session/start` would read it.
    static func startRequest(_ payload: [String: JSONValue]) throws -> SessionStartRequest {
        guard
            case .session(.start(let request)) = try BridgeRequest.parse(
                verb: "session/start", payload: CompactJSON.encode(.object(payload)))
        else { throw CLIError("session/start: not a start request") }
        return request
    }

    /// A controller of its own over the configured broker (a client ID apart from the
    /// daemon's) and the state directory's devices.
    private static func controller(
        _ configuration: GatewayConfiguration, database: GatewayDatabase, library: ProfileLibrary
    ) throws -> TuyaController {
        var busConfiguration = configuration.mqttLinkConfiguration()
        busConfiguration.clientID = configuration.effectiveClientID + "-timer"
        var settings = TuyaController.Configuration()
        settings.confirmationTimeout = configuration.devices.confirmationTimeout
        return TuyaController(
            bus: try MQTTDeviceBus(configuration: busConfiguration), library: library,
            store: SQLiteDeviceStore(database: database), configuration: settings)
    }

    /// Prints what the session announces: the redrawn status line on a terminal (`live`),
    /// each event as a JSON line (`json`) or its cues and end as text; `ended` hears the end.
    private static func printer(live: Bool, json: Bool, ended: AsyncStream<Void>.Continuation)
        -> @Sendable (SessionAnnouncement) async -> Void
    {
        let throttle = SharedThrottle()
        let started = ContinuousClock.now
        return { announcement in
            let now = (ContinuousClock.now - started).sessionSecondsValue
            let prefix = live ? "\r\u{1B}[K" : ""
            for line in throttle.lines.withLock({ $0.tick(at: now) }) { print(prefix + line) }
            if case .status(let status, let names) = announcement {
                guard live, let status else { return }
                print(prefix + TimerLine.render(SessionStatusPayload(status, names: names).json), terminator: "")
                flushStandardOutput()
                return
            }
            guard let (type, data) = SessionEventPayload.event(for: announcement) else { return }
            let event = JSONValue.object(["type": .string(type), "data": .object(data)])
            if json {
                printJSONLine(event)
            } else {
                let lines: [String] =
                    switch TimerFollow.event(event, of: nil) {
                    case .cue(let line): throttle.lines.withLock { $0.offer(line, at: now) }
                    case .badge(let line), .ended(let line): throttle.lines.withLock { $0.flush() } + [line]
                    case nil: []
                    }
                for line in lines { print(prefix + line) }
            }
            flushStandardOutput()
            if type == "session_ended" { ended.yield() }
        }
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

/// The foreground printer's `CueThrottle`, shared by its calls (which may come from any task).
private final class SharedThrottle: Sendable {
    let lines = Mutex(CueThrottle())
}
