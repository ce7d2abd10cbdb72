import NIOCore
import NIOPosix
import TuyaWire

/// Puts one `SimulatedLANDevice` on the network: a TCP listener at its own address, the
/// client connection, a UDP socket at the same address for its announcements, and the
/// model's timer. Performs the device's actions. Confined to the fleet's event loop
/// (every call comes from it), so it needs no lock.
final class LANDeviceHost {
    private(set) var device: SimulatedLANDevice
    private let loop: any EventLoop
    private let options: LANSimulatorOptions
    private let origin: ContinuousClock.Instant
    /// Called after anything happened to the device, so the fleet can check its waiters.
    private let onChange: () -> Void
    private var listener: (any Channel)?
    private var connection: (any Channel)?
    private var datagram: (any Channel)?
    private var timer: Scheduled<Void>?
    private var broadcasts: RepeatedTask?
    /// Counts address changes and outages, so a bind that finishes late is dropped.
    private var generation = 0
    /// The latest bind of the listener, so the fleet can wait until a device listens again.
    private(set) var listening: EventLoopFuture<Void>?

    init(
        device: SimulatedLANDevice, loop: any EventLoop, options: LANSimulatorOptions,
        origin: ContinuousClock.Instant, onChange: @escaping () -> Void
    ) {
        self.device = device
        self.loop = loop
        self.options = options
        self.origin = origin
        self.onChange = onChange
    }

    var elapsed: Duration { ContinuousClock.now - origin }

    /// Listens and starts announcing; the future fails when the address is taken.
    func start() -> EventLoopFuture<Void> {
        let listening = listen()
        startAnnouncing()
        rescheduleTimer()
        return listening
    }

    /// Closes everything for good.
    func stop() {
        generation += 1
        timer?.cancel()
        broadcasts?.cancel()
        closeSockets()
    }

    // MARK: - What the fleet asks

    func update(_ body: (inout SimulatedLANDevice, Duration) -> [SimulatedLANDevice.Action]) {
        perform(body(&device, elapsed))
    }

    func move(to ip: String) {
        device.move(to: ip)
        generation += 1
        closeSockets()
        if device.isOnline {
            _ = listen()
            announce()
        }
        onChange()
    }

    /// Sends the device's announcement to `address` (an answer to a solicitation).
    func answer(_ solicitation: LANSolicitation, replyPort: Int) {
        guard let datagram = device.answer(solicitation),
            let address = try? SocketAddress(ipAddress: solicitation.ip, port: replyPort)
        else { return }
        send(datagram, to: address)
    }

    // MARK: - Connections (from LANConnectionHandler)

    func accepted(_ channel: any Channel) {
        let (accepted, actions) = device.accept(at: elapsed)
        if accepted {
            connection = channel
        } else {
            Self.hangUp(channel)
        }
        perform(actions)
    }

    func received(_ bytes: [UInt8], from channel: any Channel) {
        guard channel === connection else { return }
        perform(device.receive(bytes, at: elapsed))
    }

    func closed(_ channel: any Channel) {
        guard channel === connection else { return }
        connection = nil
        device.connectionClosed()
        onChange()
    }

    // MARK: - Actions

    /// The frames of one turn (an ack and the STATUS push) go out in one flush: one write
    /// for the socket, one read for the client.
    private func perform(_ actions: [SimulatedLANDevice.Action]) {
        for action in actions {
            switch action {
            case .send(let bytes):
                connection?.write(ByteBuffer(bytes: bytes), promise: nil)
            case .closeConnection:
                connection?.flush()
                connection.map(Self.hangUp)
                connection = nil
            case .goDark:
                connection?.flush()
                generation += 1
                closeSockets()
            case .comeBack:
                _ = listen()
                announce()
            }
        }
        connection?.flush()
        rescheduleTimer()
        onChange()
    }

    private func rescheduleTimer() {
        timer?.cancel()
        timer = nil
        guard let deadline = device.nextDeadline else { return }
        let wait = max(deadline - elapsed, .zero)
        let components = wait.components
        let nanoseconds = components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
        let bound = NIOLoopBound(self, eventLoop: loop)
        timer = loop.scheduleTask(in: .nanoseconds(nanoseconds + 1)) {
            let host = bound.value
            host.timer = nil
            host.perform(host.device.advance(to: host.elapsed))
        }
    }

    private func closeSockets() {
        listener?.close(promise: nil)
        listener = nil
        connection.map(Self.hangUp)
        connection = nil
        device.connectionClosed()
        datagram?.close(promise: nil)
        datagram = nil
    }

    // MARK: - Sockets

    /// Sends FIN before closing: the client sees the hang-up even when a child process
    /// of the test run inherited the connection's descriptor (SwiftNIO's accepted
    /// sockets are not close-on-exec).
    static func hangUp(_ channel: any Channel) {
        channel.close(mode: .output, promise: nil)
        channel.close(promise: nil)
    }

    private func listen() -> EventLoopFuture<Void> {
        let bound = NIOLoopBound(self, eventLoop: loop)
        let generation = generation
        let address = device.ip
        let port = options.port
        let descriptor: CInt
        do {
            descriptor = try LANSocketFactory.listener(ip: address, port: port)
        } catch {
            let failed: EventLoopFuture<Void> = loop.makeFailedFuture(error)
            listening = failed
            return failed
        }
        let future = ServerBootstrap(group: loop)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(LANConnectionHandler(host: bound.value))
                }
            }
            .withBoundSocket(descriptor)
            .map { channel in
                let host = bound.value
                guard host.generation == generation, host.device.isOnline else {
                    channel.close(promise: nil)
                    return
                }
                host.listener = channel
            }
        listening = future
        return future
    }

    private func startAnnouncing() {
        let bound = NIOLoopBound(self, eventLoop: loop)
        announce()
        guard let interval = options.broadcastInterval, interval > .zero else { return }
        let components = interval.components
        let nanoseconds = components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
        broadcasts = loop.scheduleRepeatedTask(
            initialDelay: .nanoseconds(nanoseconds), delay: .nanoseconds(nanoseconds)
        ) { _ in
            bound.value.announce()
        }
    }

    /// Broadcasts one announcement to the discovery port of this version's form.
    private func announce() {
        guard let datagram = device.announcement() else { return }
        let format = LANDiscovery.Format(version: device.version)
        let port = format == .plaintext ? options.plaintextDiscoveryPort : options.discoveryPort
        guard let address = try? SocketAddress(ipAddress: options.discoveryAddress, port: port) else { return }
        send(datagram, to: address)
    }

    private func send(_ bytes: [UInt8], to address: SocketAddress) {
        if let datagram {
            datagram.writeAndFlush(
                AddressedEnvelope(remoteAddress: address, data: ByteBuffer(bytes: bytes)), promise: nil)
            return
        }
        // The first datagram opens the device's UDP socket at its own address.
        let bound = NIOLoopBound(self, eventLoop: loop)
        let generation = generation
        guard let descriptor = try? LANSocketFactory.datagram(ip: device.ip, port: 0) else { return }
        DatagramBootstrap(group: loop)
            .withBoundSocket(descriptor)
            .whenSuccess { channel in
                let host = bound.value
                guard host.generation == generation, host.datagram == nil else {
                    channel.close(promise: nil)
                    return
                }
                host.datagram = channel
                channel.writeAndFlush(
                    AddressedEnvelope(remoteAddress: address, data: ByteBuffer(bytes: bytes)), promise: nil)
            }
    }
}
