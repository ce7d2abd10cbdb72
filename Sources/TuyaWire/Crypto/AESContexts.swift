import CLibCrypto
import Synchronization

/// AES-128 CBC and ECB under one key (`AESKey`) through libcrypto. The CBC contexts are made
/// on first use and kept for every later call: BLE seals and opens every frame under one
/// session key, and swift-crypto's one-shot calls expanded the key schedule again each time
/// (7 % of a BLE DP write's CPU, both ends). A key used once (an advertisement's) costs what a
/// one-shot call does.
///
/// ECB is keyed for each call and not kept: it serves Tuya MQTT "2.2" messages, LAN discovery
/// and handshakes, seconds apart per key, while a gateway holds a key per MQTT device and two
/// kept contexts cost 1.5 KB (1.4 MB for 1,000 devices) for a saving of 0.2 µs a message.
///
/// A CBC context carries its IV and chaining state between the calls of one frame, so it is
/// used only under the lock.
final class AESContexts: Sendable {
    enum Mode: Int {
        case cbcEncrypt, cbcDecrypt, ecbEncrypt, ecbDecrypt

        fileprivate var type: OpaquePointer? {
            switch self {
            case .cbcEncrypt, .cbcDecrypt: EVP_aes_128_cbc()
            case .ecbEncrypt, .ecbDecrypt: OpaquePointer(bitPattern: fetchedECB) ?? EVP_aes_128_ecb()
            }
        }

        fileprivate var encrypts: Bool { self == .cbcEncrypt || self == .ecbEncrypt }
    }

    private let key: [UInt8]
    /// The CBC contexts made so far, by `Mode.rawValue` (0 and 1), as addresses (0: not made
    /// yet): plain numbers, which a `Mutex` holds as Sendable values. Freed (which wipes their
    /// key schedules) with the last copy of the key.
    private let made = Mutex<[UInt]>([0, 0])

    init(key: [UInt8]) {
        self.key = key
    }

    deinit {
        made.withLock { contexts in
            for context in contexts { EVP_CIPHER_CTX_free(OpaquePointer(bitPattern: context)) }
        }
    }

    /// Runs `mode` over `input` (whole blocks) into the array returned; `iv` for the CBC modes.
    /// A refused decryption leaves nothing of what it wrote behind.
    func run(_ mode: Mode, iv: [UInt8]? = nil, _ input: ArraySlice<UInt8>) throws(WireError) -> [UInt8] {
        let count = input.count
        guard count % 16 == 0 else { throw .malformed("AES input of \(count) bytes is not whole 16-byte blocks") }
        guard count > 0 else { return [] }
        return try Self.plaintext(count: count) { out throws(WireError) in
            try input.withUnsafeBufferPointer { input throws(WireError) in
                try run(mode, iv: iv, from: input.baseAddress!, to: out.baseAddress!, count: count)
            }
            return count
        }
    }

    private func run(
        _ mode: Mode, iv: [UInt8]?, from input: UnsafePointer<UInt8>, to output: UnsafeMutablePointer<UInt8>,
        count: Int
    ) throws(WireError) {
        guard let length = Int32(exactly: count) else {
            throw .lengthOutOfRange(field: "AES input", value: count, limit: Int(Int32.max))
        }
        let chains = mode == .cbcEncrypt || mode == .cbcDecrypt
        if chains, iv?.count != 16 { throw .invalidKey("an AES-CBC IV is 16 bytes, got \(iv?.count ?? 0)") }
        let done: Int32
        if chains, let iv {
            done = try made.withLock { contexts throws(WireError) in
                let context: OpaquePointer
                if let kept = OpaquePointer(bitPattern: contexts[mode.rawValue]) {
                    context = kept
                } else {
                    context = try makeCipherContext(mode.type, key: key, encrypt: mode.encrypts, blocks: true)
                    contexts[mode.rawValue] = UInt(bitPattern: context)
                }
                return youll_cbc(context, iv, output, input, length)
            }
        } else {
            // ECB is not kept: see the type's documentation.
            let context = try makeCipherContext(mode.type, key: key, encrypt: mode.encrypts, blocks: true)
            defer { EVP_CIPHER_CTX_free(context) }
            done = youll_ecb(context, output, input, length)
        }
        guard done == 1 else { throw .malformed("AES-\(chains ? "CBC" : "ECB") failed") }
    }

    /// An array of `count` bytes written by `decrypt`, which returns how many of them to keep.
    /// When `decrypt` throws, whatever it wrote is zeroed before the memory is given back:
    /// nothing decrypted outlives a refused frame, not even in freed memory.
    static func plaintext(
        count: Int, _ decrypt: (UnsafeMutableBufferPointer<UInt8>) throws(WireError) -> Int
    ) throws(WireError) -> [UInt8] {
        var failure: WireError?
        let plaintext = [UInt8](unsafeUninitializedCapacity: count) { out, initialised in
            initialised = 0
            do throws(WireError) {
                initialised = try decrypt(out)
            } catch {
                out.update(repeating: 0)
                failure = error
            }
        }
        if let failure { throw failure }
        return plaintext
    }
}

/// A libcrypto context keyed for one direction. A block mode (`blocks`) gets padding off, so
/// that decryption hands back every block at once; GCM has no padding, and setting it would
/// be applied again (as a parameter lookup) each time a frame's nonce is set.
func makeCipherContext(
    _ type: OpaquePointer?, key: [UInt8], encrypt: Bool, blocks: Bool
) throws(WireError) -> OpaquePointer {
    guard let context = EVP_CIPHER_CTX_new() else {
        ERR_clear_error()
        throw .invalidKey("libcrypto could not make a cipher context")
    }
    guard EVP_CipherInit_ex(context, type, nil, key, nil, encrypt ? 1 : 0) == 1,
        !blocks || EVP_CIPHER_CTX_set_padding(context, 0) == 1
    else {
        EVP_CIPHER_CTX_free(context)
        ERR_clear_error()
        throw .invalidKey("libcrypto could not key AES-128")
    }
    return context
}

/// AES-128-ECB fetched from libcrypto's providers once for the process (never freed), as an
/// address (a plain number is Sendable; 0 if the fetch failed, and then the implicit fetch of
/// `EVP_aes_128_ecb()` is used). ECB is keyed for each call (`AESContexts`), and keying from
/// `EVP_aes_128_ecb()` fetches the cipher again every time: 334 against 148 ns a call.
private let fetchedECB: UInt = {
    let cipher = EVP_CIPHER_fetch(nil, "AES-128-ECB", nil)
    if cipher == nil { ERR_clear_error() }
    return UInt(bitPattern: cipher)
}()
