/// Cuts one encrypted frame (security flag ‖ IV ‖ ciphertext) into GATT-sized packets
/// (protocol/TUYA.md §1.3; SDK `trsmitr_send_pkg_encode`, HTB `_build_packets`).
///
/// The first packet carries `varint(0) ‖ varint(total_len) ‖ (version << 4 | seq & 0x0F)`,
/// every following one `varint(packet_num)`, each then filled with frame bytes up to
/// the MTU (20 with the default ATT MTU of 23).
public struct BLEFragmenter: Hashable, Sendable {
    public static let defaultMTU = 20

    /// Payload bytes per GATT write or notification.
    public var mtu: Int
    /// The protocol version for the high nibble of the first packet's version byte.
    /// Devices reject a version below 2 (SDK `tuya_ble_commonData_rx_proc`).
    public var protocolVersion: UInt8

    public init(protocolVersion: UInt8, mtu: Int = BLEFragmenter.defaultMTU) {
        self.protocolVersion = protocolVersion
        self.mtu = mtu
    }

    /// The packets for `frame`, in sending order. `sequence` fills the low nibble of the
    /// version byte (HTB sends 0).
    public func packets(for frame: [UInt8], sequence: UInt8 = 0) throws(WireError) -> [[UInt8]] {
        guard protocolVersion <= 0x0F else {
            throw .unsupportedVersion("\(protocolVersion) (the BLE version nibble holds 0...15)")
        }
        guard !frame.isEmpty else {
            throw .lengthOutOfRange(field: "BLE frame length", value: 0, limit: Varint.maxValue)
        }
        let total = try Varint(frame.count)
        var packets: [[UInt8]] = []
        var offset = 0
        var number = 0
        while offset < frame.count {
            var packet = try Varint(number).encoded
            if number == 0 {
                packet += total.encoded
                packet.append(protocolVersion << 4 | (sequence & 0x0F))
            }
            let room = mtu - packet.count
            guard room > 0 else {
                throw .lengthOutOfRange(field: "BLE MTU", value: mtu, limit: packet.count + 1)
            }
            let end = min(frame.count, offset + room)
            packet += frame[offset..<end]
            packets.append(packet)
            offset = end
            number += 1
        }
        return packets
    }
}
