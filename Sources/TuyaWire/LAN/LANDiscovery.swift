/// Tuya LAN discovery datagrams (protocol/TUYA.md §2.1; TT `udp_helper.decrypt_udp`):
///
/// | Port | Who | Form |
/// |---|---|---|
/// | 6666 | 3.1 devices | 55AA frame (cmd 0, retcode) around plaintext JSON |
/// | 6667 | 3.3/3.4 devices | 55AA frame (cmd UDP_NEW, retcode) around AES-ECB(broadcastKey, PKCS7(json)) |
/// | 6667 | older 3.5 devices | 6699 frame (cmd UDP_NEW) sealed with the broadcast key, retcode first |
/// | 7000 | apps → 3.5 devices, and their answers | 6699 frame sealed with the broadcast key |
///
/// The broadcast key is MD5("yGAdlopoPVldABfn"), the same for every device.
public enum LANDiscovery {
    /// The broadcast key's GCM contexts, keyed once for every datagram sent or received.
    static let broadcastCipher = LANFrameKey(broadcastKey, version: .v3_5)

    public static let broadcastKey: AESKey = {
        // 16 bytes by construction: an MD5 digest.
        guard let key = try? AESKey(bytes: MD5Digest.hash(Array("yGAdlopoPVldABfn".utf8))) else {
            preconditionFailure("MD5 digests are 16 bytes")
        }
        return key
    }()

    public static let plaintextPort: UInt16 = 6666
    public static let encryptedPort: UInt16 = 6667
    public static let solicitationPort: UInt16 = 7000
    /// Larger datagrams are refused before any work; announcements are about 200 bytes.
    public static let maxDatagramSize = 4_096

    /// How an announcement is wrapped.
    public enum Format: Sendable, Hashable {
        /// 3.1: plaintext JSON in a 55AA frame, to UDP 6666.
        case plaintext
        /// 3.3/3.4: ECB-encrypted JSON in a 55AA frame, to UDP 6667.
        case ecb
        /// 3.5: a GCM-sealed 6699 frame, to UDP 6667 (or unicast to 7000 as an answer).
        case gcm

        /// The form a device of `version` broadcasts in.
        public init(version: LANProtocolVersion) {
            switch version {
            case .v3_1: self = .plaintext
            case .v3_2, .v3_3, .v3_4: self = .ecb
            case .v3_5: self = .gcm
            }
        }

        /// The UDP port this form is broadcast to.
        public var port: UInt16 { self == .plaintext ? LANDiscovery.plaintextPort : LANDiscovery.encryptedPort }
    }

    /// One decoded datagram.
    public enum Packet: Sendable, Hashable {
        case announcement(LANBroadcast, Format)
        case solicitation(LANSolicitation)
    }

    /// Encodes a device's announcement. `nonce` (12 bytes) is needed for `.gcm` only.
    public static func encode(
        _ broadcast: LANBroadcast, format: Format, sequence: UInt32 = 0, nonce: [UInt8]? = nil
    ) throws(WireError) -> [UInt8] {
        switch format {
        case .plaintext:
            return try LAN55AAFrame.encode(
                sequence: sequence, command: .udp, retcode: 0, payload: broadcast.json, integrity: .crc32)
        case .ecb:
            let encrypted = try AESCipher.encryptECB(PKCS7.pad(broadcast.json), key: broadcastKey)
            return try LAN55AAFrame.encode(
                sequence: sequence, command: .udpNew, retcode: 0, payload: encrypted, integrity: .crc32)
        case .gcm:
            guard let nonce else { throw .invalidKey("a 3.5 announcement needs a 12-byte nonce") }
            return try LAN6699Frame.encode(
                sequence: sequence, command: .udpNew, retcode: 0, header: nil, payload: broadcast.json,
                cipher: broadcastCipher.cipher(), nonce: nonce)
        }
    }

    /// Decodes any discovery datagram: an announcement in one of the three forms (or the
    /// bare ECB blob of old firmware), or an app's solicitation.
    public static func decode(_ datagram: [UInt8]) throws(WireError) -> Packet {
        guard datagram.count <= maxDatagramSize else {
            throw .lengthOutOfRange(field: "discovery datagram", value: datagram.count, limit: maxDatagramSize)
        }
        if datagram.starts(with: LAN6699Frame.prefix) {
            let frame = try LAN6699Frame.decode(
                datagram, direction: .toDevice, cipher: broadcastCipher.cipher(), maxSize: maxDatagramSize)
            let json = jsonAfterOptionalRetcode(frame.payload)
            if frame.command == .requestDeviceInfo || isSolicitation(json) {
                return .solicitation(try LANSolicitation(json: json))
            }
            return .announcement(try LANBroadcast(json: json), .gcm)
        }
        if datagram.starts(with: LAN55AAFrame.prefix) {
            let frame = try LAN55AAFrame.decode(
                datagram, direction: .fromDevice, integrity: .crc32, maxSize: maxDatagramSize)
            if frame.payload.first == UInt8(ascii: "{"), frame.payload.last == UInt8(ascii: "}") {
                return .announcement(try LANBroadcast(json: frame.payload), .plaintext)
            }
            return .announcement(try LANBroadcast(json: try decryptECB(frame.payload)), .ecb)
        }
        return .announcement(try LANBroadcast(json: try decryptECB(datagram)), .ecb)
    }

    private static func decryptECB(_ ciphertext: [UInt8]) throws(WireError) -> [UInt8] {
        guard !ciphertext.isEmpty, ciphertext.count % 16 == 0 else {
            throw .malformed("discovery payload of \(ciphertext.count) bytes is not whole 16-byte blocks")
        }
        do throws(WireError) {
            return try PKCS7.unpad(AESCipher.decryptECB(ciphertext, key: broadcastKey))
        } catch {
            throw .keyMismatch("the discovery payload does not decrypt with the broadcast key")
        }
    }

    /// Devices put a retcode before the JSON, apps do not; some apps pad with NULs
    /// (TT `decrypt_udp` uses the same look-ahead).
    private static func jsonAfterOptionalRetcode(_ plaintext: [UInt8]) -> [UInt8] {
        var body = plaintext[...]
        if body.first != UInt8(ascii: "{"), body.count > 4, body[body.startIndex + 4] == UInt8(ascii: "{") {
            body = body.dropFirst(4)
        }
        while body.last == 0 { body = body.dropLast() }
        return Array(body)
    }

    private static func isSolicitation(_ json: [UInt8]) -> Bool {
        let marker = Array(#""from":"app""#.utf8)
        guard json.count >= marker.count else { return false }
        return (0...(json.count - marker.count)).contains { json[$0..<($0 + marker.count)].elementsEqual(marker) }
    }
}
