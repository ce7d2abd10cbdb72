/// A userspace HCI host on one controller, over an `HCIByteStream`: the thin actor around
/// `HCIHostCore`. It reads the stream and feeds the core, writes the packets the core produces
/// (in order, through one writer task), runs the core's timers on the injected clock, and turns
/// the core's results into answers to the callers waiting on them.
///
/// `open` returns once the controller is initialized. `connect` gives an `HCIATTChannel` per
/// device for `ATTBearer`/`GATTClient`; `advertisingReports()` scans while anyone listens. When
/// the controller goes away every caller hears why, once, and the host stays failed: open a
/// new one.
public actor HCIHost {
    public nonisolated let transportName: String
    public private(set) var controller: HCIControllerInfo?
    /// Things dropped while carrying on (malformed adverts, stray fragments), and the last one.
    public private(set) var problemCount = 0
    public private(set) var lastProblem: String?

    private var core: HCIHostCore
    private let stream: any HCIByteStream
    private let clock: any Clock<Duration>
    private let outbox: AsyncStream<[UInt8]>.Continuation
    private var timers: [HCIHostCore.Timer: Task<Void, Never>] = [:]
    private var nextOperation = 0
    private var ready: CheckedContinuation<Result<HCIControllerInfo, HCIHostError>, Never>?
    private var completions: [Int: CheckedContinuation<HCIHostError?, Never>] = [:]
    private var connects: [Int: CheckedContinuation<Result<HCIATTChannel, HCIHostError>, Never>] = [:]
    private var channels: [UInt16: HCIATTChannel] = [:]
    private var listeners: [Int: AsyncStream<AdvertisingReport>.Continuation] = [:]
    private var scan = ScanSchedule()

    private init(stream: any HCIByteStream, configuration: HCIHostCore.Configuration, clock: any Clock<Duration>) {
        self.stream = stream
        self.clock = clock
        transportName = stream.name
        core = HCIHostCore(configuration: configuration)
        let (packets, outbox) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .unbounded)
        self.outbox = outbox
        Task { [stream] in
            for await bytes in packets {
                do { try await stream.write(bytes) } catch {
                    await self.streamEnded("writing to \(stream.name) failed: \(error)")
                    return
                }
            }
        }
    }

    /// Opens a host on `stream` and initializes the controller; throws why it could not.
    public static func open(
        _ stream: any HCIByteStream, configuration: HCIHostCore.Configuration = .init(),
        clock: any Clock<Duration> = ContinuousClock()
    ) async throws(HCIHostError) -> HCIHost {
        let host = HCIHost(stream: stream, configuration: configuration, clock: clock)
        try await host.initialize()
        return host
    }

    /// Why the host stopped working, once it has.
    public var failure: HCIHostError? { core.failure }

    /// Handles of the connections up now.
    public var connectedHandles: [UInt16] { core.connectedHandles }

    private func initialize() async throws(HCIHostError) {
        Task { await self.readLoop() }
        let result = await withCheckedContinuation { continuation in
            ready = continuation
            perform(core.start())
        }
        controller = try result.get()
    }

    // MARK: connections

    /// Connects to `address`; the channel carries ATT. Cancelling the calling task cancels the
    /// attempt.
    public func connect(
        to address: String, addressType: BluetoothAddressType, timeout: Duration = .seconds(10)
    ) async throws(HCIHostError) -> HCIATTChannel {
        let operation = newOperation()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                connects[operation] = continuation
                perform(
                    core.connect(operation: operation, address: address, addressType: addressType, timeout: timeout))
                if Task.isCancelled { perform(core.cancelConnect(operation: operation)) }
            }
        } onCancel: {
            Task { await self.cancelConnect(operation) }
        }
        return try result.get()
    }

    private func cancelConnect(_ operation: Int) {
        perform(core.cancelConnect(operation: operation))
    }

    /// Ends `link`, unless it is gone already (its handle may be another device's by now),
    /// and returns once the controller reports it gone.
    func disconnect(_ link: HCIHostCore.Link, reason: HCIErrorCode = .remoteUserTerminatedConnection) async {
        let operation = newOperation()
        _ = await withCheckedContinuation { continuation in
            completions[operation] = continuation
            perform(core.disconnect(operation: operation, handle: link.handle, serial: link.serial, reason: reason))
        }
    }

    func send(_ pdu: [UInt8], on link: HCIHostCore.Link) async throws(HCIHostError) {
        let operation = newOperation()
        let error = await withCheckedContinuation { continuation in
            completions[operation] = continuation
            perform(core.sendATT(operation: operation, handle: link.handle, serial: link.serial, pdu: pdu))
        }
        if let error { throw error }
    }

    // MARK: scanning

    /// Advertising reports while the stream is consumed: scanning runs while at least one
    /// stream is open. Throws when the controller cannot scan.
    public func advertisingReports() async throws(HCIHostError) -> AsyncStream<AdvertisingReport> {
        let id = newOperation()
        let (stream, continuation) = AsyncStream.makeStream(
            of: AdvertisingReport.self, bufferingPolicy: .bufferingNewest(1024))
        listeners[id] = continuation
        continuation.onTermination = { _ in Task { await self.stopListening(id) } }
        if let error = await reconcileScan() {
            listeners.removeValue(forKey: id)?.finish()
            throw error
        }
        return stream
    }

    private func stopListening(_ id: Int) async {
        guard listeners.removeValue(forKey: id) != nil else { return }
        _ = await reconcileScan()
    }

    /// Turns scanning on or off until it matches whether anyone listens; one change at a time.
    private func reconcileScan() async -> HCIHostError? {
        while scan.isOn != !listeners.isEmpty {
            if scan.isChanging {
                await withCheckedContinuation { scan.waiters.append($0) }
                continue
            }
            scan.isChanging = true
            let enable = !listeners.isEmpty
            let operation = newOperation()
            let error = await withCheckedContinuation { continuation in
                completions[operation] = continuation
                perform(enable ? core.startScan(operation: operation) : core.stopScan(operation: operation))
            }
            scan.isChanging = false
            for waiter in scan.waiters { waiter.resume() }
            scan.waiters = []
            if let error { return error }
            scan.isOn = enable
        }
        return nil
    }

    // MARK: closing

    /// Disconnects everything and closes the stream.
    public func close() async {
        perform(core.close())
    }

    // MARK: the core's actions

    private func readLoop() async {
        while core.failure == nil {
            do {
                guard let bytes = try await stream.read() else {
                    return streamEnded("\(stream.name) closed the connection")
                }
                perform(core.receive(bytes: bytes))
            } catch {
                return streamEnded("reading \(stream.name) failed: \(error)")
            }
        }
    }

    private func streamEnded(_ reason: String) {
        perform(core.transportClosed(reason))
    }

    private func timerFired(_ timer: HCIHostCore.Timer) {
        timers[timer] = nil
        perform(core.timerFired(timer))
    }

    private func newOperation() -> Int {
        nextOperation += 1
        return nextOperation
    }

    private func perform(_ actions: [HCIHostCore.Action]) {
        for action in actions {
            switch action {
            case .send(let packet):
                outbox.yield(packet.encoded)
            case .startTimer(let timer, let duration):
                timers[timer]?.cancel()
                timers[timer] = Task { [clock] in
                    do { try await clock.sleep(for: duration) } catch { return }
                    self.timerFired(timer)
                }
            case .cancelTimer(let timer):
                timers.removeValue(forKey: timer)?.cancel()
            case .ready(let info):
                ready?.resume(returning: .success(info))
                ready = nil
            case .completed(let operation, let error):
                completions.removeValue(forKey: operation)?.resume(returning: error)
            case .sendFailed(let operation, let error):
                completions.removeValue(forKey: operation)?.resume(returning: error)
            case .sent(let operation):
                completions.removeValue(forKey: operation)?.resume(returning: nil)
            case .connected(let operation, let link):
                let channel = HCIATTChannel(host: self, link: link)
                channels[link.handle] = channel
                connects.removeValue(forKey: operation)?.resume(returning: .success(channel))
            case .connectFailed(let operation, let error):
                connects.removeValue(forKey: operation)?.resume(returning: .failure(error))
            case .advertisingReports(let reports):
                for listener in listeners.values { reports.forEach { listener.yield($0) } }
            case .attPDU(let handle, let pdu):
                channels[handle]?.deliver(pdu)
            case .disconnected(let handle, let error):
                channels.removeValue(forKey: handle)?.end(error)
            case .problem(let text):
                problemCount += 1
                lastProblem = text
            case .failed(let error):
                shutDown(error)
            }
        }
    }

    private func shutDown(_ error: HCIHostError) {
        ready?.resume(returning: .failure(error))
        ready = nil
        for timer in timers.values { timer.cancel() }
        timers = [:]
        for listener in listeners.values { listener.finish() }
        listeners = [:]
        for waiter in scan.waiters { waiter.resume() }
        scan = ScanSchedule()
        // The core answered every operation it knew of; these are belt and braces.
        for waiter in completions.values { waiter.resume(returning: error) }
        completions = [:]
        for waiter in connects.values { waiter.resume(returning: .failure(error)) }
        connects = [:]
        for channel in channels.values { channel.end(error) }
        channels = [:]
        outbox.finish()
        Task { [stream] in await stream.close() }
    }
}

/// Whether the host scans, and who waits while it changes.
private struct ScanSchedule {
    var isOn = false
    var isChanging = false
    var waiters: [CheckedContinuation<Void, Never>] = []
}
