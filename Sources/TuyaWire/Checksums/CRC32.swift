/// CRC-32 (IEEE 802.3 / zlib): reflected polynomial 0xEDB88320, init and final XOR
/// 0xFFFFFFFF. Check value: "123456789" → 0xCBF43926. Used by MQTT "2.2" frames
/// over sequence ‖ source ‖ ciphertext (protocol/TUYA.md §3.2).
public enum CRC32 {
    /// Slicing-by-8 tables: about 8× fewer table steps than the byte-wise loop.
    private static let tables: [[UInt32]] = {
        var tables = [[UInt32]](repeating: [UInt32](repeating: 0, count: 256), count: 8)
        for n in 0..<256 {
            var c = UInt32(n)
            for _ in 0..<8 { c = (c & 1) != 0 ? (0xEDB8_8320 ^ (c >> 1)) : (c >> 1) }
            tables[0][n] = c
        }
        for n in 0..<256 {
            var c = tables[0][n]
            for k in 1..<8 {
                c = tables[0][Int(c & 0xFF)] ^ (c >> 8)
                tables[k][n] = c
            }
        }
        return tables
    }()

    public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc = Running()
        crc.update(bytes)
        return crc.value
    }

    /// An incremental CRC-32, for checksums over several buffers without copying.
    public struct Running: Sendable {
        private var state: UInt32 = 0xFFFF_FFFF

        public init() {}

        public mutating func update(_ bytes: some Sequence<UInt8>) {
            let done: Void? = bytes.withContiguousStorageIfAvailable { update(buffer: UnsafeRawBufferPointer($0)) }
            if done == nil {
                let copy = Array(bytes)
                copy.withUnsafeBytes { update(buffer: $0) }
            }
        }

        public mutating func update(buffer: UnsafeRawBufferPointer) {
            CRC32.tables.withUnsafeBufferPointer { tables in
                let t0 = tables[0], t1 = tables[1], t2 = tables[2], t3 = tables[3]
                let t4 = tables[4], t5 = tables[5], t6 = tables[6], t7 = tables[7]
                var c = state
                var i = 0
                let n = buffer.count
                while n - i >= 8 {
                    let lo =
                        c
                        ^ (UInt32(buffer[i]) | UInt32(buffer[i + 1]) << 8 | UInt32(buffer[i + 2]) << 16
                            | UInt32(buffer[i + 3]) << 24)
                    c =
                        t7[Int(lo & 0xFF)] ^ t6[Int((lo >> 8) & 0xFF)] ^ t5[Int((lo >> 16) & 0xFF)]
                        ^ t4[Int(lo >> 24)] ^ t3[Int(buffer[i + 4])] ^ t2[Int(buffer[i + 5])]
                        ^ t1[Int(buffer[i + 6])] ^ t0[Int(buffer[i + 7])]
                    i += 8
                }
                while i < n {
                    c = t0[Int((c ^ UInt32(buffer[i])) & 0xFF)] ^ (c >> 8)
                    i += 1
                }
                state = c
            }
        }

        public var value: UInt32 { state ^ 0xFFFF_FFFF }
    }
}
