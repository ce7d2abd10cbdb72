/// The payload rules of each Tuya LAN protocol version, on top of the 55AA and 6699
/// frames (protocol/TUYA.md §2.3, TT `XenonDevice._encode_message` / `_decode_payload`):
///
/// | Version | Payload on the wire |
/// |---|---|
/// | 3.1 | CONTROL: `"3.1"` ‖ MD5 signature (16 hex chars) ‖ base64(AES-ECB(localKey, PKCS7(json))); everything else plaintext JSON |
/// | 3.2/3.3 | AES-ECB(localKey, PKCS7(json)), with the version header in clear in front when the command carries one |
/// | 3.4 | AES-ECB(key, PKCS7(header ‖ json)), HMAC-SHA256(key) trailer |
/// | 3.5 | AES-GCM(key) over header ‖ json in a 6699 frame |
///
/// `key` is the local key for 3.1–3.3 and for the handshake messages of 3.4/3.5, and the
/// session key for 3.4/3.5 data. An empty payload (a bare acknowledgement) is sent as no
/// bytes at all in every version, as devices do.
///
/// On decoding, a 15-byte version or source header at the start of the payload is taken
/// off and returned in `LANMessage.header`. A 3.1–3.3 frame whose CRC is intact but whose
/// payload does not decrypt to JSON or text throws `keyMismatch`; a 3.4/3.5 frame whose
/// HMAC or tag does not verify throws `authenticationFailed`.
public struct LANMessageCodec: Sendable, Hashable {
    public let version: LANProtocolVersion
    public let maxFrameSize: Int

    public init(version: LANProtocolVersion, maxFrameSize: Int = LANFrame.defaultMaxSize) {
        self.version = version
        self.maxFrameSize = maxFrameSize
    }

    /// A whole frame for `message`. A non-empty payload of a command that carries the
    /// version header gets `message.header`, or the all-zero header when that is nil.
    /// 3.5 needs a fresh 12-byte `nonce` for every frame.
    public func encode(_ message: LANMessage, key: AESKey, nonce: [UInt8]? = nil) throws(WireError) -> [UInt8] {
        try encode(message, frameKey: LANFrameKey(key, version: version), nonce: nonce)
    }

    /// Decodes one whole frame (as `LANFrameReader` cuts them) sealed with `key`.
    public func decode(_ bytes: [UInt8], key: AESKey, direction: LANDirection) throws(WireError) -> LANMessage {
        try decode(bytes, frameKey: LANFrameKey(key, version: version), direction: direction)
    }

    func encode(_ message: LANMessage, frameKey: LANFrameKey, nonce: [UInt8]?) throws(WireError) -> [UInt8] {
        let payload = message.payload
        switch version {
        case .v3_1:
            let wire =
                message.command == .control && !payload.isEmpty
                ? try LANLegacySignature.seal(payload, key: frameKey) : payload
            return try LAN55AAFrame.encode(
                sequence: message.sequence, command: message.command, retcode: message.retcode, payload: wire,
                integrity: .crc32)
        case .v3_2, .v3_3, .v3_4:
            // One array: the frame is built, padded, encrypted and checked where it lies.
            return try LAN55AAFrame.encodeSealed(
                sequence: message.sequence, command: message.command, retcode: message.retcode,
                header: headerValue(for: message), headerInside: version == .v3_4, body: payload,
                cipher: frameKey.cipher(), check: frameKey.check())
        case .v3_5:
            guard let nonce else { throw .invalidKey("a 3.5 frame needs a 12-byte nonce") }
            return try LAN6699Frame.encode(
                sequence: message.sequence, command: message.command, retcode: message.retcode,
                header: payload.isEmpty ? nil : headerValue(for: message), payload: payload,
                cipher: frameKey.cipher(), nonce: nonce)
        }
    }

    func decode(_ bytes: [UInt8], frameKey: LANFrameKey, direction: LANDirection) throws(WireError) -> LANMessage {
        switch version {
        case .v3_1:
            let frame = try LAN55AAFrame.decode(bytes, direction: direction, integrity: .crc32, maxSize: maxFrameSize)
            let payload = try LANLegacySignature.open(frame.payload, key: frameKey)
            return LANMessage(
                command: frame.command, sequence: frame.sequence, retcode: frame.retcode, payload: payload)
        case .v3_2, .v3_3:
            // The payload is decrypted from where it lies in the frame's bytes, not copied first.
            let (frame, payload) = try LAN55AAFrame.decodeInPlace(
                bytes, direction: direction, check: .crc32, maxSize: maxFrameSize)
            return try openECBWithClearHeader(frame, ciphertext: bytes[payload], cipher: frameKey.cipher())
        case .v3_4:
            let (frame, payload) = try LAN55AAFrame.decodeInPlace(
                bytes, direction: direction, check: frameKey.check(), maxSize: maxFrameSize)
            var plaintext: [UInt8] = []
            if !payload.isEmpty {
                do throws(WireError) {
                    plaintext = try frameKey.cipher().decryptECB(bytes[payload], removingPKCS7: true)
                } catch {
                    throw .malformed("3.4 payload of \(payload.count) bytes does not decrypt: \(error)")
                }
            }
            return message(from: frame, plaintext: &plaintext)
        case .v3_5:
            var frame = try LAN6699Frame.decode(
                bytes, direction: direction, cipher: frameKey.cipher(), maxSize: maxFrameSize)
            // The plaintext moves out of the frame, so the header comes off without a copy.
            var plaintext: [UInt8] = []
            swap(&plaintext, &frame.payload)
            return message(from: frame, plaintext: &plaintext)
        }
    }

    /// The version header a message's payload starts with, when its command carries one.
    private func headerValue(for message: LANMessage) -> LANVersionHeader? {
        guard message.command.carriesVersionHeader, !message.payload.isEmpty else { return nil }
        return message.header ?? LANVersionHeader(version: version)
    }

    /// Splits a decrypted 3.4/3.5 payload into its header and body; the header is taken off
    /// the plaintext where it lies, so the body is not copied again. Handshake payloads are
    /// nonces and HMACs: they are never searched for a header.
    private func message(from frame: LANFrame, plaintext: inout [UInt8]) -> LANMessage {
        var header: LANVersionHeader?
        if !frame.command.isHandshake, let found = LANVersionHeader(plaintext[...], version: version) {
            header = found
            plaintext.removeSubrange(0..<LANVersionHeader.size)
        }
        return LANMessage(
            command: frame.command, sequence: frame.sequence, retcode: frame.retcode, payload: plaintext,
            header: header)
    }

    /// 3.2/3.3: an optional clear header, then ECB ciphertext. A payload 15 bytes over
    /// whole blocks has a header under another version's digits (a device22 device that
    /// calls itself 3.2, TT `_decode_payload`); it is dropped as well.
    private func openECBWithClearHeader(
        _ frame: LANFrame, ciphertext payload: ArraySlice<UInt8>, cipher: LANCipher
    ) throws(WireError) -> LANMessage {
        var ciphertext = payload
        var header: LANVersionHeader?
        if let found = LANVersionHeader(ciphertext, version: version) {
            header = found
            ciphertext = ciphertext.dropFirst(LANVersionHeader.size)
        } else if ciphertext.count % 16 == LANVersionHeader.size {
            ciphertext = ciphertext.dropFirst(LANVersionHeader.size)
        }
        guard !ciphertext.isEmpty else {
            return LANMessage(command: frame.command, sequence: frame.sequence, retcode: frame.retcode, payload: [])
        }
        let body = try Self.decryptBody(ciphertext, cipher: cipher, version: version)
        return LANMessage(
            command: frame.command, sequence: frame.sequence, retcode: frame.retcode, payload: body, header: header)
    }

    /// Decrypts an ECB body whose frame checksum already passed, so every failure means
    /// the key is wrong. With a wrong key the padding still looks valid about once in 256
    /// frames, so the body must also be a JSON object or plain text (devices answer some
    /// requests with text such as "json obj data unvalid").
    static func decryptBody(_ ciphertext: ArraySlice<UInt8>, cipher: LANCipher, version: LANProtocolVersion)
        throws(WireError) -> [UInt8]
    {
        guard ciphertext.count % 16 == 0 else {
            throw .malformed("\(version) ciphertext of \(ciphertext.count) bytes is not whole 16-byte blocks")
        }
        let body: [UInt8]
        do throws(WireError) {
            body = try cipher.decryptECB(ciphertext, removingPKCS7: true)
        } catch {
            throw .keyMismatch("LAN \(version) payload does not decrypt with the local key")
        }
        guard MQTTFrame.looksLikeJSONObject(body) || isPlainText(body) else {
            throw .keyMismatch("LAN \(version) payload is not JSON after decryption")
        }
        return body
    }

    private static func isPlainText(_ body: [UInt8]) -> Bool {
        !body.isEmpty && body.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }
}
