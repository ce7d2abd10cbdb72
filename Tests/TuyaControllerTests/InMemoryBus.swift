import Synchronization
import TuyaController

/// A `DeviceBus` without a broker: publishes to `smart/device/in/<id>` reach the attached
/// fake devices at once and their answers come back as messages, so controller logic is
/// tested deterministically with a manual clock.
final class InMemoryBus: DeviceBus {
    private struct State {
        var devices: [String: FakeTuyaDevice] = [:]
        var connected = false
        var published: [(topic: String, payload: [UInt8])] = []
    }
    private let state = Mutex(State())
    private let stream: AsyncStream<DeviceBusEvent>
    private let sink: AsyncStream<DeviceBusEvent>.Continuation
    /// The topic of every publish, in order: tests wait on it before moving the clock.
    let publications: AsyncStream<String>
    private let publicationSink: AsyncStream<String>.Continuation

    init() {
        (stream, sink) = AsyncStream.makeStream(of: DeviceBusEvent.self)
        (publications, publicationSink) = AsyncStream.makeStream(of: String.self)
    }

    func attach(_ device: FakeTuyaDevice) { state.withLock { $0.devices[device.id] = device } }

    var publishedCount: Int { state.withLock { $0.published.count } }

    func connect() async throws {
        state.withLock { $0.connected = true }
        sink.yield(.connected)
    }

    func publish(topic: String, payload: [UInt8]) async throws {
        send(topic: topic, payload: payload)
    }

    func send(topic: String, payload: [UInt8]) {
        let (device, connected) = state.withLock { state in
            state.published.append((topic, payload))
            return (state.devices[String(topic.dropFirst("smart/device/in/".count))], state.connected)
        }
        publicationSink.yield(topic)
        guard connected, let device, let answer = device.answer(payload) else { return }
        sink.yield(.message(topic: "smart/device/out/\(device.id)", payload: answer))
    }

    func subscribe(_ topic: String) async throws {}

    func busEvents() -> any AsyncSequence<DeviceBusEvent, Never> & Sendable { stream }

    func close() async { sink.finish() }

    /// A message on any topic, as a device or a hostile publisher would send it.
    func inject(topic: String, payload: [UInt8]) { sink.yield(.message(topic: topic, payload: payload)) }

    /// The broker goes away (messages published meanwhile are lost) and comes back.
    func drop() {
        state.withLock { $0.connected = false }
        sink.yield(.disconnected)
    }
}
