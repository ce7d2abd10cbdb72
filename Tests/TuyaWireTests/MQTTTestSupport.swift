import TuyaWire

/// SplitMix64: a tiny seeded generator so the garbage and mutation tests replay the
/// same inputs on every run.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The error a throwing call raised, or nil if it returned.
func wireError<T>(_ body: () throws(WireError) -> T) -> WireError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}

func hexBytes(_ hex: String) -> [UInt8] {
    var result: [UInt8] = []
    var high: UInt8?
    for character in hex.utf8 {
        let nibble: UInt8
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = character - UInt8(ascii: "a") + 10
        default: continue
        }
        if let value = high {
            result.append(value << 4 | nibble)
            high = nil
        } else {
            high = nibble
        }
    }
    return result
}
