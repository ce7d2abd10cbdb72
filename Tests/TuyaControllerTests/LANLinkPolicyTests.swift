import Testing
import TuyaCore

@testable import TuyaController

/// The LAN link's connection and availability rules on a hand-driven clock.
@Suite("LANLinkPolicy")
struct LANLinkPolicyTests {
    typealias Action = LANLinkPolicy.Action

    static func availabilities(_ actions: [Action]) -> [Availability] {
        actions.compactMap { if case .availability(let availability, _) = $0 { availability } else { nil } }
    }

    /// A policy connected and answered at time zero.
    static func online() -> LANLinkPolicy {
        var policy = LANLinkPolicy()
        _ = policy.start(now: .zero)
        _ = policy.connected(now: .zero)
        _ = policy.established(now: .zero)
        _ = policy.received(now: .zero)
        return policy
    }

    @Test("it connects, starts the session, reads the status once established, and is online at the first answer")
    func connectsAndReadsStatus() {
        var policy = LANLinkPolicy()
        #expect(policy.start(now: .zero) == [.connect])
        #expect(policy.connected(now: .seconds(1)) == [.startSession])
        #expect(policy.established(now: .seconds(1)) == [.sendStatusQuery])
        #expect(Self.availabilities(policy.received(now: .seconds(1))) == [.online])
        #expect(policy.received(now: .seconds(2)).isEmpty)
    }

    @Test("an idle connection gets a heartbeat every 10 s and a full status read every 60 s")
    func heartbeatAndStatus() {
        var policy = Self.online()
        // The status query at 0 was answered at 0; nothing is due before the heartbeat.
        #expect(policy.nextWake == .seconds(10))
        #expect(policy.tick(now: .seconds(10)) == [.sendHeartbeat])
        _ = policy.received(now: .seconds(10))
        var statusReads = 0
        for second in stride(from: 20, through: 60, by: 10) {
            let actions = policy.tick(now: .seconds(Int64(second)))
            statusReads += actions.filter { $0 == .sendStatusQuery }.count
            _ = policy.received(now: .seconds(Int64(second)))
        }
        #expect(statusReads == 1)
    }

    @Test("a request unanswered for 5 s closes the connection, and the reconnect goes at once")
    func silentConnectionIsClosed() {
        var policy = Self.online()
        _ = policy.sent(now: .seconds(1))
        let actions = policy.tick(now: .seconds(6))
        #expect(actions.first == .close)
        #expect(Self.availabilities(actions) == [.offline])
        #expect(policy.tick(now: .seconds(6)) == [.connect])
    }

    @Test("a device that closes a working connection stays online while the reconnect succeeds")
    func dropIsNotNews() {
        var policy = Self.online()
        let actions = policy.failed(.closedByDevice, now: .seconds(30))
        #expect(Self.availabilities(actions).isEmpty)
        #expect(policy.tick(now: .seconds(30)) == [.connect])
        _ = policy.connected(now: .seconds(30))
        _ = policy.established(now: .seconds(30))
        #expect(Self.availabilities(policy.received(now: .seconds(30))).isEmpty)
    }

    @Test("a refused connection is busy, with the hint to close the other app")
    func refusedIsBusy() {
        var policy = LANLinkPolicy()
        _ = policy.start(now: .zero)
        let actions = policy.failed(.refused, now: .zero)
        #expect(actions == [.availability(.busy, hint: LANLinkPolicy.busyHint)])
        #expect(LANLinkPolicy.busyHint.contains("Tuya/Smart Life app"))
    }

    @Test("a connection accepted and closed before any answer is busy too")
    func acceptedThenClosedIsBusy() {
        var policy = LANLinkPolicy()
        _ = policy.start(now: .zero)
        _ = policy.connected(now: .zero)
        #expect(Self.availabilities(policy.failed(.closedByDevice, now: .zero)) == [.busy])
    }

    @Test("a connection the device closed mid-frame is offline with how far the frame got, not busy")
    func closedMidFrameIsNotBusy() {
        var policy = LANLinkPolicy()
        _ = policy.start(now: .zero)
        _ = policy.connected(now: .zero)
        let actions = policy.failed(.closedMidFrame(received: 20, expected: 79), now: .zero)
        #expect(
            actions.contains(
                .availability(.offline, hint: "the device closed the connection mid-frame (20 of 79 bytes)")))
        #expect(policy.tick(now: .zero).isEmpty, "the backoff is kept")
    }

    @Test(
        "a 3.4/3.5 device that closes the connection right after a verified session-key handshake is offline with that hint, not busy, and the backoff is kept"
    )
    func closedAfterHandshakeIsNotBusy() throws {
        var policy = LANLinkPolicy()
        _ = policy.start(now: .zero)
        var now = Duration.zero
        var delays: [Duration] = []
        for attempt in 1...3 {
            _ = policy.connected(now: now)
            // The device's answer verified under the local key: the session is ours.
            #expect(policy.established(now: now) == [.sendStatusQuery])
            let actions = policy.failed(.closedAfterHandshake, now: now)
            #expect(actions.first == .close)
            if attempt == 1 {
                #expect(actions.contains(.availability(.offline, hint: LANLinkPolicy.closedAfterHandshakeHint)))
            }
            #expect(!Self.availabilities(actions).contains(.busy), "attempt \(attempt)")
            #expect(policy.tick(now: now).isEmpty, "attempt \(attempt): no reconnect before the backoff")
            let wake = try #require(policy.nextWake)
            delays.append(wake - now)
            now = wake
            #expect(policy.tick(now: now) == [.connect])
        }
        #expect(delays == [1, 2, 4].map { Duration.seconds($0) })
        #expect(
            LANLinkPolicy.closedAfterHandshakeHint
                == "the device closed the connection right after the session-key handshake")
        #expect(policy.availability == .offline)
    }

    @Test("a 3.3 connection (no handshake) the device closes before answering is still busy")
    func closedBeforeAnsweringWithoutHandshakeIsBusy() {
        var policy = LANLinkPolicy()
        _ = policy.start(now: .zero)
        _ = policy.connected(now: .zero)
        _ = policy.established(now: .zero)
        #expect(Self.availabilities(policy.failed(.closedByDevice, now: .zero)) == [.busy])
    }

    @Test("a device that answered after the handshake and then closes stays online while the reconnect succeeds")
    func closedAfterHandshakeOnAWorkingConnectionIsNotNews() {
        var policy = Self.online()
        #expect(Self.availabilities(policy.failed(.closedAfterHandshake, now: .seconds(30))).isEmpty)
        #expect(policy.tick(now: .seconds(30)) == [.connect])
    }

    @Test("one key mismatch is counted, not believed; three in a row with nothing good between are auth_failed")
    func keyMismatchNeedsRepetition() {
        var policy = LANLinkPolicy()
        _ = policy.start(now: .zero)
        var seen: [Availability] = []
        var now = Duration.zero
        for _ in 0..<2 {
            _ = policy.connected(now: now)
            seen += Self.availabilities(policy.failed(.keyMismatch("handshake"), now: now))
            now = policy.nextWake ?? now
            _ = policy.tick(now: now)
        }
        #expect(seen.isEmpty)
        // A good answer in between starts the count again.
        _ = policy.connected(now: now)
        _ = policy.established(now: now)
        _ = policy.received(now: now)
        for _ in 0..<2 {
            seen += Self.availabilities(policy.failed(.keyMismatch("handshake"), now: now))
            now = policy.nextWake ?? now
            _ = policy.tick(now: now)
            _ = policy.connected(now: now)
        }
        #expect(seen.isEmpty)
        seen += Self.availabilities(policy.failed(.keyMismatch("handshake"), now: now))
        #expect(seen == [.authFailed])
    }

    @Test(
        "reconnects back off from 1 s up to 60 s and ask for a re-probe from the fifth failure on, so a version broadcast later is still taken"
    )
    func backoffAndReprobe() {
        var policy = LANLinkPolicy()
        _ = policy.start(now: .zero)
        var now = Duration.zero
        var delays: [Duration] = []
        var reprobes = 0
        for _ in 0..<8 {
            let actions = policy.failed(.unreachable("no route"), now: now)
            reprobes += actions.filter { $0 == .reprobeVersion }.count
            guard let wake = policy.nextWake else { break }
            delays.append(wake - now)
            now = wake
            #expect(policy.tick(now: now) == [.connect])
        }
        #expect(delays == [1, 2, 4, 8, 16, 32, 60, 60].map { Duration.seconds($0) })
        #expect(reprobes == 4, "the 5th to the 8th failure")
    }

    @Test("a handshake that never completes is given up after the answer timeout")
    func stuckHandshake() {
        var policy = LANLinkPolicy()
        _ = policy.start(now: .zero)
        _ = policy.connected(now: .zero)
        #expect(policy.tick(now: .seconds(4)).isEmpty)
        let actions = policy.tick(now: .seconds(5))
        #expect(actions.first == .close)
    }

    @Test("a device heard at a new address is connected to at once instead of after the backoff")
    func retryNowSkipsTheWait() {
        var policy = LANLinkPolicy()
        _ = policy.start(now: .zero)
        _ = policy.failed(.unreachable("no route"), now: .zero)
        _ = policy.tick(now: .seconds(1))
        _ = policy.failed(.unreachable("no route"), now: .seconds(1))
        #expect(policy.nextWake == .seconds(3))
        #expect(policy.retryNow(now: .seconds(2)) == [.connect])
        var connected = Self.online()
        #expect(connected.retryNow(now: .zero).isEmpty)
    }

    @Test(
        "after the gateway drops a connection itself, a refused reconnect is the device still holding it, not another client, for a minute"
    )
    func refusalAfterOwnDropIsNotBusy() {
        var policy = Self.online()
        _ = policy.sent(now: .seconds(1))
        // No answer for 5 s: the gateway closes the connection (the path to the device broke).
        #expect(policy.tick(now: .seconds(6)).first == .close)
        #expect(policy.tick(now: .seconds(6)) == [.connect])
        let held = LANLinkPolicy.Action.availability(.offline, hint: LANLinkPolicy.heldOwnConnectionHint)
        #expect(policy.failed(.refused, now: .seconds(6)) == [held])
        // Accepted and closed before answering means the same thing while the grace lasts.
        _ = policy.tick(now: .seconds(30))
        _ = policy.connected(now: .seconds(30))
        #expect(policy.failed(.closedByDevice, now: .seconds(30)).contains(held))
        // A minute after the drop, a refusal is another client again.
        #expect(
            policy.failed(.refused, now: .seconds(66))
                == [.availability(.busy, hint: LANLinkPolicy.busyHint)])
        #expect(LANLinkPolicy.heldOwnConnectionHint.contains("gateway dropped"))
    }

    @Test("a refusal after the device closed a working connection itself, or after an answer since our drop, is busy")
    func refusalWithoutOwnDropIsBusy() {
        var closedByDevice = Self.online()
        _ = closedByDevice.failed(.closedByDevice, now: .seconds(10))
        #expect(Self.availabilities(closedByDevice.failed(.refused, now: .seconds(10))) == [.busy])

        var answeredSince = Self.online()
        _ = answeredSince.failed(.silent, now: .seconds(10))
        _ = answeredSince.tick(now: .seconds(10))
        _ = answeredSince.connected(now: .seconds(10))
        _ = answeredSince.established(now: .seconds(10))
        _ = answeredSince.received(now: .seconds(10))
        _ = answeredSince.failed(.closedByDevice, now: .seconds(20))
        #expect(Self.availabilities(answeredSince.failed(.refused, now: .seconds(20))) == [.busy])
    }

    @Test("stopping closes an open connection and schedules nothing more")
    func stop() {
        var policy = Self.online()
        #expect(policy.stop() == [.close])
        #expect(policy.nextWake == nil)
        #expect(policy.tick(now: .seconds(100)).isEmpty)
    }

    @Test("the reconnect wait takes up to the backoff's 20 % jitter off, as the link draws it")
    func jitteredBackoff() throws {
        func wait(unitRandom: Double) throws -> Duration {
            var policy = LANLinkPolicy()
            _ = policy.start(now: .zero)
            for _ in 1...3 { _ = policy.failed(.unreachable("no route"), now: .zero, unitRandom: unitRandom) }
            return try #require(policy.nextWake)
        }
        #expect(try wait(unitRandom: 0) == .seconds(4))
        #expect(try wait(unitRandom: 0.5) == .milliseconds(3600))
        #expect(try wait(unitRandom: 0.999) > .milliseconds(3200))
    }
}
