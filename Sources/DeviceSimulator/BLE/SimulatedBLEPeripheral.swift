import BLELink
import Synchronization
import TuyaCore

/// A simulated Tuya BLE peripheral on the device end of a byte channel: the GATT server a
/// real device runs, with the Tuya device (`SimulatedBLEDevice`) behind its write and
/// notify characteristics. The gateway's GATT client on the other end cannot tell it from
/// hardware: every byte is the real ATT and Tuya BLE protocol.
///
/// Each packet the gateway writes is handed to the device on the thread that read it, and the
/// device's answers are queued as notifications right there, as firmware answers within its
/// connection event: the simulator adds no task switch of its own to a round trip.
public actor SimulatedBLEPeripheral {
    private nonisolated let link: Link

    public init(device: SimulatedBLEDevice) {
        link = Link(device: device)
    }

    /// Serves one connection on `channel` (the device end of `SocketChannel.pair()`).
    public func accept(_ channel: any ByteChannel, layout: TuyaGATTLayout = .a201) {
        let link = link
        let connection = Link.Connection()
        let serverMTU = link.state.withLock { $0.device.options.serverMTU }
        let server = SimulatedGATTServer(channel: channel, layout: layout, serverMTU: serverMTU) { packet in
            link.received(packet, on: connection)
        }
        link.connect(connection, server: server)
    }

    /// The device drops the link (as after a repeated sn).
    public func dropLink() async {
        await link.dropLink()?.dropLink()
    }

    /// Runs the device's own timers (time requests, countdowns) up to `time`.
    public func advance(to time: Duration) async {
        link.act { $0.advance(to: time) }
    }

    public var state: DataPoints { link.state.withLock { $0.device.state } }
    public var statistics: SimulatedBLEDevice.Statistics { link.state.withLock { $0.device.statistics } }

    /// Returns once the device's statistics satisfy `condition` (checked now and after each
    /// packet the device handles), so a test waits on what the device did, never on time.
    /// Throws `CancellationError` when the waiting task is cancelled first.
    public func waitForStatistics(
        _ condition: @escaping @Sendable (SimulatedBLEDevice.Statistics) -> Bool
    ) async throws {
        let link = link
        let id = link.state.withLock { state in
            state.lastWaiterID += 1
            return state.lastWaiterID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                link.state.withLock { state in
                    if condition(state.device.statistics) {
                        continuation.resume()
                    } else if Task.isCancelled {
                        continuation.resume(throwing: CancellationError())
                    } else {
                        state.statisticsWaiters.append(.init(id: id, condition: condition, continuation: continuation))
                    }
                }
            }
        } onCancel: {
            link.state.withLock { state in
                guard let index = state.statisticsWaiters.firstIndex(where: { $0.id == id }) else { return }
                state.statisticsWaiters.remove(at: index).continuation.resume(throwing: CancellationError())
            }
        }
    }

    public func setMisbehaviour(_ misbehaviour: SimulatedBLEDevice.Misbehaviour) {
        link.state.withLock { $0.device.misbehaviour = misbehaviour }
    }
}

extension SimulatedBLEPeripheral {
    /// The device and its current connection, for the server's reader thread and the actor alike.
    fileprivate final class Link: Sendable {
        /// Tells one connection's writes from a later one's.
        final class Connection: Sendable {}

        struct StatisticsWaiter {
            let id: Int
            let condition: @Sendable (SimulatedBLEDevice.Statistics) -> Bool
            let continuation: CheckedContinuation<Void, any Error>
        }

        struct State {
            var device: SimulatedBLEDevice
            var server: SimulatedGATTServer?
            var connection: Connection?
            var statisticsWaiters: [StatisticsWaiter] = []
            var lastWaiterID = 0

            /// Resumes the waiters whose condition the statistics now meet.
            mutating func statisticsChanged() {
                let statistics = device.statistics
                statisticsWaiters.removeAll { waiter in
                    guard waiter.condition(statistics) else { return false }
                    waiter.continuation.resume()
                    return true
                }
            }
        }

        let state: Mutex<State>

        init(device: SimulatedBLEDevice) {
            state = Mutex(State(device: device))
        }

        func connect(_ connection: Connection, server: SimulatedGATTServer) {
            state.withLock { state in
                state.device.connect()
                state.server = server
                state.connection = connection
            }
        }

        /// One packet the gateway wrote on `connection`; ignored once that connection is over.
        func received(_ packet: [UInt8], on connection: Connection) {
            act { device in
                guard device.isConnected else { return [] }
                return device.receive(packet: packet)
            } while: {
                $0.connection === connection
            }
        }

        /// Runs `body` on the device and performs what it returns: notifications queued at once,
        /// a disconnect closing the link.
        func act(
            _ body: (inout SimulatedBLEDevice) -> [SimulatedBLEDevice.Action],
            while current: (State) -> Bool = { _ in true }
        ) {
            let (actions, server) = state.withLock { state -> ([SimulatedBLEDevice.Action], SimulatedGATTServer?) in
                guard current(state) else { return ([], nil) }
                defer { state.statisticsChanged() }
                return (body(&state.device), state.server)
            }
            for action in actions {
                switch action {
                case .notify(let packet):
                    _ = try? server?.notifyNow(packet)
                case .disconnect:
                    guard let server = dropLink() else { return }
                    Task { await server.dropLink() }
                    return
                }
            }
        }

        /// Ends the current connection on the device's side; returns its server to close.
        func dropLink() -> SimulatedGATTServer? {
            state.withLock { state in
                defer {
                    state.server = nil
                    state.connection = nil
                }
                state.device.linkLost()
                return state.server
            }
        }
    }
}
