#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The command set an LE scan runs on. A controller with extended advertising (Bluetooth 5)
/// refuses the legacy scan commands once the host has used extended ones, and the kernel
/// uses them for its own discovery whenever the controller has them (Core Specification
/// Vol 4 Part E §3.1.1: a host uses one set or the other until reset).
enum ScanCommandSet: Hashable, Sendable {
    case legacy
    case extended
}

/// What sending one command on an adapter gave: the status of the controller's answer, or the
/// errno of a send that got none (a timeout, the adapter gone, a Command Status refusal).
enum HCICommandOutcome: Hashable, Sendable {
    case status(HCIErrorCode)
    case failed(errno: Int32)
}

/// How a scan is set up and torn down on a raw HCI socket, apart from the socket: legacy
/// commands first (every LE controller has them), and the extended ones when the controller
/// refuses the legacy set (Command Disallowed, unknown command, or a refusal libbluetooth
/// reports as EIO) or its answer is lost among the reports of an extended scan left running. Pure: `send` is the only way out, so the order is tested without an
/// adapter.
enum ScanCommandSequence {
    /// Sets the scan up and enables it; `installFilter` runs between the two (a socket filter
    /// that let through only scan reports would hide command answers from libbluetooth).
    /// Returns the command set the scan runs on, for `stop`.
    static func start(
        _ settings: HCIScanSettings, adapter: String, send: (any HCICommand) -> HCICommandOutcome,
        installFilter: () throws(BLEUnavailable) -> Void,
        failure: (_ errno: Int32, _ step: BLEUnavailable.Step) -> BLEUnavailable
    ) throws(BLEUnavailable) -> ScanCommandSet {
        // Scanning left on (by bluetoothd or a crashed run) makes Set Scan Parameters fail with
        // Command Disallowed: turn it off first, ignoring the answer.
        _ = send(HCILESetScanEnableCommand(enable: false))
        let commands: ScanCommandSet
        let legacy = send(HCILESetScanParametersCommand(settings: settings))
        switch legacy {
        case .status(.success):
            commands = .legacy
        // ETIMEDOUT too: with the kernel's extended scan still running, its reports can use up
        // the events libbluetooth reads while waiting for the answer; disabling it ends them.
        case .status(.commandDisallowed), .status(.unknownCommand), .failed(errno: EIO), .failed(errno: ETIMEDOUT):
            _ = send(HCILESetExtendedScanEnableCommand(enable: false))
            let extended = send(HCILESetExtendedScanParametersCommand(settings: settings))
            guard extended == .status(.success) else {
                throw refusal(extended, .setExtendedScanParameters, adapter, failure, after: legacy)
            }
            commands = .extended
        default:
            throw refusal(legacy, .setScanParameters, adapter, failure)
        }
        try installFilter()
        // Duplicate filtering off: ScanTable deduplicates, and RSSI stays live.
        let enabled =
            commands == .legacy
            ? send(HCILESetScanEnableCommand(enable: true)) : send(HCILESetExtendedScanEnableCommand(enable: true))
        guard enabled == .status(.success) else {
            throw refusal(enabled, commands == .legacy ? .enableScan : .enableExtendedScan, adapter, failure)
        }
        return commands
    }

    /// Disables the scan in the set it runs on (ignoring the answer: the adapter may be gone).
    static func stop(_ commands: ScanCommandSet, send: (any HCICommand) -> HCICommandOutcome) {
        switch commands {
        case .legacy: _ = send(HCILESetScanEnableCommand(enable: false))
        case .extended: _ = send(HCILESetExtendedScanEnableCommand(enable: false))
        }
    }

    /// A failed step as the case a user can act on: a send that failed keeps its errno (a
    /// permission or a vanished adapter has its own fix); a refusal names the controller's status,
    /// and the legacy command's refusal when the extended one was the fallback.
    private static func refusal(
        _ outcome: HCICommandOutcome, _ step: BLEUnavailable.Step, _ adapter: String,
        _ failure: (Int32, BLEUnavailable.Step) -> BLEUnavailable, after legacy: HCICommandOutcome? = nil
    ) -> BLEUnavailable {
        let earlier = legacy.map {
            " (after \(BLEUnavailable.Step.setScanParameters.rawValue) was refused: \(text($0)))"
        }
        switch outcome {
        case .failed(let code) where code != EIO:
            return failure(code, step)
        case .failed(let code):
            return .other(errno: code, text: "\(step.rawValue) for \(adapter) failed: \(text(outcome))\(earlier ?? "")")
        case .status:
            return .other(errno: EIO, text: "\(step.rawValue) for \(adapter) failed: \(text(outcome))\(earlier ?? "")")
        }
    }

    private static func text(_ outcome: HCICommandOutcome) -> String {
        switch outcome {
        case .status(let code): "the controller answered \(code)"
        case .failed(EIO): "the controller refused it"
        case .failed(let code): String(cString: strerror(code))
        }
    }
}
