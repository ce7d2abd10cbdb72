import Foundation
import LocalBroker
import MQTTLink

#if canImport(Glibc)
    import Glibc
#endif

/// The `serve` suite's own client on the broker: keeps every message on its filters with
/// the instant it came off the client's event stream, so a start is timed to the message,
/// not to when the waiting code looked.
actor TopicWatch {
    struct Message: Sendable {
        var topic: String
        var payload: [UInt8]
        var receivedAt: ContinuousClock.Instant
        var text: String { String(decoding: payload, as: UTF8.self) }
    }

    private let client: MQTTClient
    private var messages: [Message] = []
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private var pump: Task<Void, Never>?

    init(url: String, filters: [String]) async throws {
        var configuration = try MQTTConfiguration(url: url)
        configuration.clientID = "youll-bench-watch-\(UUID().uuidString.prefix(8))"
        client = try MQTTClient(configuration: configuration)
        let events = client.events
        pump = Task { [weak self] in
            for await event in events {
                guard case .message(let message) = event else { continue }
                let now = ContinuousClock.now
                await self?.record(Message(topic: message.topic, payload: message.payload, receivedAt: now))
            }
        }
        try await client.connect()
        for filter in filters { try await client.subscribe(filter) }
    }

    /// Index to pass as `after` to wait only for messages from now on.
    var mark: Int { messages.count }

    /// Every message from index `after` on, in arrival order.
    func received(after: Int) -> ArraySlice<Message> { messages[min(after, messages.count)...] }

    /// The first message on `topic` from index `after` on that satisfies `condition`.
    func wait(
        for topic: String, after: Int, timeout: Duration, where condition: @Sendable (Message) -> Bool = { _ in true }
    ) async throws -> Message {
        try await waitUntil(after: after, timeout: timeout, "a message on \(topic)") { messages in
            messages.first { $0.topic == topic && condition($0) }
        }
    }

    /// Waits until `found` returns a value for the messages from `after` on, re-checking
    /// after every message; throws at `timeout`, which only a misbehaving daemon reaches.
    func waitUntil<T: Sendable>(
        after: Int, timeout: Duration, _ what: String, _ found: @Sendable (ArraySlice<Message>) -> T?
    ) async throws -> T {
        let deadline = ContinuousClock.now + timeout
        let timer = Task { [weak self] in
            try? await Task.sleep(until: deadline)
            await self?.wakeAll()
        }
        defer { timer.cancel() }
        while true {
            if let value = found(received(after: after)) { return value }
            guard ContinuousClock.now < deadline else {
                throw ServeBenchmarks.Failure("no \(what) within \(timeout)")
            }
            await withCheckedContinuation { waiters.append($0) }
        }
    }

    /// A retained QoS-1 publish, returned once the broker has it (PUBACK).
    func publishRetained(_ topic: String, _ payload: [UInt8]) async throws {
        try await client.publish(topic: topic, payload: payload, qos: .atLeastOnce, retain: true)
    }

    func close() async {
        await client.close()
        pump?.cancel()
    }

    private func record(_ message: Message) {
        messages.append(message)
        wakeAll()
    }

    private func wakeAll() {
        let waiting = waiters
        waiters = []
        for waiter in waiting { waiter.resume() }
    }
}

/// `youll-devices serve` with one configuration file and state directory, started as a
/// child process (posix_spawn through `ChildProcess`) with its log in `logPath`.
struct DaemonUnderTest {
    let binary: String
    let configPath: String
    let logPath: String
    let environment: [String: String]

    /// Writes the configuration: the broker, the base topic, the state directory, the
    /// profiles of the package; everything else at its default (query interval 60 s).
    init(binary: String, work: URL, name: String, baseTopic: String, brokerURL: String, profiles: URL) throws {
        self.binary = binary
        let folder = work.appendingPathComponent(name)
        let userProfiles = folder.appendingPathComponent("user-profiles")
        try FileManager.default.createDirectory(at: userProfiles, withIntermediateDirectories: true)
        configPath = folder.appendingPathComponent("config.yaml").path
        logPath = folder.appendingPathComponent("serve.log").path
        let config = """
            base_topic: \(baseTopic)
            state_directory: \(Self.stateDirectory(work: work, name: name).path)
            mqtt:
              url: \(brokerURL)
            profiles:
              installed: \(profiles.path)
              user: \(userProfiles.path)
            metrics:
              listen: 127.0.0.1:\(try LocalBroker.freeLoopbackPort())
            """
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        for key in environment.keys where key.hasPrefix("YOULL_") || key == "NOTIFY_SOCKET" { environment[key] = nil }
        environment["XDG_CONFIG_HOME"] = folder.appendingPathComponent("xdg-config").path
        self.environment = environment
    }

    static func stateDirectory(work: URL, name: String) -> URL {
        work.appendingPathComponent(name).appendingPathComponent("state")
    }

    func spawn() throws -> ChildProcess {
        try ChildProcess.spawn(
            binary, ["serve", "--config", configPath], outputPath: logPath, environment: environment)
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
}

extension ChildProcess {
    /// SIGTERM, then SIGKILL when the process has not exited after `grace`; waits for it.
    /// Returns false when it had to be killed.
    @discardableResult
    func terminate(grace: Duration = .seconds(10)) -> Bool {
        signal(SIGTERM)
        let deadline = ContinuousClock.now + grace
        while ContinuousClock.now < deadline {
            if !isRunning { return true }
            usleep(10_000)
        }
        kill()
        return false
    }
}

/// What /proc says about a process.
enum ProcessStats {
    /// Clock ticks per second, the unit of /proc/<pid>/stat's CPU times.
    static let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

    /// utime + stime of `pid` in clock ticks (fields 14 and 15 of /proc/<pid>/stat, counted
    /// after the parenthesised command name, which may hold spaces).
    static func cpuTicks(_ pid: pid_t) -> Int? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        // After ")": field 3 (state) is index 0, so utime (14) is index 11 and stime (15) 12.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
        return user + system
    }

    /// The process's CPU time in nanoseconds, every thread included (also those that
    /// exited), from its CPU-time clock (`clock_getcpuclockid`): far finer than clock ticks,
    /// for a process that uses a handful of ticks a minute. Nil when the kernel refuses.
    static func cpuNanoseconds(_ pid: pid_t) -> UInt64? {
        var clock = clockid_t()
        var time = timespec()
        guard clock_getcpuclockid(pid, &clock) == 0, clock_gettime(clock, &time) == 0 else { return nil }
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// Resident MB per mapped file (from /proc/<pid>/smaps), largest first: which libraries
    /// the file-backed part of the RSS is made of.
    static func residentFiles(_ pid: pid_t) -> [(file: String, megabytes: Double)] {
        // Read to the end by hand: /proc files report size 0, and a whole-file read stops short.
        guard let handle = FileHandle(forReadingAtPath: "/proc/\(pid)/smaps"),
            let data = try? handle.readToEnd()
        else { return [] }
        try? handle.close()
        let smaps = String(decoding: data, as: UTF8.self)
        var kilobytes: [String: Int] = [:]
        var file: String?
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let first = fields.first, first.contains("-"), fields.count >= 5 {
                file = fields.count >= 6 && fields[5].hasPrefix("/") ? String(fields[5]) : nil
            } else if let file, fields.first == "Rss:", fields.count >= 2, let value = Int(fields[1]) {
                kilobytes[file, default: 0] += value
            }
        }
        return kilobytes.map { (file: $0.key, megabytes: Double($0.value) / 1024) }.sorted {
            $0.megabytes > $1.megabytes
        }
    }

    /// A kB field of /proc/<pid>/status (`VmRSS:`, `VmHWM:`) in MB.
    static func statusMegabytes(_ pid: pid_t, _ field: String) -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(field) {
            return line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.flatMap { Double($0) }.map
            { $0 / 1024 }
        }
        return nil
    }
}
