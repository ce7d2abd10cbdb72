import Synchronization

/// The ATT bearer's `ByteChannel` over one connection of an `HCIHost`: each `send` goes out as
/// an L2CAP frame on channel 4, each frame the device sends on channel 4 is one `receive`. The
/// ATT bearer and GATT client run on it unchanged.
///
/// When the link drops, the PDUs already received are delivered first, then `receive` throws
/// the reason (`HCIHostError.disconnected`, naming the device and the controller's reason).
/// `close()` disconnects the link; `receive` then returns nil.
public final class HCIATTChannel: ByteChannel, CustomStringConvertible {
    public let address: String
    public let handle: UInt16
    /// The link this channel is on: closing it never ends a later link on the same handle.
    private let link: HCIHostCore.Link
    private let host: HCIHost
    private let state = Mutex(State())

    /// PDUs held for a reader that does not keep up; a device sending more is cut off.
    static let maximumUnread = 4096

    private struct State: ReadQueueState {
        var reads = ReadQueue<[UInt8]>()
        var ended = false
        var endError: (any Error)?

        var readEnd: ReadEnd? { ended ? ReadEnd(error: endError) : nil }
        func didTake(_ pdu: [UInt8]) {}
    }

    init(host: HCIHost, link: HCIHostCore.Link) {
        self.host = host
        address = link.address
        handle = link.handle
        self.link = link
    }

    public var description: String { "BLE link to \(address) (handle 0x\(hex16(handle)))" }

    public func send(_ pdu: [UInt8]) async throws {
        guard !pdu.isEmpty else { throw ByteChannelError.emptyPDU }
        if let error = state.withLock({ $0.ended ? ($0.endError ?? ByteChannelError.closed) : nil }) { throw error }
        try await host.send(pdu, on: link)
    }

    public func receive() async throws -> [UInt8]? { try await state.nextRead() }

    /// Disconnects the link (Remote User Terminated Connection) and waits for the controller.
    public func close() async {
        end(nil)
        await host.disconnect(link)
    }

    /// A PDU from the device (called by the host, in order).
    func deliver(_ pdu: [UInt8]) {
        let overflow = state.withLock { state -> Bool in
            guard !state.ended, state.reads.deliver(pdu) else { return false }
            return state.reads.unread.count > Self.maximumUnread
        }
        if overflow {
            end(ByteChannelError.oversizedPDU(size: Self.maximumUnread, maximum: Self.maximumUnread))
            Task { [host, link] in await host.disconnect(link, reason: .remoteLowResources) }
        }
    }

    /// The link is gone: readers get the PDUs already here, then `error` (nil: end of file).
    func end(_ error: (any Error)?) {
        state.withLock { state in
            guard !state.ended else { return }
            state.ended = true
            state.endError = error
            if error == nil { _ = state.reads.takeUnread() }
            state.reads.finishWaiting(error)
        }
    }
}
