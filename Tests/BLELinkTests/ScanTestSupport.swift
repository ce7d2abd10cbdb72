import BLELink

/// Bytes from hex text; spaces are ignored. Test vectors only.
func hexBytes(_ hex: String) -> [UInt8] {
    let digits = Array(hex.filter { !$0.isWhitespace })
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
}

/// One AD structure's bytes: length, type, value.
func adStructure(_ type: UInt8, _ value: [UInt8]) -> [UInt8] {
    [UInt8(value.count + 1), type] + value
}

/// An HCI LE Advertising Report event packet with one report per entry, laid out as the
/// kernel reads it: 04 3E len 02 count, then per report type, address type, address
/// (least significant byte first), data length, data, RSSI.
func advertisingReportPacket(_ reports: [(type: UInt8, address: String, data: [UInt8], rssi: Int8)]) -> [UInt8] {
    var parameters: [UInt8] = [0x02, UInt8(reports.count)]
    for report in reports {
        parameters += [report.type, 0x00] + AdvertisingReport.addressBytes(report.address)!
        parameters += [UInt8(report.data.count)] + report.data + [UInt8(bitPattern: report.rssi)]
    }
    return [0x04, 0x3E, UInt8(parameters.count)] + parameters
}

/// SplitMix64: a seeded, deterministic generator so fuzz loops repeat exactly.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

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

    /// A random byte string, or `input` with one byte flipped, inserted or removed, or cut short.
    mutating func mutate(_ input: [UInt8]) -> [UInt8] {
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
