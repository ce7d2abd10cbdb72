/// The client side of an ATT bearer over a `ByteChannel` (Core spec Vol 3 Part F §3.3).
///
/// - One request at a time: ATT allows a single outstanding request per bearer, so concurrent
///   callers queue in arrival order. Commands (Write Command) bypass the queue, as ATT allows;
///   `enqueue(command:)` queues one without waiting, behind every earlier one.
/// - A response must carry the opcode after the request's; an Error Response for that request
///   becomes `ATTError.errorResponse` naming opcode, handle and code.
/// - Each request has a transaction timeout (30 s, ATT's value) on the injected clock. After a
///   timeout ATT forbids further PDUs, so the bearer closes the channel.
/// - Notifications (and indications, which are confirmed at once) go to `notifications`, for
///   one consumer, or to the `NotificationSink` the bearer was made with.
/// - The device may send requests to the gateway's own (empty) GATT server: Exchange MTU is
///   answered, every other request gets "Request Not Supported", as the spec requires. A device
///   left waiting would hit its own 30 s timeout and drop the link.
/// - Garbage is counted in `ignoredPDUCount` and dropped, not fatal: unknown opcodes, commands
///   this side does not implement, malformed notifications, and responses that arrive when no
///   request waits. (BlueZ drops the link on the last kind; this bearer keeps it, because the
///   Tuya session above has its own response timeout and a reconnect costs seconds.)
/// - End-of-file or a socket error ends everything: the outstanding and queued requests fail,
///   later calls fail, with `ATTError.disconnected`, and `notifications` finishes.
///
/// Over an `ImmediateByteChannel` (a `SocketChannel`) notifications and indications are handled
/// on the channel's reader thread and commands are queued straight on the channel, so a Tuya
/// packet crosses the bearer without a task switch; everything else is handled on the actor, in
/// arrival order. Other channels are read by a task on the actor and written by one task.
public actor ATTBearer {
    /// The LE default ATT_MTU, which both sides use until an MTU exchange.
    public static let defaultMTU: UInt16 = 23
    /// ATT's transaction timeout.
    public static let defaultTransactionTimeout: Duration = .seconds(30)

    /// Where notifications go instead of `notifications`: `notify` in arrival order (on the
    /// thread that read them, so it must not block), then `finish` once when the bearer closes.
    public struct NotificationSink: Sendable {
        public var notify: @Sendable (ATTHandleValueNotification) -> Void
        public var finish: @Sendable () -> Void

        public init(
            notify: @escaping @Sendable (ATTHandleValueNotification) -> Void, finish: @escaping @Sendable () -> Void
        ) {
            self.notify = notify
            self.finish = finish
        }
    }

    /// Handle Value Notifications and Indications from the device, in arrival order. Finishes
    /// when the bearer closes, or at once for a bearer made with a `NotificationSink`.
    public nonisolated let notifications: AsyncStream<ATTHandleValueNotification>

    /// The ATT_MTU in force: 23 until an Exchange MTU in either direction agrees on more.
    public var mtu: UInt16 { shared.mtu }
    /// `mtu`, for callers off the actor.
    public nonisolated var negotiatedMTU: UInt16 { shared.mtu }
    /// PDUs dropped as garbage (see the type's documentation).
    public internal(set) var ignoredPDUCount = 0

    struct Pending {
        let id: Int
        let request: ATTOpcode
        var result: Result<[UInt8], ATTError>?
        var continuation: CheckedContinuation<Result<[UInt8], ATTError>, Never>?
    }

    let channel: any ByteChannel
    nonisolated let immediate: (any ImmediateByteChannel)?
    private let clock: any Clock<Duration>
    private let transactionTimeout: Duration
    let preferredMTU: UInt16
    nonisolated let sink: NotificationSink
    nonisolated let shared = ATTBearerState()
    /// Commands for the writer task, over a channel that cannot queue them itself.
    private nonisolated let commands: AsyncStream<[UInt8]>.Continuation?
    private var busy = false
    private var waitingForSlot: [CheckedContinuation<Void, Never>] = []
    var pending: Pending?
    private var lastTransaction = 0

    /// Starts reading `channel` at once. `preferredMTU` is what this side offers in an MTU
    /// exchange, in either direction (23 unless asked for more; `GATTTuyaTransport` asks for
    /// 247, so a device whose firmware takes longer packets gets a Tuya frame in fewer writes).
    public init(
        channel: any ByteChannel, clock: any Clock<Duration> = ContinuousClock(),
        transactionTimeout: Duration = ATTBearer.defaultTransactionTimeout, preferredMTU: UInt16 = ATTBearer.defaultMTU
    ) {
        self.init(
            channel: channel, clock: clock, transactionTimeout: transactionTimeout, preferredMTU: preferredMTU,
            sink: nil)
    }

    /// Like `init(channel:clock:transactionTimeout:preferredMTU:)`, handing notifications to
    /// `notificationSink` (with no task in between) instead of the `notifications` stream.
    public init(
        channel: any ByteChannel, clock: any Clock<Duration> = ContinuousClock(),
        transactionTimeout: Duration = ATTBearer.defaultTransactionTimeout, preferredMTU: UInt16 = ATTBearer.defaultMTU,
        notificationSink: NotificationSink
    ) {
        self.init(
            channel: channel, clock: clock, transactionTimeout: transactionTimeout, preferredMTU: preferredMTU,
            sink: notificationSink)
    }

    private init(
        channel: any ByteChannel, clock: any Clock<Duration>, transactionTimeout: Duration, preferredMTU: UInt16,
        sink: NotificationSink?
    ) {
        self.channel = channel
        self.clock = clock
        self.transactionTimeout = transactionTimeout
        self.preferredMTU = max(preferredMTU, Self.defaultMTU)
        let (stream, continuation) = AsyncStream.makeStream(of: ATTHandleValueNotification.self)
        notifications = stream
        if let sink {
            self.sink = sink
            continuation.finish()
        } else {
            self.sink = NotificationSink(notify: { continuation.yield($0) }, finish: { continuation.finish() })
        }
        immediate = channel as? any ImmediateByteChannel
        if let immediate {
            commands = nil
            let inbound = Self.deliverImmediately(from: immediate, sink: self.sink, shared: shared)
            Task { await self.serve(inbound) }
        } else {
            let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self)
            commands = continuation
            Task { await self.readLoop() }
            Task { await self.writeCommands(stream) }
        }
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
    public nonisolated func send(command: some ATTPDU) async throws(ATTError) {
        if let closed = shared.closedBecause { throw closed }
        do {
            try await channel.send(command.encode())
        } catch {
            throw await shutDown(.disconnected(reason: "sending \(type(of: command).opcode) failed: \(error)"))
        }
    }

    /// Queues a PDU that gets no response (Write Command) behind every earlier one and returns
    /// without waiting for it to leave. A PDU that cannot leave closes the bearer.
    public nonisolated func enqueue(command: some ATTPDU) throws(ATTError) {
        if let closed = shared.closedBecause { throw closed }
        guard let immediate else {
            commands?.yield(command.encode())
            return
        }
        do {
            try immediate.enqueue(command.encode())
        } catch {
            let failure = ATTError.disconnected(reason: "sending \(type(of: command).opcode) failed: \(error)")
            Task { await self.shutDown(failure) }
            throw failure
        }
    }

    /// Offers `preferredMTU` to the device; the smaller of the two (never below 23, Core spec
    /// Vol 3 Part F §3.4.2) is then in force and returned. A device that refuses the exchange
    /// with an Error Response (a server without it answers Request Not Supported) keeps the
    /// link at 23. A lost link or a timeout still throws.
    @discardableResult
    public func exchangeMTU() async throws(ATTError) -> UInt16 {
        let serverMTU: UInt16
        do {
            serverMTU = try await request(ATTExchangeMTURequest(clientMTU: preferredMTU)).serverMTU
        } catch .errorResponse(request: .exchangeMTURequest, _, _) {
            return shared.mtu
        }
        let agreed = Self.agreedMTU(preferredMTU, serverMTU)
        shared.mtu = agreed
        return agreed
    }

    /// The ATT_MTU both sides use after an exchange: the smaller of the two offers, never below
    /// the LE default of 23 (Vol 3 Part F §3.4.2); the simulated server applies it too.
    public static func agreedMTU(_ ours: UInt16, _ theirs: UInt16) -> UInt16 {
        max(defaultMTU, min(ours, theirs))
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
        if let closed = shared.closedBecause { throw closed }
        if busy {
            await withCheckedContinuation { waitingForSlot.append($0) }
        } else {
            busy = true
        }
        if let closed = shared.closedBecause {
            releaseSlot()
            throw closed
        }
    }

    private func releaseSlot() {
        if waitingForSlot.isEmpty {
            busy = false
        } else {
            waitingForSlot.removeFirst().resume()
        }
    }

    func complete(_ result: Result<[UInt8], ATTError>) {
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
    func shutDown(_ error: ATTError) -> ATTError {
        if let first = shared.close(because: error) { return first }
        complete(.failure(error))
        for waiter in waitingForSlot { waiter.resume() }
        waitingForSlot.removeAll()
        sink.finish()
        commands?.finish()
        return error
    }

    /// The writer task of a channel that cannot queue commands itself: one at a time, in order.
    private func writeCommands(_ stream: AsyncStream<[UInt8]>) async {
        for await pdu in stream {
            do {
                try await channel.send(pdu)
            } catch {
                shutDown(.disconnected(reason: "sending \(ATTOpcode(pdu[0])) failed: \(error)"))
                return
            }
        }
    }
}
