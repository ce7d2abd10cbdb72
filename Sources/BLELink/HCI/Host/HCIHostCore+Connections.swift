/// Connections: one LE Create Connection at a time (the controller allows no more), the others
/// queued in order; each attempt bounded by its own timeout, after which the host cancels it
/// and reports the timeout once the controller confirms. Links end with Disconnect and a
/// reason, or when the controller reports them gone.
extension HCIHostCore {
    /// One connection attempt, queued or under way.
    struct Initiation: Hashable, Sendable {
        enum Stage: Hashable, Sendable {
            case queued, awaitingStatus, pending
            /// Cancel sent (or to be sent once the controller accepted the create): the attempt
            /// ends with `outcome` unless the connection is made first.
            case cancelling(outcome: HCIHostError)
        }

        var operation: Int
        var address: String
        var addressBytes: [UInt8]
        var addressType: BluetoothAddressType
        var timeout: Duration
        var stage = Stage.queued
    }

    /// A connection that is up.
    struct LinkState: Hashable, Sendable {
        var link: Link
        var reassembler: L2CAPReassembler
        /// Disconnect sent: no more sends; the operations wait for Disconnection Complete.
        var closing = false
        var closeOperations: [Int] = []
    }

    /// Connects to `address` (`AA:BB:CC:DD:EE:FF`); `.connected` or `.connectFailed` follows
    /// for `operation`, at the latest `timeout` after the attempt reaches the controller (plus
    /// the cancel's round trip). Attempts go one at a time: one queued behind an unreachable
    /// device waits for its turn rather than timing out untried; its caller can cancel it.
    public mutating func connect(
        operation: Int, address: String, addressType: BluetoothAddressType, timeout: Duration
    ) -> [Action] {
        guard phase == .ready else { return [.connectFailed(operation: operation, notReady)] }
        guard let bytes = AdvertisingReport.addressBytes(address) else {
            return [.connectFailed(operation: operation, .invalidAddress(address))]
        }
        initiations.append(
            Initiation(
                operation: operation, address: address.uppercased(), addressBytes: bytes, addressType: addressType,
                timeout: timeout))
        return startNextInitiation()
    }

    /// The caller gave up on `operation` (its task was cancelled).
    public mutating func cancelConnect(operation: Int) -> [Action] {
        guard let index = initiations.firstIndex(where: { $0.operation == operation }) else { return [] }
        return abandon(index, outcome: .connectCancelled(address: initiations[index].address))
    }

    /// Ends the link on `handle` with `reason`; `.completed(operation:)` follows once the
    /// controller confirms (at once when the link is already gone). With `serial`, only that
    /// link: when it is gone and its handle is another device's now, that one is left alone.
    public mutating func disconnect(operation: Int, handle: UInt16, serial: UInt64? = nil, reason: HCIErrorCode)
        -> [Action]
    {
        guard failure == nil, var state = links[handle], serial.map({ $0 == state.link.serial }) ?? true else {
            return [.completed(operation: operation, nil)]
        }
        state.closeOperations.append(operation)
        let first = !state.closing
        state.closing = true
        links[handle] = state
        guard first else { return [] }
        return [.startTimer(.disconnect(handle: handle), after: configuration.disconnectTimeout)]
            + issue(HCIDisconnectCommand(handle: handle, reason: reason), for: .disconnect(handle: handle))
    }

    // MARK: controller answers

    mutating func createConnectionAnswered(_ operation: Int, status: HCIErrorCode) -> [Action] {
        guard let index = initiations.firstIndex(where: { $0.operation == operation }) else { return [] }
        let initiation = initiations[index]
        guard status == .success else {
            initiations.remove(at: index)
            let error: HCIHostError =
                if case .cancelling(let outcome) = initiation.stage { outcome } else {
                    .connectFailed(address: initiation.address, status)
                }
            return [.cancelTimer(.connect(operation: operation)), .connectFailed(operation: operation, error)]
                + startNextInitiation()
        }
        if case .cancelling = initiation.stage { return sendCancel(for: operation) }
        initiations[index].stage = .pending
        return []
    }

    mutating func cancelAnswered(_ operation: Int, status: HCIErrorCode) -> [Action] {
        // Success or Command Disallowed (the connection was made meanwhile): either way the LE
        // Connection Complete that ends the attempt is still to come; the grace timer bounds it.
        []
    }

    mutating func connectionComplete(_ event: HCILEConnectionComplete) -> [Action] {
        let index = initiations.firstIndex { $0.stage == .pending || $0.isCancelling }
        guard let index else {
            // A connection nobody asked for (this host never advertises): refuse it.
            guard event.status == .success else { return [] }
            let (_, replaced) = addLink(event, address: event.peerAddress)
            return replaced
                + disconnect(operation: Self.nobody, handle: event.handle, reason: .remoteUserTerminatedConnection)
        }
        let initiation = initiations.remove(at: index)
        let operation = initiation.operation
        var actions: [Action] = [
            .cancelTimer(.connect(operation: operation)), .cancelTimer(.cancelGrace(operation: operation)),
        ]
        if event.status == .success {
            let (link, replaced) = addLink(event, address: initiation.address)
            actions += replaced
            if case .cancelling(let outcome) = initiation.stage {
                actions += disconnect(
                    operation: Self.nobody, handle: event.handle, reason: .remoteUserTerminatedConnection)
                actions.append(.connectFailed(operation: operation, outcome))
            } else {
                actions.append(.connected(operation: operation, link))
            }
        } else if case .cancelling(let outcome) = initiation.stage {
            actions.append(.connectFailed(operation: operation, outcome))
        } else {
            actions.append(
                .connectFailed(operation: operation, .connectFailed(address: initiation.address, event.status)))
        }
        return actions + startNextInitiation()
    }

    mutating func disconnectAnswered(_ handle: UInt16, status: HCIErrorCode) -> [Action] {
        guard status != .success, var state = links[handle] else { return [] }
        // Unknown Connection Identifier: the link went away on its own and its Disconnection
        // Complete is on its way (or came first); any other refusal leaves the link up.
        guard status != .unknownConnectionIdentifier else { return [] }
        let operations = state.closeOperations
        state.closing = false
        state.closeOperations = []
        links[handle] = state
        return [.cancelTimer(.disconnect(handle: handle))]
            + operations.filter { $0 != Self.nobody }.map {
                .completed(operation: $0, .commandFailed(.disconnect, status))
            }
    }

    mutating func disconnectionComplete(_ event: HCIDisconnectionComplete) -> [Action] {
        guard event.status == .success, let state = links[event.handle] else { return [] }
        return endLink(event.handle, .disconnected(address: state.link.address, reason: event.reason))
    }

    // MARK: timers

    mutating func connectTimedOut(_ operation: Int) -> [Action] {
        guard let index = initiations.firstIndex(where: { $0.operation == operation }) else { return [] }
        let initiation = initiations[index]
        return abandon(index, outcome: .connectTimedOut(address: initiation.address, after: initiation.timeout))
    }

    /// Disconnect sent long ago and no Disconnection Complete: forget the link, so whoever
    /// closed it is not left waiting.
    mutating func disconnectUnanswered(_ handle: UInt16) -> [Action] {
        guard let state = links[handle], state.closing else { return [] }
        return [
            .problem("no Disconnection Complete for \(state.link.address) within \(configuration.disconnectTimeout)")
        ]
            + endLink(handle, .disconnected(address: state.link.address, reason: .localHostTerminatedConnection))
    }

    mutating func cancelGraceEnded(_ operation: Int) -> [Action] {
        guard let index = initiations.firstIndex(where: { $0.operation == operation }),
            case .cancelling(let outcome) = initiations[index].stage
        else { return [] }
        initiations.remove(at: index)
        return [
            .problem("the controller did not end a cancelled connection attempt"),
            .connectFailed(operation: operation, outcome),
        ] + startNextInitiation()
    }

    // MARK: helpers

    /// Ends `index`'s attempt with `outcome`: at once when it has not reached the controller,
    /// through LE Create Connection Cancel when it has.
    private mutating func abandon(_ index: Int, outcome: HCIHostError) -> [Action] {
        let operation = initiations[index].operation
        switch initiations[index].stage {
        case .queued:
            initiations.remove(at: index)
            return [.connectFailed(operation: operation, outcome)]
        case .awaitingStatus:
            initiations[index].stage = .cancelling(outcome: outcome)
            return [.cancelTimer(.connect(operation: operation))]
        case .pending:
            initiations[index].stage = .cancelling(outcome: outcome)
            return [.cancelTimer(.connect(operation: operation))] + sendCancel(for: operation)
        case .cancelling:
            return []
        }
    }

    private mutating func sendCancel(for operation: Int) -> [Action] {
        [.startTimer(.cancelGrace(operation: operation), after: configuration.cancelGrace)]
            + issue(HCILECreateConnectionCancelCommand(), for: .cancelConnection(operation: operation))
    }

    private mutating func startNextInitiation() -> [Action] {
        guard phase == .ready, !initiations.contains(where: { $0.stage != .queued }),
            let index = initiations.firstIndex(where: { $0.stage == .queued }), let controller
        else { return [] }
        initiations[index].stage = .awaitingStatus
        let initiation = initiations[index]
        let type: UInt8 = initiation.addressType == .publicDevice || initiation.addressType == .publicIdentity ? 0 : 1
        let purpose = HCICommandPurpose.createConnection(operation: initiation.operation)
        let request = HCIConnectionRequest(
            peerAddress: initiation.addressBytes, peerAddressType: type, connection: configuration.connection)
        let command: any HCICreateConnectionCommand =
            controller.usesExtendedCommands
            ? HCILEExtendedCreateConnectionCommand(request: request) : HCILECreateConnectionCommand(request: request)
        return [.startTimer(.connect(operation: initiation.operation), after: initiation.timeout)]
            + issue(command, for: purpose)
    }

    /// The operation number of a disconnect no caller waits for.
    static let nobody = -1

    /// Records the new link; a link the controller had not reported gone under the same handle
    /// ends first (its channel must not receive the new device's data).
    private mutating func addLink(_ event: HCILEConnectionComplete, address: String) -> (Link, [Action]) {
        let replaced = endLink(event.handle, .disconnected(address: address, reason: .unknownConnectionIdentifier))
        linksMade += 1
        let link = Link(handle: event.handle, address: address, addressType: event.peerAddressType, serial: linksMade)
        links[event.handle] = LinkState(
            link: link,
            reassembler: L2CAPReassembler(handle: event.handle, maximumPayloadLength: configuration.maximumL2CAPPayload)
        )
        return (link, replaced)
    }

    /// Forgets the link: its credits come back, its queued sends fail, its channel ends.
    mutating func endLink(_ handle: UInt16, _ error: HCIHostError) -> [Action] {
        guard let state = links.removeValue(forKey: handle) else { return [] }
        var actions: [Action] = acl.drop(handle).map { .sendFailed(operation: $0, error) }
        if state.closing { actions.append(.cancelTimer(.disconnect(handle: handle))) }
        actions.append(.disconnected(handle: handle, error))
        actions += state.closeOperations.filter { $0 != Self.nobody }.map { .completed(operation: $0, nil) }
        return actions + (failure == nil ? pumpACL() : [])
    }

    /// Fails every attempt (the host failed).
    mutating func failInitiations(_ error: HCIHostError) -> [Action] {
        defer { initiations = [] }
        return initiations.flatMap { initiation -> [Action] in
            [
                .cancelTimer(.connect(operation: initiation.operation)),
                .cancelTimer(.cancelGrace(operation: initiation.operation)),
                .connectFailed(operation: initiation.operation, error),
            ]
        }
    }
}

extension HCIHostCore.Initiation {
    var isCancelling: Bool {
        if case .cancelling = stage { true } else { false }
    }
}
