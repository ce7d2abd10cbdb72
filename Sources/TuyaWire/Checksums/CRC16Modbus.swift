/// CRC-16/MODBUS: init 0xFFFF, reflected polynomial 0xA001, no final XOR.
/// Check value: "123456789" → 0x4B37. Trails every Tuya BLE command frame
/// (protocol/TUYA.md §1.5; SDK `tuya_ble_crc16_compute`).
public enum CRC16Modbus {
    private static let table: [UInt16] = (0..<256).map { n in
        var c = UInt16(n)
        for _ in 0..<8 { c = (c & 1) != 0 ? (c >> 1) ^ 0xA001 : c >> 1 }
        return c
    }

    public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt16 {
        table.withUnsafeBufferPointer { table in
            var crc: UInt16 = 0xFFFF
            for byte in bytes {
                crc = (crc >> 8) ^ table[Int((crc ^ UInt16(byte)) & 0xFF)]
            }
            return crc
        }
    }
}
