/// Big-endian 32-bit fields, as every Tuya LAN header writes them (protocol/TUYA.md §2.2).
enum BigEndian {
    static func append(_ value: UInt32, to bytes: inout [UInt8]) {
        bytes.append(UInt8(truncatingIfNeeded: value >> 24))
        bytes.append(UInt8(truncatingIfNeeded: value >> 16))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    static func write(_ value: UInt32, into bytes: inout [UInt8], at offset: Int) {
        bytes[offset] = UInt8(truncatingIfNeeded: value >> 24)
        bytes[offset + 1] = UInt8(truncatingIfNeeded: value >> 16)
        bytes[offset + 2] = UInt8(truncatingIfNeeded: value >> 8)
        bytes[offset + 3] = UInt8(truncatingIfNeeded: value)
    }

    /// The caller has checked that four bytes exist at `offset`.
    /// Arrays and slices are read as one unaligned load (every frame's prefix, lengths and
    /// suffix go through here: four checked subscripts cost several times that).
    static func read<C: RandomAccessCollection<UInt8>>(_ bytes: C, at offset: C.Index) -> UInt32
    where C.Index == Int {
        let loaded = bytes.withContiguousStorageIfAvailable { storage -> UInt32 in
            let at = offset - bytes.startIndex
            precondition(at >= 0 && at + 4 <= storage.count, "BigEndian.read past the end")
            return UInt32(bigEndian: UnsafeRawBufferPointer(storage).loadUnaligned(fromByteOffset: at, as: UInt32.self))
        }
        if let loaded { return loaded }
        return UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
            | UInt32(bytes[offset + 3])
    }
}
