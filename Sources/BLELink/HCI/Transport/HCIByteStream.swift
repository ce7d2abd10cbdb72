/// The byte stream between the HCI host and its controller: H4 packets both ways. A UART, a TCP
/// or UNIX socket to an emulator, or the kernel's HCI user channel (which keeps packet
/// boundaries, so each `write` carries exactly one packet).
public protocol HCIByteStream: Sendable {
    /// What the stream reaches, for messages: `h4-tcp:127.0.0.1:9000`.
    var name: String { get }
    /// The next bytes from the controller, waiting for them; nil once the stream has ended.
    func read() async throws -> [UInt8]?
    /// Writes `bytes` (one whole H4 packet) before returning.
    func write(_ bytes: [UInt8]) async throws
    /// Ends the stream; a pending `read` returns nil. Idempotent.
    func close() async
}
