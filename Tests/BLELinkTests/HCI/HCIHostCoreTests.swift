import BLELink
import Testing
import YoullTestSupport

/// The HCI host's state machine driven with controller bytes: start-up, command flow, scans
/// and failures. Connections and data are in `HCIHostCoreLinkTests`.
@Suite("HCI host core: start-up, commands, scanning")
struct HCIHostCoreTests {
    @Test("start-up resets, sets both event masks, reads address, commands, features and LE buffers, in order")
    func startUpOrder() {
        var harness = HostCoreHarness()
        _ = harness.keep(harness.core.start())
        var order: [HCIOpcode] = []
        let answers: [(HCIOpcode, [UInt8])] = [
            (.reset, []), (.setEventMask, []), (.leSetEventMask, []), (.readBDAddr, hexBytes("010000DC1B00")),
            (.readLocalSupportedCommands, [UInt8](repeating: 0, count: 64)),
            (.leReadLocalSupportedFeatures, hexBytes("0010000000000000")),
        ]
        for (opcode, parameters) in answers {
            order += harness.takeCommands()
            #expect(harness.feed(HostCoreHarness.complete(opcode, parameters)).isEmpty)
        }
        order += harness.takeCommands()
        let actions = harness.feed(HostCoreHarness.complete(.leReadBufferSize, hexBytes("1B00 08")))
        #expect(
            order == [
                .reset, .setEventMask, .leSetEventMask, .readBDAddr, .readLocalSupportedCommands,
                .leReadLocalSupportedFeatures, .leReadBufferSize,
            ])
        let info = HCIControllerInfo(
            address: "00:1B:DC:00:00:01", aclBuffers: HCIBufferSize(dataPacketLength: 27, totalPackets: 8),
            features: .extendedAdvertising)
        #expect(actions == [.ready(info)])
        #expect(harness.commandTimers.isEmpty, "every command answered")
        #expect(harness.core.isReady && info.usesExtendedCommands)
    }

    @Test("LE Read Buffer Size [v2] is used when the controller lists it")
    func bufferSizeV2() {
        var harness = HostCoreHarness()
        let actions = harness.initialize(leBuffers: (251, 3), bufferV2: true)
        #expect(
            actions.contains {
                if case .ready(let info) = $0 { info.aclBuffers.dataPacketLength == 251 } else { false }
            })
    }

    @Test("with no LE buffers of its own the controller's shared ACL buffers are read and used")
    func sharedBuffers() {
        var harness = HostCoreHarness()
        harness.initialize(leBuffers: (0, 0))
        #expect(!harness.core.isReady)
        let actions = harness.feed(HostCoreHarness.complete(.readBufferSize, hexBytes("FD03 40 0600 0000")))
        #expect(
            actions.contains(
                .ready(
                    HCIControllerInfo(
                        address: "00:1B:DC:00:00:01",
                        aclBuffers: HCIBufferSize(dataPacketLength: 1021, totalPackets: 6), features: []))))
    }

    @Test("a refused Reset fails the host, naming the command and the controller's reason")
    func refusedReset() {
        var harness = HostCoreHarness()
        _ = harness.keep(harness.core.start())
        let actions = harness.feed(HostCoreHarness.complete(.reset, status: .hardwareFailure))
        #expect(actions.last == .failed(.commandFailed(.reset, .hardwareFailure)))
        #expect(harness.core.failure == .commandFailed(.reset, .hardwareFailure))
    }

    @Test("a command left unanswered fails the host when its timer fires; a stale timer does nothing")
    func commandTimeout() {
        var harness = HostCoreHarness()
        #expect(harness.core.start().contains(.startTimer(.command(sequence: 1), after: .seconds(10))))
        harness.feed(HostCoreHarness.complete(.reset))
        #expect(harness.keep(harness.core.timerFired(.command(sequence: 1))).isEmpty, "stale: Reset was answered")
        let actions = harness.keep(harness.core.timerFired(.command(sequence: 2)))
        #expect(actions.last == .failed(.commandTimeout(.setEventMask, after: .seconds(10))))
    }

    @Test("one command at a time: the next waits for the answer, and for credits when the controller gives none")
    func commandFlow() throws {
        var harness = HostCoreHarness()
        harness.initialize()
        _ = harness.keep(harness.core.startScan(operation: 1))
        #expect(harness.takeCommands() == [.leSetScanParameters])
        // Answered with zero credits: the enable waits for a No Operation Command Complete.
        harness.feed(HostCoreHarness.complete(.leSetScanParameters, credits: 0))
        #expect(harness.takeCommands().isEmpty)
        let noOperation = HCIEventPacket(code: 0x0E, parameters: [1, 0, 0]).h4Packet.encoded
        harness.feed(noOperation)
        #expect(harness.takeCommands() == [.leSetScanEnable])
    }

    @Test("a legacy controller scans with the legacy commands and reports arrive only while scanning")
    func legacyScan() {
        var harness = HostCoreHarness()
        harness.initialize()
        let report = advertisingReportPacket([(0x00, "C4:00:00:00:00:01", adStructure(0x01, [0x06]), -50)])
        #expect(harness.feed(report).isEmpty, "not scanning yet")
        _ = harness.keep(harness.core.startScan(operation: 7))
        harness.feed(HostCoreHarness.complete(.leSetScanParameters))
        let enabled = harness.feed(HostCoreHarness.complete(.leSetScanEnable))
        #expect(harness.takeCommands() == [.leSetScanParameters, .leSetScanEnable])
        #expect(enabled.contains(.completed(operation: 7, nil)))
        guard case .advertisingReports(let reports) = harness.feed(report).first else {
            Issue.record("no reports")
            return
        }
        #expect(reports.first?.address == "C4:00:00:00:00:01")
        _ = harness.keep(harness.core.stopScan(operation: 8))
        #expect(harness.feed(report).isEmpty, "stopped")
        #expect(harness.feed(HostCoreHarness.complete(.leSetScanEnable)).contains(.completed(operation: 8, nil)))
        #expect(harness.takeCommands() == [.leSetScanEnable])
    }

    @Test("a controller with extended advertising scans with the extended commands")
    func extendedScan() {
        var harness = HostCoreHarness()
        harness.initialize(features: .extendedAdvertising)
        _ = harness.keep(harness.core.startScan(operation: 1))
        harness.feed(HostCoreHarness.complete(.leSetExtendedScanParameters))
        harness.feed(HostCoreHarness.complete(.leSetExtendedScanEnable))
        #expect(harness.takeCommands() == [.leSetExtendedScanParameters, .leSetExtendedScanEnable])
    }

    @Test("a refused scan names the command and the reason")
    func refusedScan() {
        var harness = HostCoreHarness()
        harness.initialize()
        _ = harness.keep(harness.core.startScan(operation: 3))
        let actions = harness.feed(HostCoreHarness.complete(.leSetScanParameters, status: .commandDisallowed))
        #expect(actions.contains(.completed(operation: 3, .commandFailed(.leSetScanParameters, .commandDisallowed))))
    }

    @Test("a malformed advertising report is dropped as a problem; the host carries on")
    func malformedReport() {
        var harness = HostCoreHarness()
        harness.initialize()
        _ = harness.keep(harness.core.startScan(operation: 1))
        harness.feed(HostCoreHarness.complete(.leSetScanParameters))
        harness.feed(HostCoreHarness.complete(.leSetScanEnable))
        let actions = harness.feed(hexBytes("04 3E 04 02 01 09 00"))
        guard case .problem = actions.first else {
            Issue.record("expected a problem, got \(actions)")
            return
        }
        #expect(harness.core.isReady)
    }

    @Test("garbage from the controller, a malformed Command Complete or a hardware error fail the host once")
    func fatalInput() {
        for bytes in [hexBytes("09 00"), hexBytes("04 0E 01 01"), hexBytes("04 10 01 2A")] {
            var harness = HostCoreHarness()
            harness.initialize()
            let actions = harness.feed(bytes)
            guard case .failed(let error) = actions.last else {
                Issue.record("not failed: \(actions)")
                continue
            }
            #expect(harness.core.failure == error)
            #expect(harness.feed(HostCoreHarness.complete(.reset)).isEmpty, "nothing after failing")
        }
    }
}
