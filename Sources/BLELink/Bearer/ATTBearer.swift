/// The client side of an ATT bearer over a `ByteChannel` (Core spec Vol 3 Part F §3.3).
///
/// - One request at a time: ATT allows a single outstanding request per bearer, so concurrent
///   callers queue in arrival order. Commands (Write Command) bypass the queue, as ATT allows.
/// - A response must carry the opcode after the request's; an Error Response for that request
///   becomes `ATTError.errorResponse` naming opcode, handle and code.
/// - Each request has a transaction timeout (30 s, ATT's value) on the injected clock. After a
///   timeout ATT forbids further PDUs, so the bearer closes the channel.
/// - Notifications (and indications, which are confirmed at once) go to `notifications`, for
///   one consumer.
/// - The device may send requests to the gateway's own (empty) GATT server: Exchange MTU is
///   answered, every other request gets "Request Not Supported", as the spec requires. A device
///   left waiting would hit its own 30 s timeout and drop the link.
/// - Garbage is counted in `ignoredPDUCount` and dropped, not fatal: unknown opcodes, commands
///   this side does not implement, malformed notifications, and responses that arrive when no
///   request waits. (BlueZ drops the link on the last kind; this bearer keeps it, because the
///   Tuya session above has its own response timeout and a reconnect costs seconds.)
/// - End-of-file or a socket error ends everything: the outstanding and queued requests fail,
///   later calls fail, with `ATTError.disconnected`, and `notifications` finishes.
public actor ATTBearer {
    /// The LE default ATT_MTU, which both sides use until an MTU exchange.
    public static let defaultMTU: UInt16 = 23
    /// ATT's transaction timeout.
    public static let defaultTransactionTimeout: Duration = .seconds(30)

    /// Handle Value Notifications and Indications from the device, in arrival order. Finishes
    /// when the bearer closes.
    public nonisolated let notifications: AsyncStream<ATTHandleValueNotification>

    /// The ATT_MTU in force: 23 until an Exchange MTU in either direction agrees on more.
    public private(set) var mtu = ATTBearer.defaultMTU
    /// PDUs dropped as garbage (see the type's documentation).
    public private(set) var ignoredPDUCount = 0

    private struct Pending {
        let id: Int
        let request: ATTOpcode
        var result: Result<[UInt8], ATTError>?
        var continuation: CheckedContinuation<Result<[UInt8], ATTError>, Never>?
    }

    private let channel: any ByteChannel
    private let clock: any Clock<Duration>
    private let transactionTimeout: Duration
    private let preferredMTU: UInt16
    private let notificationSink: AsyncStream<ATTHandleValueNotification>.Continuation
    private var closedBecause: ATTError?
    private var busy = false
    private var waitingForSlot: [CheckedContinuation<Void, Never>] = []
    private var pending: Pending?
    private var lastTransaction = 0

    /// Starts reading `channel` at once. `preferredMTU` is what this side offers in an MTU
    /// exchange (23: Tuya devices use 20-byte writes anyway, TUYA.md §1.1).
    public init(
        channel: any ByteChannel, clock: any Clock<Duration> = ContinuousClock(),
        transactionTimeout: Duration = ATTBearer.defaultTransactionTimeout, preferredMTU: UInt16 = ATTBearer.defaultMTU
    ) {
        self.channel = channel
        self.clock = clock
        self.transactionTimeout = transactionTimeout
        self.preferredMTU = max(preferredMTU, Self.defaultMTU)
        (notifications, notificationSink) = AsyncStream.makeStream()
        Task { await self.readLoop() }
    }

    /// Sends `request` once the bearer is free and returns the parsed response.
    public func request<Request: ATTRequestPDU>(_ request: Request) async throws(ATTError) -> Request.Response {
        let bytes = try await transact(Request.opcode, request.encode())
        do {
            return try Request.Response(bytes: bytes)
        } catch {
            throw .malformedResponse(request: Request.opcode, error)
        }
    }

    /// Sends a PDU that gets no response (Write Command), without waiting for the request slot.
    public func send(command: some ATTPDU) async throws(ATTError) {
        if let closedBecause { throw closedBecause }
        do {
            try await channel.send(command.encode())
        } catch {
            throw shutDown(.disconnected(reason: "sending \(type(of: command).opcode) failed: \(error)"))
        }
    }

    /// Offers `preferredMTU` to the device; the smaller of the two (never below 23) is then in force.
    @discardableResult
    public func exchangeMTU() async throws(ATTError) -> UInt16 {
        let response = try await request(ATTExchangeMTURequest(clientMTU: preferredMTU))
        mtu = max(Self.defaultMTU, min(preferredMTU, response.serverMTU))
        return mtu
    }

    /// Closes the channel; everything waiting fails with `disconnected`.
    public func close() async {
        shutDown(.disconnected(reason: "closed by the gateway"))
        await channel.close()
    }

    // MARK: transactions

    private func transact(_ opcode: ATTOpcode, _ pdu: [UInt8]) async throws(ATTError) -> [UInt8] {
        try await acquireSlot()
        defer { releaseSlot() }
        lastTransaction += 1
        let id = lastTransaction
        pending = Pending(id: id, request: opcode)
        defer { pending = nil }
        do {
            try await channel.send(pdu)
        } catch {
            throw shutDown(.disconnected(reason: "sending \(opcode) failed: \(error)"))
        }
        let timer = Task { [clock, transactionTimeout] in
            do { try await clock.sleep(for: transactionTimeout) } catch { return }
            self.timedOut(id)  // the task inherits the bearer's isolation
        }
        defer { timer.cancel() }
        let result = await withCheckedContinuation { continuation in
            if let result = pending?.result {
                continuation.resume(returning: result)
            } else {
                pending?.continuation = continuation
            }
        }
        switch result {
        case .success(let bytes): return bytes
        case .failure(let error): throw error
        }
    }

    private func acquireSlot() async throws(ATTError) {
        if let closedBecause { throw closedBecause }
        if busy {
            await withCheckedContinuation { waitingForSlot.append($0) }
        } else {
            busy = true
        }
        if let closedBecause {
            releaseSlot()
            throw closedBecause
        }
    }

    private func releaseSlot() {
        if waitingForSlot.isEmpty {
            busy = false
        } else {
            waitingForSlot.removeFirst().resume()
        }
    }

    private func complete(_ result: Result<[UInt8], ATTError>) {
        guard var current = pending, current.result == nil else { return }
        current.result = result
        current.continuation?.resume(returning: result)
        current.continuation = nil
        pending = current
    }

    private func timedOut(_ id: Int) {
        guard let current = pending, current.id == id, current.result == nil else { return }
        complete(.failure(.transactionTimeout(request: current.request, after: transactionTimeout)))
        shutDown(
            .disconnected(
                reason: "\(current.request) got no answer within \(transactionTimeout), and ATT allows no more "
                    + "PDUs after a timeout"))
        Task { [channel] in await channel.close() }
    }

    /// Records why the bearer ended (the first reason wins), fails everything waiting, and
    /// returns the error callers should see now.
    @discardableResult
    private func shutDown(_ error: ATTError) -> ATTError {
        if let closedBecause { return closedBecause }
        closedBecause = error
        complete(.failure(error))
        for waiter in waitingForSlot { waiter.resume() }
        waitingForSlot.removeAll()
        notificationSink.finish()
        return error
    }

    // MARK: incoming PDUs

    private func readLoop() async {
        while closedBecause == nil {
            let pdu: [UInt8]?
            do {
                pdu = try await channel.receive()
            } catch {
                shutDown(.disconnected(reason: "\(error)"))
                break
            }
            guard let pdu, let first = pdu.first else {
                shutDown(.disconnected(reason: "the device closed the link"))
                break
            }
            await handle(ATTOpcode(first), pdu)
        }
        await channel.close()
    }

    private func handle(_ opcode: ATTOpcode, _ pdu: [UInt8]) async {
        switch opcode {
        case .handleValueNotification:
            guard let notification = try? ATTHandleValueNotification(bytes: pdu) else { return ignore() }
            notificationSink.yield(notification)
        case .handleValueIndication:
            guard let indication = try? ATTHandleValueIndication(bytes: pdu) else { return ignore() }
            notificationSink.yield(ATTHandleValueNotification(handle: indication.handle, value: indication.value))
            await reply(ATTHandleValueConfirmation().encode())
        case .exchangeMTURequest:
            guard let request = try? ATTExchangeMTURequest(bytes: pdu) else {
                return await reply(ATTErrorResponse(request: opcode, handle: 0, error: .invalidPDU).encode())
            }
            mtu = max(Self.defaultMTU, min(preferredMTU, request.clientMTU))
            await reply(ATTExchangeMTUResponse(serverMTU: preferredMTU).encode())
        case _ where opcode.isResponse:
            receiveResponse(opcode, pdu)
        case _ where opcode.isCommand:
            ignore()
        default:
            if !opcode.isRequest { ignore() }
            await reply(ATTErrorResponse(request: opcode, handle: 0, error: .requestNotSupported).encode())
        }
    }

    /// Matches a response to the outstanding request; like BlueZ, a response of the wrong kind
    /// ends that request with an error rather than leaving it to time out.
    private func receiveResponse(_ opcode: ATTOpcode, _ pdu: [UInt8]) {
        guard let current = pending, current.result == nil else { return ignore() }
        if opcode == .errorResponse {
            do {
                let error = try ATTErrorResponse(bytes: pdu)
                complete(
                    .failure(
                        error.request == current.request
                            ? .errorResponse(request: error.request, handle: error.handle, code: error.error)
                            : .unexpectedResponse(request: current.request, received: opcode)))
            } catch {
                complete(.failure(.malformedResponse(request: current.request, error)))
            }
        } else if opcode == current.request.responseOpcode {
            complete(.success(pdu))
        } else {
            complete(.failure(.unexpectedResponse(request: current.request, received: opcode)))
        }
    }

    private func ignore() { ignoredPDUCount += 1 }

    private func reply(_ pdu: [UInt8]) async {
        guard closedBecause == nil else { return }
        do {
            try await channel.send(pdu)
        } catch {
            shutDown(.disconnected(reason: "answering the device failed: \(error)"))
        }
    }
}
