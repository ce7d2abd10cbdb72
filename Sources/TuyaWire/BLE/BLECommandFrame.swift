/// The plaintext command frame inside the security layer (protocol/TUYA.md §1.5):
/// `sn (4) ‖ ack_sn (4) ‖ cmd (2) ‖ len (2) ‖ data (len) ‖ CRC-16/MODBUS (2, BE, over
/// bytes 0…11+len)`, then zero padding to a whole AES block.
public struct BLECommandFrame: Hashable, Sendable {
    public static let headerLength = 12
    public static let overhead = 14

    /// Sender sequence number; the device drops the link when it does not increase.
    public let sn: UInt32
    /// The `sn` being answered, 0 for unsolicited frames.
    public let ackSN: UInt32
    public let command: BLECommand
    public let data: [UInt8]

    public init(sn: UInt32, ackSN: UInt32 = 0, command: BLECommand, data: [UInt8] = []) throws(WireError) {
        guard data.count <= Int(UInt16.max) else {
            throw .lengthOutOfRange(field: "BLE command data length", value: data.count, limit: Int(UInt16.max))
        }
        self.sn = sn
        self.ackSN = ackSN
        self.command = command
        self.data = data
    }

    /// Parses a decrypted plaintext, padding included.
    ///
    /// A wrong key and a corrupted frame must lead to different advice ("check the
    /// local key" versus "retry"), and the two look different after decryption:
    ///
    /// * With a wrong key, AES-CBC yields uniformly random bytes, so the `len` field
    ///   is random and the frame `14 + len` almost never ends in the last 16 bytes
    ///   with only zeros after it (the chance is about 16/65536 × 2⁻⁸ per pad byte).
    ///   An inconsistent `len` is therefore reported as `.keyMismatch`.
    /// * When `len` agrees with the padded size and the padding is zeros, the key
    ///   decrypted the header correctly, so a CRC mismatch means bytes were damaged
    ///   (a damaged ciphertext block garbles that block only): `.checksumMismatch`.
    ///
    /// BLE's link layer already checks each packet with a CRC-24 and retransmits, so
    /// damage that leaves the header garbled is rare enough that blaming the key is
    /// the more useful message.
    public init(bytes: [UInt8]) throws(WireError) {
        guard bytes.count >= Self.overhead else {
            throw .truncated(what: "BLE command frame", needed: Self.overhead, available: bytes.count)
        }
        let length = Int(bytes[10]) << 8 | Int(bytes[11])
        let end = Self.overhead + length
        guard end <= bytes.count, bytes.count - end < 16 else {
            throw .keyMismatch(
                "BLE frame length field \(length) does not fit the \(bytes.count) decrypted bytes")
        }
        let crcOffset = Self.headerLength + length
        let expected = UInt16(bytes[crcOffset]) << 8 | UInt16(bytes[crcOffset + 1])
        let actual = CRC16Modbus.checksum(bytes[0..<crcOffset])
        guard bytes[end...].allSatisfy({ $0 == 0 }) else {
            // A right CRC-16 over a header that fits says the key is right: the sender pads
            // wrongly, which is not something a new key would fix.
            guard expected == actual else {
                throw .keyMismatch("BLE frame padding is not zeros and its CRC-16 does not match")
            }
            throw .malformed(
                "BLE frame padding after byte \(end) is not zeros (the frame and its CRC-16 are right: the device pads wrongly)"
            )
        }
        guard expected == actual else {
            throw .checksumMismatch(what: "BLE frame CRC-16", expected: UInt32(expected), actual: UInt32(actual))
        }
        var reader = BLEByteReader(bytes[0..<crcOffset], what: "BLE command frame")
        sn = try reader.readUInt32("sn")
        ackSN = try reader.readUInt32("ack_sn")
        command = BLECommand(rawValue: try reader.readUInt16("cmd"))
        _ = try reader.readUInt16("len")
        data = reader.readRest()
    }

    /// The frame with its CRC, without padding (the security layer pads).
    public var encoded: [UInt8] {
        var out = BLEBigEndian.bytes(sn) + BLEBigEndian.bytes(ackSN) + BLEBigEndian.bytes(command.rawValue)
        out += BLEBigEndian.bytes(UInt16(data.count))
        out += data
        out += BLEBigEndian.bytes(CRC16Modbus.checksum(out))
        return out
    }

    /// An answer to this frame: same command, `ack_sn` = this frame's `sn`
    /// (how reports and time requests are acknowledged, protocol/TUYA.md §1.6, §1.9).
    public func reply(sn: UInt32, data: [UInt8] = []) throws(WireError) -> BLECommandFrame {
        try BLECommandFrame(sn: sn, ackSN: self.sn, command: command, data: data)
    }
}
