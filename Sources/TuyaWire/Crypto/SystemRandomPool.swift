import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The operating system's random bytes, read in blocks for the whole process: what LAN
/// sessions draw their nonces from (`LANRandom`) and BLE frames their IVs (`RandomIVSource`)
/// when they were given the system generator.
///
/// `SystemRandomNumberGenerator` makes one `getrandom` system call per 8 bytes, so two per
/// 12-byte 3.5 frame nonce (a quarter of the time to encode a 3.5 frame) and two per BLE
/// frame IV. The pool reads 1 KiB at a time (`getentropy`, 256 bytes per call) and hands
/// each byte out once, under a lock: one pool for the process rather than one per session,
/// because a session is a value, and two copies of a pool inside one would hand out the
/// same nonces.
/// (A process that forked without exec would share the unread bytes; none of ours does.)
final class SystemRandomPool: Sendable {
    static let shared = SystemRandomPool()

    private static let size = 1024
    private static let readSize = 256

    private struct State {
        var bytes = [UInt8](repeating: 0, count: SystemRandomPool.size)
        var next = SystemRandomPool.size
    }

    private let state = Mutex(State())

    /// `count` fresh random bytes (at most the pool's size).
    func bytes(_ count: Int) -> [UInt8] {
        precondition(count <= Self.size, "at most \(Self.size) random bytes at a time")
        return state.withLock { state in
            if state.next + count > Self.size {
                Self.refill(&state.bytes)
                state.next = 0
            }
            defer { state.next += count }
            return Array(state.bytes[state.next..<(state.next + count)])
        }
    }

    private static func refill(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let chunk = UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<(offset + readSize)])
                if getentropy(chunk.baseAddress, chunk.count) != 0 {
                    // Not expected on a running system; the standard library's generator
                    // reads the same source (and stops the process if it cannot).
                    var generator = SystemRandomNumberGenerator()
                    for index in chunk.indices { chunk[index] = generator.next() }
                }
                offset += readSize
            }
        }
    }
}
