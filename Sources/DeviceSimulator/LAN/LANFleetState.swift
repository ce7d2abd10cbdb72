import NIOCore
import NIOPosix
import TuyaWire

/// Everything `LANSimulatorFleet` keeps on its event loop: the device hosts, the
/// solicitation listener and the pending waits. Only touched on that loop (it lives in a
/// `NIOLoopBoundBox`).
final class LANFleetState {
    var hosts: [LANDeviceHost] = []
    private let loop: any EventLoop
    private var solicitation: (any Channel)?
    private var waiters: [Int: [Waiter]] = [:]
    private var nextWaiter = 0

    private struct Waiter {
        var id: Int
        var condition: @Sendable (SimulatedLANDevice) -> Bool
        var continuation: CheckedContinuation<Bool, Never>
        var timeout: Scheduled<Void>
    }

    init(loop: any EventLoop) {
        self.loop = loop
    }

    /// After anything happened to device `index`: ends the waits it now satisfies.
    func changed(_ index: Int) {
        guard var pending = waiters[index], hosts.indices.contains(index) else { return }
        let device = hosts[index].device
        pending.removeAll { waiter in
            guard waiter.condition(device) else { return false }
            waiter.timeout.cancel()
            waiter.continuation.resume(returning: true)
            return true
        }
        waiters[index] = pending.isEmpty ? nil : pending
    }

    func wait(
        for index: Int, timeout: Duration, condition: @escaping @Sendable (SimulatedLANDevice) -> Bool,
        continuation: CheckedContinuation<Bool, Never>
    ) {
        guard hosts.indices.contains(index) else { return continuation.resume(returning: false) }
        if condition(hosts[index].device) { return continuation.resume(returning: true) }
        let id = nextWaiter
        nextWaiter += 1
        let bound = NIOLoopBound(self, eventLoop: loop)
        let components = timeout.components
        let nanoseconds = components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
        let scheduled = loop.scheduleTask(in: .nanoseconds(nanoseconds)) {
            bound.value.expire(id, index: index)
        }
        waiters[index, default: []].append(
            Waiter(id: id, condition: condition, continuation: continuation, timeout: scheduled))
    }

    private func expire(_ id: Int, index: Int) {
        guard let position = waiters[index]?.firstIndex(where: { $0.id == id }) else { return }
        waiters[index]?.remove(at: position).continuation.resume(returning: false)
    }

    /// Listens for 3.5 solicitations; each one is answered by every 3.5 device online.
    func listenForSolicitations(at address: String, port: Int, options: LANSimulatorOptions) -> EventLoopFuture<Void> {
        let bound = NIOLoopBound(self, eventLoop: loop)
        let replyPort = options.solicitationReplyPort
        let descriptor: CInt
        do {
            descriptor = try LANSocketFactory.datagram(ip: address, port: port)
        } catch {
            return loop.makeFailedFuture(error)
        }
        return DatagramBootstrap(group: loop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        LANSolicitationHandler { solicitation in
                            for host in bound.value.hosts { host.answer(solicitation, replyPort: replyPort) }
                        })
                }
            }
            .withBoundSocket(descriptor)
            .map { channel in bound.value.solicitation = channel }
    }

    /// Closes everything and ends every wait as unmet.
    func stop() {
        for host in hosts { host.stop() }
        solicitation?.close(promise: nil)
        solicitation = nil
        for waiter in waiters.values.joined() {
            waiter.timeout.cancel()
            waiter.continuation.resume(returning: false)
        }
        waiters.removeAll()
    }
}
