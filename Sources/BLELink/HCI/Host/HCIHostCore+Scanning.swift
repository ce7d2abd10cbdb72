/// Scanning: active, duplicate filtering off (`ScanTable` deduplicates), with the extended
/// commands on a controller with extended advertising and the legacy ones otherwise. Both kinds
/// of advertising report reach the gateway as `AdvertisingReport`s.
extension HCIHostCore {
    struct ScanState: Hashable, Sendable {
        /// Whether the controller scans now (as far as the host knows).
        var isOn = false
        /// Reports are passed on from the moment scanning is asked for until it is stopped.
        var isReporting = false
    }

    /// Starts scanning; `.completed(operation:)` follows. Starting while on succeeds at once.
    public mutating func startScan(operation: Int) -> [Action] {
        guard phase == .ready, let controller else { return [.completed(operation: operation, notReady)] }
        scan.isReporting = true
        guard !scan.isOn else { return [.completed(operation: operation, nil)] }
        let settings = HCIScanSettings(
            active: true, interval: configuration.scanInterval, window: configuration.scanWindow)
        let command: any HCIScanParametersCommand =
            controller.usesExtendedCommands
            ? HCILESetExtendedScanParametersCommand(settings: settings)
            : HCILESetScanParametersCommand(settings: settings)
        return issue(command, for: .scanParameters(operation: operation))
    }

    /// Stops scanning; `.completed(operation:)` follows. Stopping while off succeeds at once.
    public mutating func stopScan(operation: Int) -> [Action] {
        scan.isReporting = false
        guard phase == .ready, scan.isOn else { return [.completed(operation: operation, failure)] }
        return issueScanEnable(false, operation: operation)
    }

    mutating func scanParametersSet(_ operation: Int, status: HCIErrorCode) -> [Action] {
        guard status == .success else {
            scan.isReporting = false
            let opcode: HCIOpcode =
                controller?.usesExtendedCommands == true ? .leSetExtendedScanParameters : .leSetScanParameters
            return [.completed(operation: operation, .commandFailed(opcode, status))]
        }
        return issueScanEnable(true, operation: operation)
    }

    mutating func scanEnableSet(_ operation: Int, enable: Bool, status: HCIErrorCode) -> [Action] {
        guard status == .success else {
            if enable { scan.isReporting = false }
            let opcode: HCIOpcode =
                controller?.usesExtendedCommands == true ? .leSetExtendedScanEnable : .leSetScanEnable
            return [.completed(operation: operation, .commandFailed(opcode, status))]
        }
        scan.isOn = enable
        return [.completed(operation: operation, nil)]
    }

    private mutating func issueScanEnable(_ enable: Bool, operation: Int) -> [Action] {
        let purpose = HCICommandPurpose.scanEnable(operation: operation, enable: enable)
        if controller?.usesExtendedCommands == true {
            return issue(HCILESetExtendedScanEnableCommand(enable: enable), for: purpose)
        }
        return issue(HCILESetScanEnableCommand(enable: enable), for: purpose)
    }

    var notReady: HCIHostError {
        failure ?? .transport("the HCI host is not initialized yet")
    }
}
