import DeviceSimulator
import Synchronization
import TuyaController

/// A `TuyaBLETransport` that joins a device link to a `SimulatedBLEDevice` core in
/// memory: each written packet goes straight into the device, each notification straight
/// into the link's packet stream. No socket, no GATT; the device core is the real one.
final class InMemoryBLETransport: TuyaBLETransport {
    struct ConnectRefused: Error, CustomStringConvertible {
        var description: String { "simulated connect failure (out of range)" }
    }

    private struct State {
        var device: SimulatedBLEDevice
        var isConnected = false
        var continuation: AsyncStream<[UInt8]>.Continuation?
        var connects = 0
        var failingConnects = 0
        var watchers:
            [(predicate: @Sendable (SimulatedBLEDevice) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state: Mutex<State>

    init(device: SimulatedBLEDevice) {
        state = Mutex(State(device: device))
    }

    // MARK: - TuyaBLETransport

    func connect() async throws {
        try state.withLock { state in
            guard state.failingConnects == 0 else {
                state.failingConnects -= 1
                throw ConnectRefused()
            }
            state.connects += 1
            state.isConnected = true
            state.device.connect()
        }
    }

    func packets() -> AsyncStream<[UInt8]> {
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .unbounded)
        state.withLock { state in
            state.continuation?.finish()
            state.continuation = continuation
            if !state.isConnected { continuation.finish() }
        }
        return stream
    }

    func write(_ packets: [[UInt8]]) {
        let ready = state.withLock { state in
            for packet in packets where state.isConnected {
                let actions = state.device.receive(packet: packet)
                Self.perform(actions, on: &state)
            }
            return Self.takeSatisfied(&state)
        }
        for waiter in ready { waiter.resume() }
    }

    func disconnect() async {
        let ready = state.withLock { state in
            if state.isConnected { state.device.linkLost() }
            state.isConnected = false
            state.continuation?.finish()
            state.continuation = nil
            return Self.takeSatisfied(&state)
        }
        for waiter in ready { waiter.resume() }
    }

    // MARK: - Test controls

    var isConnected: Bool { state.withLock { $0.isConnected } }
    var connects: Int { state.withLock { $0.connects } }
    var device: SimulatedBLEDevice { state.withLock { $0.device } }

    /// The next `count` connects fail.
    func failConnects(_ count: Int) {
        state.withLock { $0.failingConnects = count }
    }

    /// Lets the device act on its own (drop the link, advance its clock, change its misbehaviour).
    func deviceActs(_ body: (inout SimulatedBLEDevice) -> [SimulatedBLEDevice.Action]) {
        let ready = state.withLock { state in
            Self.perform(body(&state.device), on: &state)
            return Self.takeSatisfied(&state)
        }
        for waiter in ready { waiter.resume() }
    }

    /// Returns once the device satisfies `predicate` (checked after every write, device
    /// action and disconnect).
    func waitUntil(_ predicate: @escaping @Sendable (SimulatedBLEDevice) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state in
                if predicate(state.device) { return true }
                state.watchers.append((predicate, continuation))
                return false
            }
            if done { continuation.resume() }
        }
    }

    private static func perform(_ actions: [SimulatedBLEDevice.Action], on state: inout State) {
        for action in actions {
            switch action {
            case .notify(let packet):
                if state.isConnected { state.continuation?.yield(packet) }
            case .disconnect:
                state.isConnected = false
                state.continuation?.finish()
                state.continuation = nil
            }
        }
    }

    private static func takeSatisfied(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        let device = state.device
        let ready = state.watchers.filter { $0.predicate(device) }.map(\.continuation)
        state.watchers.removeAll { $0.predicate(device) }
        return ready
    }
}
