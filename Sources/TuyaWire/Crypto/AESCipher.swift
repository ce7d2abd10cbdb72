import CLibCrypto
import Crypto

/// AES-128 in the two modes Tuya uses, through libcrypto: CBC on the contexts each key keeps
/// (`CBCContexts`), ECB keyed for each call. Neither pads: callers pad first (PKCS#7 for
/// MQTT/LAN, zeros for BLE).
public enum AESCipher {
    /// AES-128-ECB over whole 16-byte blocks (Tuya MQTT "2.2", LAN discovery and handshakes).
    public static func encryptECB(_ plaintext: [UInt8], key: AESKey) throws(WireError) -> [UInt8] {
        try blocks(plaintext, encrypting: true, mode: "ECB") { input, output, length throws(WireError) in
            try ecb(key, encrypt: true, from: input, to: output, length: length)
        }
    }

    /// Decrypts whole blocks (ECB).
    public static func decryptECB(_ ciphertext: [UInt8], key: AESKey) throws(WireError) -> [UInt8] {
        try blocks(ciphertext, encrypting: false, mode: "ECB") { input, output, length throws(WireError) in
            try ecb(key, encrypt: false, from: input, to: output, length: length)
        }
    }

    /// AES-128-CBC over whole blocks (Tuya BLE, protocol/TUYA.md §1.4).
    public static func encryptCBC(_ plaintext: [UInt8], key: AESKey, iv: [UInt8]) throws(WireError) -> [UInt8] {
        try cbc(plaintext, key: key, iv: iv, encrypt: true)
    }

    public static func decryptCBC(_ ciphertext: [UInt8], key: AESKey, iv: [UInt8]) throws(WireError) -> [UInt8] {
        try cbc(ciphertext, key: key, iv: iv, encrypt: false)
    }

    private static func cbc(_ input: [UInt8], key: AESKey, iv: [UInt8], encrypt: Bool) throws(WireError) -> [UInt8] {
        try blocks(input, encrypting: encrypt, mode: "CBC", iv: iv) { input, output, length throws(WireError) in
            try key.cbc.run(encrypt: encrypt, key: key.bytes, iv: iv, from: input, to: output, length: length)
        }
    }

    /// ECB keyed for this call, not kept: it serves MQTT "2.2" messages, LAN discovery and
    /// handshakes, seconds apart per key, while a gateway holds a key per MQTT device, and two
    /// kept contexts cost 1.5 KB (1.4 MB for 1,000 devices) to save 0.2 µs a message.
    private static func ecb(
        _ key: AESKey, encrypt: Bool, from input: UnsafePointer<UInt8>, to output: UnsafeMutablePointer<UInt8>,
        length: Int32
    ) throws(WireError) -> Int32 {
        let context = try LibCrypto.cipherContext(LibCrypto.aes128ECB, key: key.bytes, encrypt: encrypt, blocks: true)
        defer { EVP_CIPHER_CTX_free(context) }
        return youll_ecb(context, output, input, length)
    }

    /// Checks that `input` is whole blocks (and `iv`, when given, 16 bytes), then runs `cipher`
    /// over it into the array returned; nothing it wrote is left behind when it fails.
    private static func blocks(
        _ input: [UInt8], encrypting: Bool, mode: String, iv: [UInt8]? = nil,
        _ cipher: (UnsafePointer<UInt8>, UnsafeMutablePointer<UInt8>, Int32) throws(WireError) -> Int32
    ) throws(WireError) -> [UInt8] {
        let count = input.count
        guard count % 16 == 0 else {
            if encrypting { throw .badPadding("\(mode) input of \(count) bytes is not whole blocks") }
            throw .malformed("ciphertext of \(count) bytes is not whole 16-byte blocks")
        }
        if let iv, iv.count != 16 { throw .invalidKey("AES-\(mode) IV must be 16 bytes, got \(iv.count)") }
        guard count > 0 else { return [] }
        let length = try LibCrypto.length(count, of: "AES-\(mode) input")
        return try LibCrypto.plaintext(count: count) { out throws(WireError) in
            let done = try input.withUnsafeBufferPointer { bytes throws(WireError) in
                try cipher(bytes.baseAddress!, out.baseAddress!, length)
            }
            guard done == 1 else { throw .malformed("AES-\(mode) failed") }
            return count
        }
    }
}

/// MD5, used to derive Tuya BLE keys (protocol/TUYA.md §1.4) and advert keys (§1.2).
public enum MD5Digest {
    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        Array(Insecure.MD5.hash(data: bytes))
    }
}
