/// The 6699 frame of Tuya LAN protocol 3.5 and of 3.5 discovery (protocol/TUYA.md §2.2,
/// TT `message_helper.py`):
///
/// ```
/// 00 00 66 99 · reserved 00 00 · seqno (4) · cmd (4) · length (4) · nonce (12)
///             · AES-128-GCM ciphertext · tag (16) · 00 00 99 66
/// ```
///
/// `length` counts nonce, ciphertext and tag. The additional authenticated data is the
/// 14 bytes after the prefix (reserved ‖ seqno ‖ cmd ‖ length). Frames from a device
/// carry their 4-byte retcode as the first plaintext bytes. GCM does not pad.
public enum LAN6699Frame {
    public static let prefix: [UInt8] = [0x00, 0x00, 0x66, 0x99]
    public static let suffix: [UInt8] = [0x00, 0x00, 0x99, 0x66]
    /// Prefix and suffix as the big-endian words they are, compared in one step.
    static let prefixWord: UInt32 = 0x0000_6699
    static let suffixWord: UInt32 = 0x0000_9966
    /// Prefix, reserved, seqno, cmd and length.
    public static let headerSize = 18
    public static let nonceSize = 12
    public static let tagSize = 16
    /// Header, nonce, tag and suffix around the ciphertext.
    public static let overhead = headerSize + nonceSize + tagSize + 4

    /// A whole frame. `nonce` must be 12 bytes and never repeat under one key: the caller
    /// draws it from its random source.
    public static func encode(
        sequence: UInt32, command: LANCommand, retcode: UInt32? = nil, payload: [UInt8], key: AESKey,
        nonce: [UInt8]
    ) throws(WireError) -> [UInt8] {
        try encode(
            sequence: sequence, command: command, retcode: retcode, header: nil, payload: payload,
            cipher: LANCipher(key, version: .v3_5), nonce: nonce)
    }

    /// A whole frame whose plaintext is `retcode` ‖ `header` ‖ `payload`, built and sealed
    /// in the one array it returns.
    static func encode(
        sequence: UInt32, command: LANCommand, retcode: UInt32?, header: LANVersionHeader?, payload: [UInt8],
        cipher: LANCipher, nonce: [UInt8]
    ) throws(WireError) -> [UInt8] {
        guard nonce.count == nonceSize else {
            throw .invalidKey("a 6699 frame nonce is \(nonceSize) bytes, got \(nonce.count)")
        }
        let plain = (retcode == nil ? 0 : 4) + (header == nil ? 0 : LANVersionHeader.size) + payload.count
        var frame: [UInt8] = []
        frame.reserveCapacity(overhead + plain)
        frame.append(contentsOf: prefix)
        frame.append(0)
        frame.append(0)
        BigEndian.append(sequence, to: &frame)
        BigEndian.append(command.rawValue, to: &frame)
        BigEndian.append(UInt32(nonceSize + plain + tagSize), to: &frame)
        frame.append(contentsOf: nonce)
        let start = frame.count
        if let retcode { BigEndian.append(retcode, to: &frame) }
        header?.append(to: &frame)
        frame.append(contentsOf: payload)
        try cipher.sealGCM(&frame, from: start, nonce: nonce, authenticating: 4..<headerSize)
        frame.append(contentsOf: suffix)
        return frame
    }

    /// The total size a frame announces in its header, once 18 bytes are there; nil when
    /// the bytes do not start with the 6699 prefix.
    static func announcedSize(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard bytes.count >= headerSize, BigEndian.read(bytes, at: bytes.startIndex) == prefixWord else { return nil }
        return headerSize + Int(BigEndian.read(bytes, at: bytes.startIndex + 14)) + 4
    }

    /// Decodes and opens exactly one frame. A tag that does not verify throws
    /// `authenticationFailed`; a frame from a device too short for its retcode is malformed.
    public static func decode(
        _ bytes: [UInt8], direction: LANDirection, key: AESKey, maxSize: Int = LANFrame.defaultMaxSize
    ) throws(WireError) -> LANFrame {
        try decode(bytes, direction: direction, cipher: LANCipher(key, version: .v3_5), maxSize: maxSize)
    }

    static func decode(
        _ bytes: [UInt8], direction: LANDirection, cipher: LANCipher, maxSize: Int
    ) throws(WireError) -> LANFrame {
        let header = try checkLayout(bytes, maxSize: maxSize)
        var payload = try cipher.openGCM(
            combined: bytes[headerSize..<(bytes.count - 4)], authenticating: bytes[4..<headerSize])
        var retcode: UInt32?
        if direction == .fromDevice {
            guard payload.count >= 4 else {
                throw .truncated(what: "LAN 6699 retcode", needed: 4, available: payload.count)
            }
            retcode = BigEndian.read(payload, at: 0)
            payload.removeSubrange(0..<4)
        }
        return LANFrame(
            format: .prefix6699, sequence: header.sequence, command: header.command, retcode: retcode,
            payload: payload)
    }

    /// Size, prefix, length field and suffix of a 6699 frame; returns its clear header.
    static func checkLayout(_ bytes: [UInt8], maxSize: Int) throws(WireError) -> (
        sequence: UInt32, command: LANCommand
    ) {
        guard bytes.count <= maxSize else {
            throw .lengthOutOfRange(field: "LAN 6699 frame size", value: bytes.count, limit: maxSize)
        }
        guard bytes.count >= headerSize else {
            throw .truncated(what: "LAN 6699 header", needed: headerSize, available: bytes.count)
        }
        guard BigEndian.read(bytes, at: 0) == prefixWord else {
            throw .malformed("LAN frame does not start with 00 00 66 99")
        }
        let length = Int(BigEndian.read(bytes, at: 14))
        guard length == bytes.count - headerSize - 4 else {
            if length > bytes.count - headerSize - 4 {
                throw .truncated(what: "LAN 6699 frame", needed: headerSize + length + 4, available: bytes.count)
            }
            throw .malformed("LAN 6699 length field says \(length) bytes, \(bytes.count - headerSize - 4) follow")
        }
        guard length >= nonceSize + tagSize else {
            throw .lengthOutOfRange(field: "LAN 6699 length", value: length, limit: nonceSize + tagSize)
        }
        guard BigEndian.read(bytes, at: bytes.count - 4) == suffixWord else {
            throw .malformed("LAN 6699 frame does not end with 00 00 99 66")
        }
        return (BigEndian.read(bytes, at: 6), LANCommand(rawValue: BigEndian.read(bytes, at: 10)))
    }
}
