import CBluetooth
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// An active LE scan on one adapter, through a raw HCI socket.
///
/// `start()` checks the adapter with `BluetoothAvailability.probe` (so a user hears which of
/// `BLEUnavailable`'s cases stopped BLE, with its fix), opens the adapter, lets only LE meta
/// events through the socket, sets an active scan (so devices send their scan responses, where
/// Tuya puts its manufacturer data) and enables it with the controller's duplicate filter off:
/// `ScanTable` deduplicates and keeps RSSI current. A thread of its own reads the socket,
/// copies each packet and yields it into a stream (INTEROP.md, C callbacks); this actor feeds
/// them to its `ScanTable` in order and publishes each update. `stop()` disables scanning
/// and closes the socket; call it before dropping the scanner, or its thread keeps reading.
public actor BLEScanner {
    /// Scan timing in units of 0.625 ms (Core Specification Vol 4 Part E §7.8.10).
    public struct Timing: Hashable, Sendable {
        public var interval: UInt16
        public var window: UInt16

        /// BlueZ's `hcitool lescan` default: 10 ms every 10 ms, i.e. listening all the time.
        public static let continuous = Timing(interval: 0x0010, window: 0x0010)

        public init(interval: UInt16, window: UInt16) {
            self.interval = interval
            self.window = window
        }
    }

    public let adapter: String
    private let timing: Timing
    private let now: @Sendable () -> Date
    private var table: ScanTable
    private var session: HCIScanSession?
    private var consumer: Task<Void, Never>?
    private var updates: AsyncStream<DiscoveredDevice>.Continuation?
    /// Counts `start()` calls, so a previous scan's consumer cannot feed the current one.
    private var generation = 0
    /// Packets the parser rejected since `start()`, and the last reason: a count that keeps
    /// climbing means a broken controller or a hostile one, not lost devices.
    public private(set) var rejectedPackets = 0
    public private(set) var lastRejection: HCIEventError?

    public init(
        adapter: String = "hci0", timing: Timing = .continuous, capacity: Int = 512,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.adapter = adapter
        self.timing = timing
        self.now = now
        table = ScanTable(capacity: capacity)
    }

    /// Every device heard so far, strongest signal first.
    public var devices: [DiscoveredDevice] { table.sorted }

    /// Starts scanning; the stream yields a device each time it is heard, and ends at `stop()`.
    /// Throws which `BLEUnavailable` case prevents it (on a kernel without Bluetooth:
    /// `.kernelWithoutBluetooth`). Starting a running scanner returns a new stream and ends
    /// the previous one.
    public func start() throws(BLEUnavailable) -> AsyncStream<DiscoveredDevice> {
        if session != nil { stopSession() }
        _ = try BluetoothAvailability.probe(adapter: adapter)
        let (packets, packetSink) = AsyncStream.makeStream(
            of: TimedPacket.self, bufferingPolicy: .bufferingNewest(1024))
        let session = try HCIScanSession.open(adapter: adapter, timing: timing)
        session.startReading(into: packetSink, now: now)
        self.session = session
        rejectedPackets = 0
        lastRejection = nil
        let (stream, continuation) = AsyncStream.makeStream(
            of: DiscoveredDevice.self, bufferingPolicy: .bufferingNewest(256))
        updates = continuation
        generation += 1
        let current = generation
        consumer = Task { [weak self] in
            for await packet in packets {
                await self?.receive(packet, generation: current)
            }
            // The reading thread ended: stop() was called, or the adapter went away.
            continuation.finish()
        }
        return stream
    }

    /// Stops the reading thread, disables scanning, closes the socket and ends the stream.
    /// The devices heard stay in `devices`.
    public func stop() async {
        guard let session else { return }
        session.stopReading()
        await consumer?.value
        // A start() while this waited has replaced the session: that one stays open.
        if self.session === session { stopSession() }
    }

    private func stopSession() {
        session?.stopReading()
        session?.close()
        session = nil
        consumer = nil
        updates?.finish()
        updates = nil
    }

    /// Packets still queued from a previous `start()` are dropped, not mixed into the new stream.
    private func receive(_ packet: TimedPacket, generation: Int) {
        guard generation == self.generation else { return }
        for event in table.receive(packet: packet.bytes, at: packet.time) {
            switch event {
            case .seen(let device, _): updates?.yield(device)
            case .rejected(let error):
                rejectedPackets += 1
                lastRejection = error
            }
        }
    }
}

/// One packet as read from the socket, copied out of the read buffer, with when it arrived.
struct TimedPacket: Sendable {
    var bytes: [UInt8]
    var time: Date
}

/// The system calls of a scan, kept apart from the logic: open and configure the adapter,
/// read packets on a thread, undo everything on close.
///
/// Only file descriptors (plain integers) cross threads. The reading thread is the only one
/// that reads `fd` until `stopReading()` has made it exit; `close()` runs after that.
final class HCIScanSession: Sendable {
    let fd: Int32
    let adapter: String
    /// The socket pair `stopReading()` writes to, waking the reading thread out of `poll`.
    private let wake: (read: Int32, write: Int32)
    private let finished = DispatchSemaphore(value: 0)
    /// The command set the scan was enabled with: it is disabled in the same one.
    let commands: ScanCommandSet

    /// How long libbluetooth waits for the controller's answer to a command, in ms.
    private static let commandTimeout: Int32 = 10_000

    private init(fd: Int32, adapter: String, wake: (Int32, Int32), commands: ScanCommandSet) {
        self.fd = fd
        self.adapter = adapter
        self.wake = wake
        self.commands = commands
    }

    static func open(adapter: String, timing: BLEScanner.Timing) throws(BLEUnavailable) -> HCIScanSession {
        guard let number = BluetoothAvailability.adapterNumber(adapter) else { throw .noAdapter(adapter) }
        let fd = hci_open_dev(Int32(number))
        guard fd >= 0 else { throw failure(errno, .openAdapter, adapter) }
        // A socket pair, not pipe2 (which Glibc's module does not export): close-on-exec at creation.
        var pipeFDs: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pipeFDs) == 0 else {
            let code = errno
            hci_close_dev(fd)
            throw .other(errno: code, text: "socketpair for the scan of \(adapter) failed")
        }
        let send = { (command: any HCICommand) in Self.send(command, on: fd, timeout: commandTimeout) }
        do throws(BLEUnavailable) {
            let commands = try ScanCommandSequence.start(
                HCIScanSettings(active: true, interval: timing.interval, window: timing.window), adapter: adapter,
                send: send,
                installFilter: { () throws(BLEUnavailable) in
                    // libbluetooth's command calls install and restore their own filter, so ours
                    // goes on after them, and before enabling so that no report is missed.
                    var filter = hci_filter()
                    hci_filter_clear(&filter)
                    hci_filter_set_ptype(HCI_EVENT_PKT, &filter)
                    hci_filter_set_event(EVT_LE_META_EVENT, &filter)
                    guard setsockopt(fd, SOL_HCI, HCI_FILTER, &filter, socklen_t(MemoryLayout<hci_filter>.size)) == 0
                    else { throw failure(errno, .setScanFilter, adapter) }
                },
                failure: { code, step in failure(code, step, adapter) })
            return HCIScanSession(fd: fd, adapter: adapter, wake: (pipeFDs[0], pipeFDs[1]), commands: commands)
        } catch {
            closeDescriptors(fd: fd, wake: (pipeFDs[0], pipeFDs[1]))
            throw error
        }
    }

    /// Sends one command with libbluetooth's `hci_send_req`, which waits for its Command
    /// Complete and hands back the status byte (its own helpers fold every refusal into EIO).
    static func send(_ command: any HCICommand, on fd: Int32, timeout: Int32) -> HCICommandOutcome {
        let opcode = type(of: command).opcode
        var parameters = command.parameters
        var status: UInt8 = 0xFF
        let result = parameters.withUnsafeMutableBytes { cparam in
            withUnsafeMutablePointer(to: &status) { rparam in
                var request = hci_request()
                request.ogf = opcode.group
                request.ocf = opcode.command
                request.cparam = cparam.baseAddress
                request.clen = Int32(cparam.count)
                request.rparam = UnsafeMutableRawPointer(rparam)
                request.rlen = 1
                return hci_send_req(fd, &request, timeout)
            }
        }
        return result < 0 ? .failed(errno: errno) : .status(HCIErrorCode(rawValue: status))
    }

    /// Starts the thread that reads packets until `stopReading()`, then finishes `sink`.
    func startReading(into sink: AsyncStream<TimedPacket>.Continuation, now: @escaping @Sendable () -> Date) {
        let (fd, wakeFD, finished) = (fd, wake.read, finished)
        let thread = Thread {
            nameCurrentThread("youll-ble-scan")
            Self.readLoop(fd: fd, wakeFD: wakeFD, sink: sink, now: now)
            sink.finish()
            finished.signal()
        }
        thread.start()
    }

    /// Wakes the reading thread and waits until it has stopped touching `fd`. Idempotent.
    func stopReading() {
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
        finished.wait()
        finished.signal()  // a second call returns at once
    }

    /// Disables scanning (ignoring the answer: the adapter may be gone) and closes everything.
    func close() {
        let fd = fd
        ScanCommandSequence.stop(commands) { Self.send($0, on: fd, timeout: 1_000) }
        Self.closeDescriptors(fd: fd, wake: wake)
    }

    private static func closeDescriptors(fd: Int32, wake: (read: Int32, write: Int32)) {
        hci_close_dev(fd)
        Glibc.close(wake.read)
        Glibc.close(wake.write)
    }

    private static func readLoop(
        fd: Int32, wakeFD: Int32, sink: AsyncStream<TimedPacket>.Continuation, now: @Sendable () -> Date
    ) {
        var buffer = [UInt8](repeating: 0, count: Int(HCI_MAX_EVENT_SIZE))
        var polled = [
            pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            let ready = poll(&polled, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if polled[1].revents != 0 { return }
            if polled[0].revents & Int16(POLLIN) == 0 {
                // POLLERR/POLLHUP: the adapter went away.
                if polled[0].revents != 0 { return }
                continue
            }
            let count = read(fd, &buffer, buffer.count)
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return
            }
            guard count > 0 else { return }
            sink.yield(TimedPacket(bytes: Array(buffer[0..<count]), time: now()))
        }
    }

    private static func failure(_ code: Int32, _ step: BLEUnavailable.Step, _ adapter: String) -> BLEUnavailable {
        BluetoothAvailability.failure(code, during: step, adapter: adapter)
    }
}
