import BLELink

/// A simulated Tuya BLE device's GATT server over a `ByteChannel` (normally one end of
/// `SocketChannel.pair()`; the gateway's `GATTClient` holds the other).
///
/// It answers discovery and writes from a `SimulatedGATTDatabase`, hands every value written to
/// the Tuya write characteristic (Write Command or Write Request) to `onWrite`, and notifies
/// only after the client enabled notifications through the CCCD, as a real device does.
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
    private var database: SimulatedGATTDatabase
    private let channel: any ByteChannel
    private let onWrite: @Sendable ([UInt8]) -> Void
    private var misbehaviour: Misbehaviour?
    /// Requests and commands received, answered or not.
    public private(set) var receivedPDUCount = 0

    /// Starts serving `channel` at once.
    public init(
        channel: any ByteChannel, layout: TuyaGATTLayout?, onWrite: @escaping @Sendable ([UInt8]) -> Void = { _ in }
    ) {
        self.channel = channel
        self.layout = layout
        self.onWrite = onWrite
        database = SimulatedGATTDatabase(layout: layout)
        Task { await self.serve() }
    }

    /// Whether the client has enabled notifications on the Tuya notify characteristic.
    public var notificationsEnabled: Bool { database.notificationsEnabled }

    /// The attribute table, for tests that check handles.
    public var attributes: [SimulatedGATTDatabase.Attribute] { database.attributes }

    /// Sends `value` as a Handle Value Notification on the notify characteristic; returns false
    /// (and sends nothing) while the client has not enabled notifications. Throws
    /// `GATTError.valueTooLong` beyond ATT_MTU − 3 bytes, or the channel's error.
    @discardableResult
    public func notify(_ value: [UInt8]) async throws -> Bool {
        let maximum = Int(database.mtu) - 3
        guard value.count <= maximum else { throw GATTError.valueTooLong(length: value.count, maximum: maximum) }
        guard database.notificationsEnabled else { return false }
        try await channel.send(ATTHandleValueNotification(handle: database.notifyHandle, value: value).encode())
        return true
    }

    /// Starts (or with nil, stops) misbehaving.
    public func misbehave(_ misbehaviour: Misbehaviour?) {
        self.misbehaviour = misbehaviour
    }

    /// Sends `bytes` as they are: garbage, unsolicited responses, requests to the client.
    public func send(raw bytes: [UInt8]) async throws {
        try await channel.send(bytes)
    }

    /// Closes the link as a device does when it resets or walks out of range.
    public func dropLink() async {
        await channel.close()
    }

    private func serve() async {
        while let pdu = try? await channel.receive() {
            receivedPDUCount += 1
            let outcome = database.handle(pdu)
            if let written = outcome.written { onWrite(written) }
            guard let response = outcome.response else { continue }
            switch misbehaviour {
            case .silent:
                continue
            case .garbageResponses:
                let answer = ATTOpcode(pdu[0]).responseOpcode.map { [$0.rawValue, 0x00] } ?? response
                try? await channel.send(answer)
            case nil:
                try? await channel.send(response)
            }
        }
        await channel.close()
    }
}
