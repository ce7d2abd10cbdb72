import Foundation
import Testing
import YoullTestSupport

@testable import Gateway

#if canImport(Glibc)
    import Glibc
#endif

/// Integration: real Unix datagram sockets (a bound path and an abstract name) play systemd.
@Suite("systemd notifications over NOTIFY_SOCKET")
struct SystemdNotifierTests {
    @Test("READY, STATUS, WATCHDOG and STOPPING arrive on a path socket exactly as systemd reads them")
    func pathSocket() throws {
        let systemd = try NotifySocketListener()
        let notifier = try SystemdNotifier(environment: ["NOTIFY_SOCKET": systemd.environmentValue])
        #expect(notifier.socket == NotifySocketAddress.path(systemd.environmentValue))

        try notifier.ready(status: "3 devices online")
        #expect(systemd.receive() == "READY=1\nSTATUS=3 devices online")
        try notifier.ready()
        #expect(systemd.receive() == "READY=1")
        try notifier.status("reconnecting to the broker")
        #expect(systemd.receive() == "STATUS=reconnecting to the broker")
        try notifier.watchdog()
        #expect(systemd.receive() == "WATCHDOG=1")
        try notifier.stopping()
        #expect(systemd.receive() == "STOPPING=1")
        #expect(systemd.receive() == nil)
    }

    @Test("an @name NOTIFY_SOCKET reaches the abstract-namespace socket of that name")
    func abstractSocket() throws {
        let systemd = try NotifySocketListener(abstractName: "youll-test-\(UUID().uuidString)")
        let notifier = try SystemdNotifier(environment: ["NOTIFY_SOCKET": systemd.environmentValue])
        guard case .abstract(let name) = notifier.socket else {
            Issue.record("expected an abstract address, got \(String(describing: notifier.socket))")
            return
        }
        #expect("@" + name == systemd.environmentValue)

        try notifier.ready(status: "up")
        try notifier.watchdog()
        try notifier.stopping()
        #expect(systemd.receive() == "READY=1\nSTATUS=up")
        #expect(systemd.receive() == "WATCHDOG=1")
        #expect(systemd.receive() == "STOPPING=1")
    }

    @Test("a newline in a status cannot add a second assignment, and an overlong status is cut")
    func hostileStatus() throws {
        let systemd = try NotifySocketListener()
        let notifier = try SystemdNotifier(environment: ["NOTIFY_SOCKET": systemd.environmentValue])

        try notifier.status("kitchen\nSTOPPING=1\r\u{0}")
        #expect(systemd.receive() == "STATUS=kitchen STOPPING=1  ")

        try notifier.ready(status: String(repeating: "é", count: 10_000))
        let message = try #require(systemd.receive())
        #expect(message.hasPrefix("READY=1\nSTATUS=éé"))
        #expect(message.utf8.count <= "READY=1\nSTATUS=".utf8.count + SystemdNotifier.maximumStatusBytes)
    }

    @Test("without NOTIFY_SOCKET (unset or empty) nothing is sent and nothing fails")
    func noSocket() throws {
        for environment in [[:], ["NOTIFY_SOCKET": ""], ["NOTIFY_SOCKET": "", "WATCHDOG_USEC": "30000000"]] {
            let notifier = try SystemdNotifier(environment: environment)
            #expect(notifier == .disabled)
            #expect(notifier.watchdogInterval == nil)
            try notifier.ready(status: "up")
            try notifier.watchdog()
            try notifier.stopping()
        }
    }

    @Test("the watchdog interval is half of WATCHDOG_USEC, and only for the process WATCHDOG_PID names")
    func watchdogInterval() throws {
        func interval(_ variables: [String: String]) throws -> Duration? {
            try SystemdNotifier(
                environment: ["NOTIFY_SOCKET": "/run/systemd/notify"].merging(variables) { $1 },
                processID: 4242
            ).watchdogInterval
        }
        #expect(try interval(["WATCHDOG_USEC": "30000000"]) == .seconds(15))
        #expect(try interval(["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "4242"]) == .seconds(15))
        #expect(try interval(["WATCHDOG_USEC": "1"]) == .nanoseconds(500))
        #expect(try interval(["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "4243"]) == nil)
        #expect(try interval(["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": ""]) == .seconds(15))
        #expect(try interval(["WATCHDOG_USEC": ""]) == nil)
        #expect(try interval([:]) == nil)
        // The real process ID is the default.
        let environment = ["NOTIFY_SOCKET": "/run/n", "WATCHDOG_USEC": "20000000", "WATCHDOG_PID": "\(getpid())"]
        #expect(try SystemdNotifier(environment: environment).watchdogInterval == .seconds(10))
    }

    @Test("a garbage WATCHDOG_USEC or WATCHDOG_PID is refused with an error naming the variable")
    func garbageWatchdog() {
        let garbage = [
            "abc", "-5", "0", " 30000000", "+30000000", "3e7", "30s", "0x1c9c380", "99999999999999999999999",
        ]
        for value in garbage {
            let error = environmentError(["NOTIFY_SOCKET": "/run/n", "WATCHDOG_USEC": value])
            #expect(
                error?.description.hasPrefix(
                    "environment WATCHDOG_USEC='\(value)': expected a positive whole number of microseconds") == true,
                "\(value)")
        }
        for value in ["me", "-1", "0", "4294967297"] {
            let error = environmentError([
                "NOTIFY_SOCKET": "/run/n", "WATCHDOG_USEC": "30000000", "WATCHDOG_PID": value,
            ])
            #expect(error == .invalidVariable(name: "WATCHDOG_PID", value: value, reason: "expected a process ID"))
        }
    }

    @Test("an overlong or malformed NOTIFY_SOCKET is a clear error, not a crash")
    func malformedSocket() throws {
        let longest = "/" + String(repeating: "a", count: 106)
        #expect(try SystemdNotifier(environment: ["NOTIFY_SOCKET": longest]).socket == .path(longest))
        let error = environmentError(["NOTIFY_SOCKET": longest + "a"])
        #expect(error?.description.hasSuffix("the path is 108 bytes; a Unix socket path holds at most 107") == true)

        let longestName = String(repeating: "n", count: 107)
        #expect(try SystemdNotifier(environment: ["NOTIFY_SOCKET": "@" + longestName]).socket == .abstract(longestName))
        #expect(
            environmentError(["NOTIFY_SOCKET": "@" + longestName + "n"])?.description.contains("holds at most 107")
                == true)

        let hostile = environmentError(["NOTIFY_SOCKET": "/" + String(repeating: "x", count: 100_000)])
        #expect(hostile?.description.contains("… (100001 bytes)") == true)
        #expect((hostile?.description.count ?? .max) < 250)

        let reasons = [
            "run/systemd/notify": "expected an absolute socket path or an @abstract name",
            "@": "an abstract socket needs a name after '@'",
            "vsock:2:1234": "vsock addresses are not supported",
            "/run/a\u{0}b": "contains a NUL byte",
        ]
        for (value, reason) in reasons {
            let error = environmentError(["NOTIFY_SOCKET": value])
            #expect(error?.description.contains(reason) == true, "\(value): \(String(describing: error))")
        }
    }

    @Test("a message to a socket nobody listens on fails with the socket and the cause")
    func nobodyListening() {
        let path = NotifySocketListener.freshPath()
        let notifier = SystemdNotifier(socket: .path(path), watchdogInterval: nil)
        #expect(throws: SystemdError.sendFailed(socket: .path(path), errno: ENOENT)) { try notifier.ready() }
        let description = SystemdError.sendFailed(socket: .path(path), errno: ENOENT).description
        #expect(description.hasPrefix("cannot notify systemd on \(path): No such file or directory (errno 2)"))
        #expect(description.contains("nobody listens there"))
    }

    private func environmentError(_ environment: [String: String]) -> SystemdError? {
        do throws(SystemdError) {
            _ = try SystemdNotifier(environment: environment, processID: 4242)
            return nil
        } catch {
            return error
        }
    }
}

/// Integration: a real Unix datagram socket receives the pings; time is a `ManualClock`.
@Suite("systemd watchdog loop")
struct SystemdWatchdogTests {
    @Test("the watchdog pings once per interval on the injected clock and stops when cancelled")
    func pingsEachInterval() async throws {
        let systemd = try NotifySocketListener()
        let notifier = try SystemdNotifier(
            environment: ["NOTIFY_SOCKET": systemd.environmentValue, "WATCHDOG_USEC": "30000000"])
        let clock = ManualClock()
        let loop = Task { await runWatchdog(notifier: notifier, clock: clock) }

        for _ in 0..<3 {
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(14))
            #expect(systemd.receive() == nil)
            clock.advance(by: .seconds(1))
            await clock.waitForSleepers(1)
            #expect(systemd.receive() == "WATCHDOG=1")
            #expect(systemd.receive() == nil)
        }

        loop.cancel()
        await loop.value
        clock.advance(by: .seconds(60))
        #expect(systemd.receive() == nil)
    }

    @Test("after a long suspension the watchdog pings once, then one interval later, not in a burst")
    func noBurstAfterSuspension() async throws {
        let systemd = try NotifySocketListener()
        let notifier = SystemdNotifier(socket: .path(systemd.environmentValue), watchdogInterval: .seconds(15))
        let clock = ManualClock()
        let loop = Task { await runWatchdog(notifier: notifier, clock: clock) }

        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(100))
        await clock.waitForSleepers(1)
        #expect(systemd.receive() == "WATCHDOG=1")
        #expect(systemd.receive() == nil)
        clock.advance(by: .seconds(14))
        #expect(systemd.receive() == nil)
        clock.advance(by: .seconds(1))
        await clock.waitForSleepers(1)
        #expect(systemd.receive() == "WATCHDOG=1")

        loop.cancel()
        await loop.value
    }

    @Test("a failed ping is reported and the loop keeps pinging until systemd listens")
    func failureIsReported() async throws {
        let path = NotifySocketListener.freshPath()
        let notifier = SystemdNotifier(socket: .path(path), watchdogInterval: .seconds(15))
        let clock = ManualClock()
        let (failures, reportFailure) = AsyncStream.makeStream(of: SystemdError.self)
        let loop = Task { await runWatchdog(notifier: notifier, clock: clock) { reportFailure.yield($0) } }
        var failure = failures.makeAsyncIterator()

        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(15))
        #expect(await failure.next() == .sendFailed(socket: .path(path), errno: ENOENT))

        let systemd = try NotifySocketListener(path: path)
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(15))
        await clock.waitForSleepers(1)
        #expect(systemd.receive() == "WATCHDOG=1")

        loop.cancel()
        await loop.value
    }

    @Test("without a watchdog interval the loop returns at once and sends nothing")
    func noWatchdog() async throws {
        let systemd = try NotifySocketListener()
        let notifier = try SystemdNotifier(environment: ["NOTIFY_SOCKET": systemd.environmentValue])
        #expect(notifier.watchdogInterval == nil)
        await runWatchdog(notifier: notifier, clock: ManualClock())
        #expect(systemd.receive() == nil)
    }
}
