/// How the gateway finds and binds a BLE device: its radio address and the Tuya uuid the
/// pair request carries (protocol/TUYA.md §1.6, 0x0001). Stored beside the device; the
/// local key stays with the other secrets.
public struct BLEIdentity: Hashable, Sendable, CustomStringConvertible {
    /// `AA:BB:CC:DD:EE:FF`, upper case.
    public let address: String
    /// LE random (static) address rather than a public one; most Tuya BLE devices use public.
    public let randomAddress: Bool
    /// The 16-character device uuid from the Tuya cloud (or decrypted from an A201 advert).
    public let uuid: String

    /// Validates untrusted text: six hex octets separated by colons, and a 1–32 character
    /// ASCII uuid of letters and digits.
    public init(address: String, randomAddress: Bool = false, uuid: String) throws(BLEIdentityError) {
        let octets = address.split(separator: ":", omittingEmptySubsequences: false)
        guard octets.count == 6, octets.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isHexDigit) }) else {
            throw .invalidAddress(String(address.prefix(40)))
        }
        guard (1...32).contains(uuid.utf8.count),
            uuid.utf8.allSatisfy({ byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            })
        else {
            throw .invalidUUID
        }
        self.address = address.uppercased()
        self.randomAddress = randomAddress
        self.uuid = uuid
    }

    public var description: String { "\(address)\(randomAddress ? " (random)" : "")" }
}

public enum BLEIdentityError: Error, Hashable, Sendable, CustomStringConvertible {
    case invalidAddress(String)
    case invalidUUID

    public var description: String {
        switch self {
        case .invalidAddress(let text):
            "'\(text)' is not a Bluetooth address (expected six hex pairs such as DC:23:4D:12:34:56)"
        case .invalidUUID: "the device uuid must be 1 to 32 ASCII letters and digits"
        }
    }
}
