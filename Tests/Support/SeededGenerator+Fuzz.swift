import DeviceSimulator

/// The one seeded generator (SplitMix64, `DeviceSimulator.SeededGenerator`, the one the
/// simulated fleet draws its devIds and keys from), with what fuzz loops need: a fixed seed
/// replays the same inputs on every run and platform, so a failure found once is found again.
extension SeededGenerator {
    /// `count` random bytes.
    public mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &self) }
    }

    /// A random byte string, or `input` with one byte flipped, inserted or removed, or cut short.
    public mutating func mutate(_ input: [UInt8]) -> [UInt8] {
        var bytes = input
        switch Int.random(in: 0..<5, using: &self) {
        case 0: return self.bytes(Int.random(in: 0...64, using: &self))
        case 1:
            if !bytes.isEmpty {
                bytes[Int.random(in: 0..<bytes.count, using: &self)] ^= UInt8.random(in: 1...255, using: &self)
            }
        case 2: bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &self)))
        case 3: bytes.insert(UInt8.random(in: 0...255, using: &self), at: Int.random(in: 0...bytes.count, using: &self))
        default: if !bytes.isEmpty { bytes.remove(at: Int.random(in: 0..<bytes.count, using: &self)) }
        }
        return bytes
    }
}
