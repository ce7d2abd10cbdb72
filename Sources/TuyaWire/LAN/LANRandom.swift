/// Random bytes for LAN sessions (handshake nonces, 3.5 frame nonces) from an injected
/// generator: `SystemRandomNumberGenerator` in production, a seeded one in tests
/// (STYLE.md: randomness is injected).
struct LANRandom: Sendable {
    private var generator: any RandomNumberGenerator & Sendable

    init(_ generator: any RandomNumberGenerator & Sendable) {
        self.generator = generator
    }

    mutating func bytes(_ count: Int) -> [UInt8] {
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
