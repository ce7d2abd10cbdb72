import BLELink
import Synchronization

/// A simulated Tuya BLE device's GATT server over a `ByteChannel` (normally one end of
/// `SocketChannel.pair()`; the gateway's `GATTClient` holds the other).
///
/// It answers discovery and writes from a `SimulatedGATTDatabase`, hands every value written to
/// the Tuya write characteristic (Write Command or Write Request) to `onWrite`, and notifies
/// only after the client enabled notifications through the CCCD, as a real device does.
/// Over an `ImmediateByteChannel` every PDU is answered and handed to `onWrite` on the channel's
/// reader thread, as a device's firmware answers within its connection event; other channels
/// are read by a task.
/// Misbehaviour for tests: `misbehave(.silent)` stops answering (the client's transaction
/// times out), `misbehave(.garbageResponses)` answers with malformed PDUs, `send(raw:)` injects
/// any bytes, `dropLink()` closes the link.
public actor SimulatedGATTServer {
    /// Ways to break the ATT rules on purpose.
    public enum Misbehaviour: Sendable, Hashable {
        /// Reads requests and answers none.
        case silent
        /// Answers every request with its response opcode and one zero byte: malformed for
        /// every ATT response.
        case garbageResponses
    }

    /// nil: a BLE device without a Tuya service.
    public nonisolated let layout: TuyaGATTLayout?
    private nonisolated let core: Core

    /// Starts serving `channel` at once. `serverMTU` is what it offers in an MTU exchange (nil:
    /// it refuses the exchange; see `SimulatedGATTDatabase`).
    public init(
        channel: any ByteChannel, layout: TuyaGATTLayout?, serverMTU: UInt16? = 23,
        onWrite: @escaping @Sendable ([UInt8]) -> Void = { _ in }
    ) {
        self.layout = layout
        let core = Core(channel: channel, layout: layout, serverMTU: serverMTU, onWrite: onWrite)
        self.core = core
        if let immediate = core.immediate {
            immediate.deliver { event in
                guard case .pdu(let pdu) = event else { return }
                let (answer, written) = core.handle(pdu)
                if let answer { try? immediate.enqueue(answer) }
                if let written { core.onWrite(written) }
            }
        } else {
            Task { await core.serve() }
        }
    }

    /// Whether the client has enabled notifications on the Tuya notify characteristic.
    public var notificationsEnabled: Bool { core.state.withLock { $0.database.notificationsEnabled } }

    /// The ATT MTU in force on this link.
    public var mtu: UInt16 { core.state.withLock { $0.database.mtu } }

    /// The attribute table, for tests that check handles.
    public var attributes: [SimulatedGATTDatabase.Attribute] { core.state.withLock { $0.database.attributes } }

    /// Requests and commands received, answered or not.
    public var receivedPDUCount: Int { core.state.withLock { $0.receivedPDUCount } }

    /// Sends `value` as a Handle Value Notification on the notify characteristic; returns false
    /// (and sends nothing) while the client has not enabled notifications. Throws
    /// `GATTError.valueTooLong` beyond ATT_MTU − 3 bytes, or the channel's error.
    @discardableResult
    public func notify(_ value: [UInt8]) async throws -> Bool {
        guard let pdu = try core.notification(value) else { return false }
        try await core.channel.send(pdu)
        return true
    }

    /// Like `notify(_:)`, queued behind every earlier PDU without waiting, from any thread (over
    /// an `ImmediateByteChannel`; other channels send it from a task).
    @discardableResult
    public nonisolated func notifyNow(_ value: [UInt8]) throws -> Bool {
        guard let pdu = try core.notification(value) else { return false }
        if let immediate = core.immediate {
            try immediate.enqueue(pdu)
        } else {
            Task { [channel = core.channel] in try await channel.send(pdu) }
        }
        return true
    }

    /// Starts (or with nil, stops) misbehaving.
    public func misbehave(_ misbehaviour: Misbehaviour?) {
        core.state.withLock { $0.misbehaviour = misbehaviour }
    }

    /// Sends `bytes` as they are: garbage, unsolicited responses, requests to the client.
    public func send(raw bytes: [UInt8]) async throws {
        try await core.channel.send(bytes)
    }

    /// Closes the link as a device does when it resets or walks out of range.
    public func dropLink() async {
        await core.channel.close()
    }
}

extension SimulatedGATTServer {
    /// The server's state and ATT logic, for the channel's reader thread and the actor alike.
    fileprivate final class Core: Sendable {
        struct State {
            var database: SimulatedGATTDatabase
            var misbehaviour: Misbehaviour?
            var receivedPDUCount = 0
        }

        let channel: any ByteChannel
        let immediate: (any ImmediateByteChannel)?
        let state: Mutex<State>
        let onWrite: @Sendable ([UInt8]) -> Void

        init(
            channel: any ByteChannel, layout: TuyaGATTLayout?, serverMTU: UInt16?,
            onWrite: @escaping @Sendable ([UInt8]) -> Void
        ) {
            self.channel = channel
            immediate = channel as? any ImmediateByteChannel
            state = Mutex(State(database: SimulatedGATTDatabase(layout: layout, serverMTU: serverMTU)))
            self.onWrite = onWrite
        }

        /// Handles one PDU from the client: the answer to send, if any, and the value written to
        /// the Tuya write characteristic, if any, for `onWrite` once the answer is on its way (a
        /// device acknowledges a write at the ATT level before its application acts on it).
        func handle(_ pdu: [UInt8]) -> (answer: [UInt8]?, written: [UInt8]?) {
            state.withLock { state -> ([UInt8]?, [UInt8]?) in
                state.receivedPDUCount += 1
                let outcome = state.database.handle(pdu)
                guard let response = outcome.response else { return (nil, outcome.written) }
                switch state.misbehaviour {
                case .silent:
                    return (nil, outcome.written)
                case .garbageResponses:
                    let garbage = ATTOpcode(pdu[0]).responseOpcode.map { [$0.rawValue, 0x00] } ?? response
                    return (garbage, outcome.written)
                case nil:
                    return (response, outcome.written)
                }
            }
        }

        /// The Handle Value Notification carrying `value`, or nil while notifications are off.
        func notification(_ value: [UInt8]) throws -> [UInt8]? {
            try state.withLock { state in
                let maximum = Int(state.database.mtu) - 3
                guard value.count <= maximum else {
                    throw GATTError.valueTooLong(length: value.count, maximum: maximum)
                }
                guard state.database.notificationsEnabled else { return nil }
                return ATTHandleValueNotification(handle: state.database.notifyHandle, value: value).encode()
            }
        }

        /// Reads a channel that cannot hand PDUs over itself.
        func serve() async {
            while let pdu = try? await channel.receive() {
                let (answer, written) = handle(pdu)
                if let answer { try? await channel.send(answer) }
                if let written { onWrite(written) }
            }
            await channel.close()
        }
    }
}
