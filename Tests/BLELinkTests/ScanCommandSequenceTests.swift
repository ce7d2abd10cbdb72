import Testing

@testable import BLELink

#if canImport(Glibc)
    import Glibc
#endif

/// The BlueZ pairing scan's command order, against a controller that answers from a script: a
/// Bluetooth 5 adapter refuses the legacy scan commands once the kernel has used extended ones
/// (Command Disallowed), and the scan must then run on the extended set, and stop in it.
@Suite("Scan command sequence (legacy, then extended)")
struct ScanCommandSequenceTests {
    /// A scripted controller: answers by opcode, records every command's bytes.
    final class Controller {
        var answers: [HCIOpcode: HCICommandOutcome] = [:]
        var sent: [[UInt8]] = []
        var filterInstalledAfter: Int?

        func send(_ command: any HCICommand) -> HCICommandOutcome {
            sent.append(command.body)
            return answers[type(of: command).opcode] ?? .status(.success)
        }
    }

    let settings = HCIScanSettings(active: true, interval: 0x0010, window: 0x0010)
    // Vol 4 Part E §7.8.10/11/64/65, opcode little-endian, then the length.
    let legacyOff: [UInt8] = [0x0C, 0x20, 0x02, 0x00, 0x00]
    let legacyParameters: [UInt8] = [0x0B, 0x20, 0x07, 0x01, 0x10, 0x00, 0x10, 0x00, 0x00, 0x00]
    let legacyOn: [UInt8] = [0x0C, 0x20, 0x02, 0x01, 0x00]
    let extendedOff: [UInt8] = [0x42, 0x20, 0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]
    let extendedParameters: [UInt8] = [0x41, 0x20, 0x08, 0x00, 0x00, 0x01, 0x01, 0x10, 0x00, 0x10, 0x00]
    let extendedOn: [UInt8] = [0x42, 0x20, 0x06, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00]

    private func start(_ controller: Controller) throws(BLEUnavailable) -> ScanCommandSet {
        try ScanCommandSequence.start(
            settings, adapter: "hci0", send: controller.send,
            installFilter: { controller.filterInstalledAfter = controller.sent.count },
            failure: { code, step in .other(errno: code, text: "classified \(step.rawValue)") })
    }

    @Test("a controller that takes legacy commands scans on them, and stops with them")
    func legacy() throws {
        let controller = Controller()
        let commands = try start(controller)
        #expect(commands == .legacy)
        #expect(controller.sent == [legacyOff, legacyParameters, legacyOn])
        #expect(controller.filterInstalledAfter == 2)
        ScanCommandSequence.stop(commands, send: controller.send)
        #expect(controller.sent.last == legacyOff)
    }

    @Test(
        "a Bluetooth 5 controller that refuses legacy scan parameters scans on the extended commands",
        arguments: [
            HCICommandOutcome.status(.commandDisallowed), .status(.unknownCommand), .failed(errno: EIO),
            .failed(errno: ETIMEDOUT),
        ])
    func extendedFallback(refusal: HCICommandOutcome) throws {
        let controller = Controller()
        controller.answers[.leSetScanParameters] = refusal
        controller.answers[.leSetScanEnable] = .status(.commandDisallowed)
        let commands = try start(controller)
        #expect(commands == .extended)
        #expect(controller.sent == [legacyOff, legacyParameters, extendedOff, extendedParameters, extendedOn])
        #expect(controller.filterInstalledAfter == 4)
        ScanCommandSequence.stop(commands, send: controller.send)
        #expect(controller.sent.last == extendedOff)
    }

    @Test("a controller refusing both sets fails naming both refusals, and enables nothing")
    func bothRefused() {
        let controller = Controller()
        controller.answers[.leSetScanParameters] = .status(.commandDisallowed)
        controller.answers[.leSetExtendedScanParameters] = .status(.invalidParameters)
        #expect(
            throws: BLEUnavailable.other(
                errno: EIO,
                text: "LE Set Extended Scan Parameters for hci0 failed: the controller answered invalid HCI command "
                    + "parameters (0x12) (after LE Set Scan Parameters was refused: the controller answered command "
                    + "disallowed (0x0c))")
        ) { try start(controller) }
        #expect(controller.sent.contains(extendedOn) == false)
        #expect(controller.filterInstalledAfter == nil)
    }

    @Test("another refusal of the legacy parameters is reported as it is, without trying extended")
    func otherRefusal() {
        let controller = Controller()
        controller.answers[.leSetScanParameters] = .status(.invalidParameters)
        #expect(
            throws: BLEUnavailable.other(
                errno: EIO,
                text: "LE Set Scan Parameters for hci0 failed: the controller answered invalid HCI command parameters "
                    + "(0x12)")
        ) { try start(controller) }
        #expect(controller.sent == [legacyOff, legacyParameters])
    }

    @Test("a send that fails (permission, adapter gone) is classified by its errno")
    func sendFailure() {
        let controller = Controller()
        controller.answers[.leSetScanParameters] = .failed(errno: EPERM)
        #expect(throws: BLEUnavailable.other(errno: EPERM, text: "classified LE Set Scan Parameters")) {
            try start(controller)
        }
    }

    @Test("a refused enable names the command set it was in")
    func enableRefused() {
        let controller = Controller()
        controller.answers[.leSetScanParameters] = .status(.commandDisallowed)
        controller.answers[.leSetExtendedScanEnable] = .status(.commandDisallowed)
        do {
            _ = try start(controller)
            Issue.record("a scan started although the controller refused to enable it")
        } catch {
            #expect(error.description.contains("LE Set Extended Scan Enable for hci0 failed"))
        }
    }
}
