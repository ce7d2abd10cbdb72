/// IPv4 loopback addresses for simulated LAN devices: every 127.x.y.z is local on Linux,
/// so each device gets an address of its own and listens on the real port.
public struct LoopbackAddress: Sendable, Hashable, CustomStringConvertible {
    public let value: UInt32

    /// Parses dotted IPv4 text inside 127.0.0.0/8.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var value: UInt32 = 0
        for part in parts {
            guard part.count <= 3, let octet = UInt8(part) else { return nil }
            value = value << 8 | UInt32(octet)
        }
        guard value >> 24 == 127 else { return nil }
        self.value = value
    }

    private init(value: UInt32) {
        self.value = value
    }

    public var description: String {
        "\(value >> 24).\(value >> 16 & 0xFF).\(value >> 8 & 0xFF).\(value & 0xFF)"
    }

    /// The address `count` usable addresses on (last octet 1…254), nil past 127.255.255.254.
    public func advanced(by count: Int) -> LoopbackAddress? {
        var current = value
        var left = count
        while true {
            let last = current & 0xFF
            if last != 0 && last != 255 {
                if left == 0 { return LoopbackAddress(value: current) }
                left -= 1
            }
            guard current < 0x7FFF_FFFE else { return nil }
            current += 1
        }
    }
}
