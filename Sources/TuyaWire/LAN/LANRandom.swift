/// Random bytes for LAN sessions (handshake nonces, 3.5 frame nonces) from an injected
/// generator: `SystemRandomNumberGenerator` in production, a seeded one in tests
/// (STYLE.md: randomness is injected).
///
/// The system generator is read through `SystemRandomPool` (a few system calls per
/// hundred nonces instead of two per nonce); any other generator, such as a test's seeded
/// one, is drawn from directly, so its bytes stay exactly what they were.
struct LANRandom: Sendable {
    private var generator: any RandomNumberGenerator & Sendable
    private let readsSystemPool: Bool

    init(_ generator: any RandomNumberGenerator & Sendable) {
        self.generator = generator
        readsSystemPool = generator is SystemRandomNumberGenerator
    }

    mutating func bytes(_ count: Int) -> [UInt8] {
        if readsSystemPool { return SystemRandomPool.shared.bytes(count) }
        var out: [UInt8] = []
        out.reserveCapacity(count + 7)
        while out.count < count {
            var word = generator.next()
            for _ in 0..<8 {
                out.append(UInt8(truncatingIfNeeded: word))
                word >>= 8
            }
        }
        out.removeLast(out.count - count)
        return out
    }
}
