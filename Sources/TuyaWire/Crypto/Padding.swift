/// PKCS#7 padding, used by Tuya MQTT and LAN payloads (AES-ECB, protocol/TUYA.md §3.2).
public enum PKCS7 {
    public static func pad(_ bytes: [UInt8], blockSize: Int = 16) -> [UInt8] {
        let count = blockSize - bytes.count % blockSize
        return bytes + [UInt8](repeating: UInt8(count), count: count)
    }

    /// Removes padding, checking every pad byte.
    public static func unpad(_ bytes: [UInt8], blockSize: Int = 16) throws(WireError) -> [UInt8] {
        let kept = try bytes.withUnsafeBufferPointer { bytes throws(WireError) in
            try unpaddedCount(of: bytes, blockSize: blockSize)
        }
        return Array(bytes[..<kept])
    }

    /// How many bytes of `bytes` come before a valid padding, checking every pad byte.
    static func unpaddedCount(of bytes: UnsafeBufferPointer<UInt8>, blockSize: Int = 16) throws(WireError) -> Int {
        guard !bytes.isEmpty, bytes.count % blockSize == 0 else {
            throw .badPadding("length \(bytes.count) is not a positive multiple of \(blockSize)")
        }
        let count = Int(bytes[bytes.count - 1])
        guard count >= 1, count <= blockSize else {
            throw .badPadding("pad length \(count) outside 1...\(blockSize)")
        }
        for byte in bytes[(bytes.count - count)...] where Int(byte) != count {
            throw .badPadding("pad bytes differ")
        }
        return bytes.count - count
    }
}

/// Zero padding to the next multiple of the block size, used by Tuya BLE: the
/// receiver finds the end from the frame's `len` field (protocol/TUYA.md §1.4).
public enum ZeroPadding {
    public static func pad(_ bytes: [UInt8], blockSize: Int = 16) -> [UInt8] {
        let remainder = bytes.count % blockSize
        guard remainder != 0 else { return bytes }
        return bytes + [UInt8](repeating: 0, count: blockSize - remainder)
    }
}
