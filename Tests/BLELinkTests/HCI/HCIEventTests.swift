@testable import BLELink
import Testing
import YoullTestSupport

/// Events from the layouts of Core Specification Vol 4 Part E §7.7, as H4 event bodies
/// (event code, parameter length, parameters).
@Suite("HCI events")
struct HCIEventTests {
    @Test("Command Complete gives credits, opcode, status and the return parameters after it")
    func commandComplete() throws {
        let event = try HCIControllerEvent(body: hexBytes("0E 07 01 0220 00 1B00 0F"))
        #expect(
            event
                == .commandComplete(
                    HCICommandComplete(
                        numberOfCommandPackets: 1, opcode: .leReadBufferSize, status: .success,
                        returnParameters: hexBytes("1B00 0F"))))
    }

    @Test("a No Operation Command Complete has no status")
    func noOperation() throws {
        guard case .commandComplete(let complete) = try HCIControllerEvent(body: hexBytes("0E 03 05 0000")) else {
            Issue.record("not a Command Complete")
            return
        }
        #expect(complete.status == nil && complete.numberOfCommandPackets == 5 && complete.opcode.rawValue == 0)
    }

    @Test("Command Status gives status, credits and opcode")
    func commandStatus() throws {
        #expect(
            try HCIControllerEvent(body: hexBytes("0F 04 0C 01 0D20"))
                == .commandStatus(
                    HCICommandStatus(status: .commandDisallowed, numberOfCommandPackets: 1, opcode: .leCreateConnection)
                ))
    }

    @Test("Disconnection Complete gives the handle without flag bits and the reason")
    func disconnectionComplete() throws {
        #expect(
            try HCIControllerEvent(body: hexBytes("05 04 00 4010 08"))
                == .disconnectionComplete(HCIDisconnectionComplete(handle: 0x0040, reason: .connectionTimeout)))
    }

    @Test("Number Of Completed Packets reads handle and count pairs interleaved (§5.2)")
    func numberOfCompletedPackets() throws {
        #expect(
            try HCIControllerEvent(body: hexBytes("13 09 02 4000 0300 4100 0100"))
                == .numberOfCompletedPackets(
                    HCINumberOfCompletedPackets(entries: [.init(handle: 0x40, count: 3), .init(handle: 0x41, count: 1)])
                ))
    }

    @Test("LE Connection Complete gives status, handle, role, peer and timing")
    func leConnectionComplete() throws {
        let body = hexBytes("3E 13 01 00 4000 00 01 0100000000C4 2800 0000 9001 00")
        let expected = HCILEConnectionComplete(
            status: .success, handle: 0x40, isCentral: true, peerAddressType: .randomDevice,
            peerAddress: "C4:00:00:00:00:01", interval: 0x28, latency: 0, supervisionTimeout: 0x190)
        #expect(try HCIControllerEvent(body: body) == .leConnectionComplete(expected))
        #expect(expected.legacyParameters == Array(body.dropFirst(3)))
    }

    @Test("LE Enhanced Connection Complete [v1] and [v2] skip the private addresses and v2's handles")
    func enhancedConnectionComplete() throws {
        let common =
            hexBytes("00 4100 00 00 665544332211") + [UInt8](repeating: 0, count: 12) + hexBytes("1800 0000 9001 00")
        let v1 = [0x3E, UInt8(common.count + 1), 0x0A] + common
        let v2 = [0x3E, UInt8(common.count + 4), 0x29] + common + [0xFF, 0xFF, 0x0F]
        for body in [v1, v2] {
            guard case .leConnectionComplete(let event) = try HCIControllerEvent(body: body) else {
                Issue.record("not a connection complete")
                continue
            }
            #expect(event.handle == 0x41 && event.peerAddress == "11:22:33:44:55:66" && event.interval == 0x18)
        }
    }

    @Test("a failed connection attempt keeps its status")
    func failedConnection() throws {
        guard
            case .leConnectionComplete(let event) = try HCIControllerEvent(
                body: hexBytes("3E 13 01 02 0000 00 00 000000000000 0000 0000 0000 00"))
        else {
            Issue.record("not a connection complete")
            return
        }
        #expect(event.status == .unknownConnectionIdentifier)
    }

    @Test("LE advertising reports go through the same parser as BlueZ scans")
    func advertisingReports() throws {
        let packet = advertisingReportPacket([(0x00, "AA:BB:CC:DD:EE:01", adStructure(0x01, [0x06]), -40)])
        let event = try HCIControllerEvent(body: packet.dropFirst())
        #expect(event == .advertisingReports(try scanReports(packet)))
    }

    @Test("Hardware Error, Data Length Change and events the host does not use are read")
    func otherEvents() throws {
        #expect(try HCIControllerEvent(body: hexBytes("10 01 07")) == .hardwareError(code: 7))
        #expect(
            try HCIControllerEvent(body: hexBytes("3E 0B 07 4000 FB00 4808 FB00 4808"))
                == .leDataLengthChange(
                    HCILEDataLengthChange(
                        handle: 0x40, maxTxOctets: 251, maxTxTime: 2120, maxRxOctets: 251, maxRxTime: 2120)))
        #expect(try HCIControllerEvent(body: hexBytes("08 04 00 4000 01")) == .other(code: 0x08, subevent: nil))
        #expect(try HCIControllerEvent(body: hexBytes("3E 02 03 00")) == .other(code: 0x3E, subevent: 0x03))
    }

    @Test("hostile events are refused with the event and field named, never a trap")
    func hostileEvents() {
        #expect(throws: HCIPacketError.lengthMismatch(packet: "HCI event 0x0e", declared: 7, actual: 3)) {
            try HCIControllerEvent(body: hexBytes("0E 07 01 0220"))
        }
        #expect(
            throws: HCIPacketError.truncated(
                packet: "Number Of Completed Packets event", field: "Num_Completed_Packets[1]", needed: 2,
                available: 0)
        ) {
            try HCIControllerEvent(body: hexBytes("13 07 02 4000 0300 4100"))
        }
        #expect(throws: HCIPacketError.invalidField(packet: "LE Connection Complete event", field: "Role", value: 7)) {
            try HCIControllerEvent(body: hexBytes("3E 13 01 00 4000 07 01 0100000000C4 2800 0000 9001 00"))
        }
        #expect(throws: HCIPacketError.self) { try HCIControllerEvent(body: hexBytes("3E 00")) }
        #expect(throws: HCIPacketError.self) { try HCIControllerEvent(body: hexBytes("05 05 00 4000 08 FF")) }
        #expect(throws: HCIPacketError.self) { try HCIControllerEvent(body: [0x0E]) }
    }

    @Test("a malformed advertising report is its own error kind, so the host can drop it and go on")
    func malformedAdvertisingReport() {
        #expect {
            try HCIControllerEvent(body: hexBytes("3E 04 02 01 09 00"))
        } throws: { error in
            if case .advertisingReport = error as? HCIPacketError { return true }
            return false
        }
    }

    @Test("an error code reads as the specification's meaning with its value")
    func errorCodes() {
        #expect(HCIErrorCode.connectionTimeout.description.hasPrefix("connection timeout"))
        #expect(HCIErrorCode(rawValue: 0x99).description == "HCI error (0x99)")
    }

    private func scanReports(_ packet: [UInt8]) throws -> [AdvertisingReport] {
        guard case .advertisingReports(let reports) = try HCIEventParser.parse(packet) else { return [] }
        return reports
    }
}
