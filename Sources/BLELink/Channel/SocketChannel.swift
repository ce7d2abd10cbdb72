import CBluetooth  // its sys/socket.h is the one this module sees SOCK_SEQPACKET through
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A `ByteChannel` over a connected `SOCK_SEQPACKET` socket: an L2CAP LE socket to a device, or
/// one end of `SocketChannel.pair()` for tests and the simulator.
///
/// Threading: the descriptor is non-blocking and read by one thread of its own, which sleeps in
/// `poll` until a datagram arrives and then drains every queued one. A datagram therefore costs
/// one thread wake-up, as a blocking `read` does; Dispatch sources, which this channel used
/// before, cost two (the event thread, then a worker), and that was most of an echo's time. A
/// BLE gateway has a handful of links, so a thread each is cheap. PDUs go to a waiting
/// `receive()`, to a buffer (reading pauses above 64 unread PDUs, so a flooding peer cannot grow
/// memory without bound), or to the handler of `deliver(to:)`. Sends go out at once from the
/// caller's thread while the socket has room; otherwise they queue, in order, and the reader
/// thread finishes them when `poll` says the socket is writable. The descriptor is closed by the
/// reader thread once the channel ended: after `close()`, end-of-file, a socket error, or when
/// the channel is released. The reader thread is also a task executor (`taskExecutor`), so a task
/// waiting for this channel's PDUs can run where they are read.
public final class SocketChannel: ImmediateByteChannel {
    private let core: SocketChannelCore
    private let executor: ReaderExecutor

    /// Takes ownership of `descriptor`, a connected seqpacket socket, and makes it non-blocking
    /// and close-on-exec. `maximumPDUSize` bounds one received datagram (an ATT PDU is at most
    /// 517 bytes); a longer one ends the channel with `oversizedPDU`.
    public init(adopting descriptor: Int32, maximumPDUSize: Int = 1024) throws(ByteChannelError) {
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0 else {
            throw SocketChannelCore.systemError("fcntl(O_NONBLOCK)")
        }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        core = try SocketChannelCore(descriptor: descriptor, maximumPDUSize: max(1, maximumPDUSize))
        executor = ReaderExecutor(core: core)
        let (core, executor) = (core, executor)
        let reader = Thread {
            nameCurrentThread("youll-ble-rx")
            core.runReader(executor: executor)
        }
        // It also runs the jobs of tasks preferring it (a device link's packet handling, a
        // caller's command): a pool thread's stack size, of which only what is used is resident.
        reader.stackSize = 1 << 20
        reader.start()
    }

    /// Two connected channels over `socketpair(AF_UNIX, SOCK_SEQPACKET)`: what one sends, the
    /// other receives as one PDU. Closing either end is end-of-file for the other.
    public static func pair(maximumPDUSize: Int = 1024) throws(ByteChannelError) -> (SocketChannel, SocketChannel) {
        var descriptors: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &descriptors) == 0
        else { throw SocketChannelCore.systemError("socketpair(AF_UNIX, SOCK_SEQPACKET)") }
        do throws(ByteChannelError) {
            let first = try SocketChannel(adopting: descriptors[0], maximumPDUSize: maximumPDUSize)
            do throws(ByteChannelError) {
                return (first, try SocketChannel(adopting: descriptors[1], maximumPDUSize: maximumPDUSize))
            } catch {
                Glibc.close(descriptors[1])
                throw error
            }
        } catch {
            Glibc.close(descriptors[0])
            throw error
        }
    }

    deinit { core.end(.closed) }

    public func send(_ pdu: [UInt8]) async throws { try await core.send(pdu) }

    public func receive() async throws -> [UInt8]? { try await core.receive() }

    public func close() async { core.end(.closed) }

    public func deliver(to handler: @escaping @Sendable (ByteChannelEvent) -> Void) { core.deliver(to: handler) }

    public func enqueue(_ pdu: [UInt8]) throws(ByteChannelError) { try core.enqueue(pdu) }

    /// The reader thread, for tasks that wait on this channel (see `ReaderExecutor`).
    public var taskExecutor: (any TaskExecutor)? { executor }
}
