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
        (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}

extension RandomIVSource where Generator == SystemRandomNumberGenerator {
    public init() {
        self.init(generator: SystemRandomNumberGenerator())
    }
}
