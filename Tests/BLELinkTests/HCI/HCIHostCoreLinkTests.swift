import BLELink
import Testing
import YoullTestSupport

/// Connections, disconnections and ATT data through the HCI host's state machine.
@Suite("HCI host core: connections and data")
struct HCIHostCoreLinkTests {
    static let device = "C4:00:00:00:00:01"
    typealias Harness = HostCoreHarness

    /// A ready host with one connection on handle 0x40.
    static func connected(buffers: (UInt16, UInt8) = (27, 4)) -> HostCoreHarness {
        var harness = HostCoreHarness()
        harness.initialize(leBuffers: buffers)
        _ = harness.keep(
            harness.core.connect(operation: 1, address: device, addressType: .randomDevice, timeout: .seconds(5)))
        harness.feed(Harness.status(.leCreateConnection))
        harness.feed(Harness.connectionComplete(handle: 0x40))
        _ = harness.takeCommands()
        return harness
    }

    @Test("connect: LE Create Connection to the random address, Command Status, then the connection with its handle")
    func connect() throws {
        var harness = HostCoreHarness()
        harness.initialize()
        let started = harness.keep(
            harness.core.connect(
                operation: 1, address: "c4:00:00:00:00:01", addressType: .randomDevice, timeout: .seconds(5)))
        #expect(started.contains(.startTimer(.connect(operation: 1), after: .seconds(5))))
        let command = try #require(harness.sent.last)
        #expect(command.body.prefix(3) == hexBytes("0D 20 19")[...])
        #expect(Array(command.body[8...15]) == hexBytes("01 0100000000C4 00"), "random peer, public own address")
        #expect(harness.feed(Harness.status(.leCreateConnection)).isEmpty)
        let actions = harness.feed(Harness.connectionComplete(handle: 0x40))
        #expect(
            actions.contains(
                .connected(
                    operation: 1, .init(handle: 0x40, address: Self.device, addressType: .randomDevice, serial: 1))))
        #expect(actions.contains(.cancelTimer(.connect(operation: 1))))
        #expect(harness.core.connectedHandles == [0x40])
    }

    @Test("a second connect waits until the first attempt ends; the extended controller gets the extended command")
    func queuedConnects() {
        var harness = HostCoreHarness()
        harness.initialize(features: .extendedAdvertising)
        _ = harness.keep(
            harness.core.connect(operation: 1, address: Self.device, addressType: .randomDevice, timeout: .seconds(5)))
        _ = harness.keep(
            harness.core.connect(
                operation: 2, address: "C4:00:00:00:00:02", addressType: .randomDevice, timeout: .seconds(5)))
        harness.feed(Harness.status(.leExtendedCreateConnection))
        #expect(harness.takeCommands() == [.leExtendedCreateConnection])
        harness.feed(Harness.connectionComplete(handle: 0x40))
        #expect(harness.takeCommands() == [.leExtendedCreateConnection])
    }

    @Test(
        "an attempt queued behind an unreachable device is not timed out untried: its time starts when it reaches the controller"
    )
    func queuedAttemptTimesFromItsTurn() {
        var harness = HostCoreHarness()
        harness.initialize()
        let first = harness.keep(
            harness.core.connect(operation: 1, address: Self.device, addressType: .randomDevice, timeout: .seconds(10)))
        #expect(first.contains(.startTimer(.connect(operation: 1), after: .seconds(10))))
        let second = harness.keep(
            harness.core.connect(
                operation: 2, address: "C4:00:00:00:00:02", addressType: .randomDevice, timeout: .seconds(10)))
        #expect(!second.contains { if case .startTimer(.connect, _) = $0 { true } else { false } }, "no timer yet")
        harness.feed(Harness.status(.leCreateConnection))
        #expect(harness.takeCommands() == [.leCreateConnection])

        // The first device never answers: its attempt is cancelled, and only then does the
        // second one go out, with its own ten seconds.
        _ = harness.keep(harness.core.timerFired(.connect(operation: 1)))
        #expect(harness.takeCommands() == [.leCreateConnectionCancel])
        harness.feed(Harness.complete(.leCreateConnectionCancel))
        let next = harness.feed(Harness.connectionComplete(handle: 0, status: .unknownConnectionIdentifier))
        #expect(next.contains { if case .connectFailed(1, _) = $0 { true } else { false } })
        #expect(!next.contains { if case .connectFailed(2, _) = $0 { true } else { false } })
        #expect(next.contains(.startTimer(.connect(operation: 2), after: .seconds(10))))
        #expect(harness.takeCommands() == [.leCreateConnection])
    }

    @Test("a timed-out attempt is cancelled and fails once the controller ends it")
    func timeout() {
        var harness = HostCoreHarness()
        harness.initialize()
        _ = harness.keep(
            harness.core.connect(operation: 1, address: Self.device, addressType: .randomDevice, timeout: .seconds(5)))
        harness.feed(Harness.status(.leCreateConnection))
        _ = harness.takeCommands()
        let fired = harness.keep(harness.core.timerFired(.connect(operation: 1)))
        #expect(harness.takeCommands() == [.leCreateConnectionCancel])
        #expect(fired.contains(.startTimer(.cancelGrace(operation: 1), after: .seconds(2))))
        #expect(
            harness.feed(Harness.complete(.leCreateConnectionCancel)).allSatisfy {
                if case .connectFailed = $0 { false } else { true }
            })
        let ended = harness.feed(Harness.connectionComplete(handle: 0, status: .unknownConnectionIdentifier))
        #expect(
            ended.contains(.connectFailed(operation: 1, .connectTimedOut(address: Self.device, after: .seconds(5)))))
    }

    @Test("a queued attempt that is cancelled fails at once without reaching the controller")
    func cancelQueued() {
        var harness = HostCoreHarness()
        harness.initialize()
        _ = harness.keep(
            harness.core.connect(operation: 1, address: Self.device, addressType: .randomDevice, timeout: .seconds(5)))
        _ = harness.keep(
            harness.core.connect(
                operation: 2, address: "C4:00:00:00:00:02", addressType: .randomDevice, timeout: .seconds(5)))
        let actions = harness.keep(harness.core.cancelConnect(operation: 2))
        #expect(actions.contains(.connectFailed(operation: 2, .connectCancelled(address: "C4:00:00:00:00:02"))))
        #expect(harness.takeCommands() == [.leCreateConnection])
    }

    @Test("a connection made just as it was cancelled is disconnected and the attempt fails")
    func madeDespiteCancel() {
        var harness = HostCoreHarness()
        harness.initialize()
        _ = harness.keep(
            harness.core.connect(operation: 1, address: Self.device, addressType: .randomDevice, timeout: .seconds(5)))
        harness.feed(Harness.status(.leCreateConnection))
        _ = harness.keep(harness.core.cancelConnect(operation: 1))
        harness.feed(Harness.complete(.leCreateConnectionCancel, status: .commandDisallowed))
        let actions = harness.feed(Harness.connectionComplete(handle: 0x40))
        #expect(actions.contains(.connectFailed(operation: 1, .connectCancelled(address: Self.device))))
        #expect(harness.takeCommands() == [.leCreateConnection, .leCreateConnectionCancel, .disconnect])
    }

    @Test("a controller that never ends a cancelled attempt is given up after the grace period")
    func cancelGrace() {
        var harness = HostCoreHarness()
        harness.initialize()
        _ = harness.keep(
            harness.core.connect(operation: 1, address: Self.device, addressType: .randomDevice, timeout: .seconds(5)))
        harness.feed(Harness.status(.leCreateConnection))
        _ = harness.keep(harness.core.timerFired(.connect(operation: 1)))
        let actions = harness.keep(harness.core.timerFired(.cancelGrace(operation: 1)))
        #expect(
            actions.contains(.connectFailed(operation: 1, .connectTimedOut(address: Self.device, after: .seconds(5)))))
    }

    @Test("a refused or failed connection names the controller's reason")
    func refusedConnect() {
        var harness = HostCoreHarness()
        harness.initialize()
        _ = harness.keep(
            harness.core.connect(operation: 1, address: Self.device, addressType: .randomDevice, timeout: .seconds(5)))
        let refused = harness.feed(Harness.status(.leCreateConnection, .connectionLimitExceeded))
        #expect(
            refused.contains(
                .connectFailed(operation: 1, .connectFailed(address: Self.device, .connectionLimitExceeded))))
        _ = harness.keep(
            harness.core.connect(operation: 2, address: Self.device, addressType: .randomDevice, timeout: .seconds(5)))
        harness.feed(Harness.status(.leCreateConnection))
        let failed = harness.feed(Harness.connectionComplete(handle: 0, status: .connectionFailedToBeEstablished))
        #expect(
            failed.contains(
                .connectFailed(operation: 2, .connectFailed(address: Self.device, .connectionFailedToBeEstablished))))
        #expect(
            harness.keep(
                harness.core.connect(
                    operation: 3, address: "nonsense", addressType: .randomDevice, timeout: .seconds(5)))
                == [.connectFailed(operation: 3, .invalidAddress("nonsense"))])
    }

    @Test("an ATT PDU goes out in an L2CAP frame on channel 4, cut to the LE buffer size")
    func sendATT() throws {
        var harness = Self.connected()
        let pdu: [UInt8] = [0x52, 0x11, 0x00] + Array(repeating: 0xAB, count: 40)
        let actions = harness.keep(harness.core.sendATT(operation: 9, handle: 0x40, pdu: pdu))
        let packets = try harness.takeACL()
        #expect(packets.map(\.data.count) == [27, 20])
        #expect(packets.flatMap(\.data) == L2CAPBasicFrame(channel: 4, payload: pdu).encoded)
        #expect(actions == [.sent(operation: 9)])
    }

    @Test("packets wait for buffer credits, returned by Number Of Completed Packets, and links take turns")
    func credits() throws {
        var harness = Self.connected(buffers: (27, 2))
        _ = harness.keep(
            harness.core.connect(
                operation: 2, address: "C4:00:00:00:00:02", addressType: .randomDevice, timeout: .seconds(5)))
        harness.feed(Harness.status(.leCreateConnection))
        harness.feed(Harness.connectionComplete(handle: 0x41, address: "C4:00:00:00:00:02"))
        _ = harness.takeCommands()
        for operation in 10..<14 {
            _ = harness.keep(harness.core.sendATT(operation: operation, handle: 0x40, pdu: [0x52, 1, 0, 1]))
        }
        _ = harness.keep(harness.core.sendATT(operation: 20, handle: 0x41, pdu: [0x52, 1, 0, 2]))
        #expect(try harness.takeACL().map(\.handle) == [0x40, 0x40], "two buffers")
        #expect(harness.feed(Harness.completedPackets([(0x40, 1)])) == [.sent(operation: 12)])
        #expect(harness.feed(Harness.completedPackets([(0x40, 1)])) == [.sent(operation: 20)], "the other link's turn")
        #expect(try harness.takeACL().map(\.handle) == [0x40, 0x41])
        harness.feed(Harness.completedPackets([(0x40, 1), (0x41, 1)]))
        #expect(try harness.takeACL().map(\.handle) == [0x40], "only what is queued")
        harness.feed(Harness.completedPackets([(0x40, 200)]))
        #expect(try harness.takeACL().isEmpty, "over-reported credits are not invented")
    }

    @Test("fragments from the device are joined and handed over as one ATT PDU")
    func receiveATT() {
        var harness = Self.connected()
        let frame = L2CAPBasicFrame(channel: 4, payload: [0x1B, 0x12, 0x00] + Array(repeating: 7, count: 30)).encoded
        #expect(harness.feed(Harness.acl(0x40, .firstFlushable, Array(frame.prefix(10)))).isEmpty)
        let actions = harness.feed(Harness.acl(0x40, .continuing, Array(frame.dropFirst(10))))
        #expect(actions == [.attPDU(handle: 0x40, Array(frame.dropFirst(4)))])
    }

    @Test("a parameter update request from the device is answered; stray data is a problem, not a failure")
    func otherChannels() throws {
        var harness = Self.connected()
        harness.feed(Harness.acl(0x40, .firstFlushable, hexBytes("0C00 0500 12 01 0800 1800 2800 0000 9001")))
        #expect(try harness.takeACL().first?.data == hexBytes("0600 0500 13 01 0200 0100"))
        guard case .problem = harness.feed(Harness.acl(0x99, .firstFlushable, hexBytes("0100 0400 0A"))).first else {
            Issue.record("expected a problem")
            return
        }
        guard case .problem = harness.feed(Harness.acl(0x40, .continuing, [1, 2])).first else {
            Issue.record("expected a problem")
            return
        }
        #expect(harness.core.isReady)
    }

    @Test("the device's disconnect ends the link with its reason, returns its credits and fails its queued sends")
    func remoteDisconnect() throws {
        var harness = Self.connected(buffers: (27, 1))
        _ = harness.keep(harness.core.sendATT(operation: 5, handle: 0x40, pdu: [0x52, 1, 0, 1]))
        _ = harness.keep(harness.core.sendATT(operation: 6, handle: 0x40, pdu: [0x52, 1, 0, 2]))
        let gone = HCIHostError.disconnected(address: Self.device, reason: .remoteUserTerminatedConnection)
        let actions = harness.feed(Harness.disconnected(handle: 0x40, reason: .remoteUserTerminatedConnection))
        #expect(actions == [.sendFailed(operation: 6, gone), .disconnected(handle: 0x40, gone)])
        #expect(harness.core.connectedHandles.isEmpty)
        #expect(
            harness.keep(harness.core.sendATT(operation: 7, handle: 0x40, pdu: [1])).first.map {
                if case .sendFailed(7, _) = $0 { true } else { false }
            } == true)
    }

    @Test("disconnect sends Disconnect with the reason and completes on Disconnection Complete")
    func localDisconnect() {
        var harness = Self.connected()
        _ = harness.keep(harness.core.disconnect(operation: 3, handle: 0x40, reason: .remoteUserTerminatedConnection))
        #expect(harness.sent.last?.body == hexBytes("06 04 03 4000 13"))
        #expect(harness.feed(Harness.status(.disconnect)).isEmpty)
        let actions = harness.feed(Harness.disconnected(handle: 0x40, reason: .localHostTerminatedConnection))
        #expect(actions.contains(.completed(operation: 3, nil)))
        #expect(
            harness.keep(harness.core.disconnect(operation: 4, handle: 0x40, reason: .remoteUserTerminatedConnection))
                == [.completed(operation: 4, nil)], "already gone")
    }

    @Test("a late send or close on a link that is gone leaves alone the device that got its handle since")
    func lateCloseOfReusedHandle() throws {
        var harness = Self.connected()
        harness.feed(Harness.disconnected(handle: 0x40, reason: .connectionTimeout))
        let other = "C4:00:00:00:00:02"
        _ = harness.keep(
            harness.core.connect(operation: 2, address: other, addressType: .randomDevice, timeout: .seconds(5)))
        harness.feed(Harness.status(.leCreateConnection))
        let actions = harness.feed(Harness.connectionComplete(handle: 0x40, address: other))
        #expect(
            actions.contains(
                .connected(operation: 2, .init(handle: 0x40, address: other, addressType: .randomDevice, serial: 2))))
        _ = harness.takeCommands()

        // A PDU for the first device's link, sent late: it fails, the second device gets nothing.
        let stale = harness.keep(harness.core.sendATT(operation: 5, handle: 0x40, serial: 1, pdu: [0x52, 1, 0, 1]))
        #expect(stale.contains { if case .sendFailed(5, _) = $0 { true } else { false } })
        #expect(try harness.takeACL().isEmpty)

        // The first device's channel closes late (its reconnect tidying up): serial 1.
        let late = harness.keep(
            harness.core.disconnect(operation: 3, handle: 0x40, serial: 1, reason: .remoteUserTerminatedConnection))
        #expect(late == [.completed(operation: 3, nil)])
        #expect(harness.takeCommands().isEmpty, "no Disconnect for the second device's link")
        #expect(harness.core.connectedHandles == [0x40])
        // Its own close still ends it.
        _ = harness.keep(
            harness.core.disconnect(operation: 4, handle: 0x40, serial: 2, reason: .remoteUserTerminatedConnection))
        #expect(harness.takeCommands() == [.disconnect])
    }

    @Test("a Disconnect the controller never completes is given up after its timeout; the closer is not left waiting")
    func disconnectUnanswered() {
        var harness = Self.connected()
        let started = harness.keep(
            harness.core.disconnect(operation: 3, handle: 0x40, reason: .remoteUserTerminatedConnection))
        #expect(started.contains(.startTimer(.disconnect(handle: 0x40), after: .seconds(10))))
        harness.feed(Harness.status(.disconnect))
        let actions = harness.keep(harness.core.timerFired(.disconnect(handle: 0x40)))
        #expect(actions.contains(.completed(operation: 3, nil)))
        #expect(harness.core.connectedHandles.isEmpty)
        #expect(harness.keep(harness.core.timerFired(.disconnect(handle: 0x40))).isEmpty, "once")
    }

    @Test("the stream ending fails the attempt under way and ends every link with the reason")
    func controllerGone() {
        var harness = Self.connected()
        _ = harness.keep(
            harness.core.connect(
                operation: 2, address: "C4:00:00:00:00:02", addressType: .randomDevice, timeout: .seconds(5)))
        let actions = harness.keep(harness.core.transportClosed("h4-tcp:127.0.0.1:1 closed the connection"))
        let gone = HCIHostError.controllerGone("h4-tcp:127.0.0.1:1 closed the connection")
        #expect(actions.contains(.connectFailed(operation: 2, gone)))
        #expect(actions.contains(.disconnected(handle: 0x40, gone)))
        #expect(actions.last == .failed(gone))
        #expect(
            harness.keep(
                harness.core.connect(
                    operation: 3, address: Self.device, addressType: .randomDevice, timeout: .seconds(1)))
                == [.connectFailed(operation: 3, gone)])
    }

    @Test("a connection nobody asked for is disconnected")
    func strayConnection() {
        var harness = HostCoreHarness()
        harness.initialize()
        harness.feed(Harness.connectionComplete(handle: 0x50))
        #expect(harness.takeCommands() == [.disconnect])
    }
}
