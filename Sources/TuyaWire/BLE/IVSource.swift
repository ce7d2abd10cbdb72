/// Where the random 16-byte IVs of BLE frames come from (protocol/TUYA.md §1.4).
/// Injected so tests can fix the IV and compare exact bytes (STYLE.md: randomness is
/// injected).
public protocol IVSource: Sendable {
    mutating func nextIV() -> [UInt8]
}

/// IVs from any random number generator: `SystemRandomNumberGenerator` in production,
/// a seeded generator in tests.
public struct RandomIVSource<Generator: RandomNumberGenerator & Sendable>: IVSource {
    public var generator: Generator

    public init(generator: Generator) {
        self.generator = generator
    }

    public mutating func nextIV() -> [UInt8] {
        if Generator.self == SystemRandomNumberGenerator.self {
            // The process's pool of the system's random bytes (`SystemRandomPool`, as LAN nonces):
            // each draw from the system generator is a `getrandom` system call, one per byte made
            // 16 calls the largest cost of a BLE DP write (issue 17), and two 64-bit draws still
            // cost two calls per frame.
            return SystemRandomPool.shared.bytes(16)
        }
        // The bytes `UInt8.random(in: .min ... .max, using:)` gives (one draw each, truncated),
        // without its unspecialised generic path per byte.
        var iv = [UInt8](repeating: 0, count: 16)
        for index in iv.indices { iv[index] = UInt8(truncatingIfNeeded: generator.next()) }
        return iv
    }
}

extension RandomIVSource where Generator == SystemRandomNumberGenerator {
    public init() {
        self.init(generator: SystemRandomNumberGenerator())
    }
}
