import TuyaCore
import TuyaWire

/// Bytes from hex text; spaces are ignored. Test vectors only.
func bleBytes(_ hex: String) -> [UInt8] {
    let digits = Array(hex.filter { !$0.isWhitespace })
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
}

func bleHex(_ bytes: [UInt8]) -> String {
    bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
}

func bleDP(_ id: Int) -> DataPointID { DataPointID(id)! }

/// SplitMix64: a seeded, deterministic generator so fuzz loops and IVs repeat exactly.
struct BLESeededGenerator: RandomNumberGenerator, Sendable {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &self) }
    }
}

struct BLEFixedIVSource: IVSource {
    var iv: [UInt8]
    mutating func nextIV() -> [UInt8] { iv }
}

/// The TUYA.md §1.4 test key material.
enum BLEVectors {
    static let localKey = "0123456789abcdef"
    static let secKey = "fedcba9876543210"
    static let srand: [UInt8] = [1, 2, 3, 4, 5, 6]

    static func sessionKeys(secKey: String? = nil) throws -> BLEKeys {
        var keys = try BLEKeys(localKey: localKey, secKey: secKey)
        try keys.establishSession(srand: srand)
        return keys
    }
}

/// Runs `body` and returns the WireError it threw, or nil.
func bleError<T>(_ body: () throws(WireError) -> T) -> WireError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}
