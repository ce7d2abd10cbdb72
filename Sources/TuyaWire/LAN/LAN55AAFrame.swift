/// The 55AA frame of Tuya LAN protocol 3.1–3.4 (protocol/TUYA.md §2.2, TT `message_helper.py`):
///
/// ```
/// 00 00 55 AA · seqno (4) · cmd (4) · length (4) · [retcode (4), device → client] · payload
///             · CRC-32 (4) or HMAC-SHA256 (32) · 00 00 AA 55
/// ```
///
/// `length` counts from the retcode (or first payload byte) through the suffix. The CRC-32
/// (zlib) and the HMAC (3.4, keyed by the session key, or the real local key during the
/// handshake) both cover everything from the prefix to the end of the payload.
public enum LAN55AAFrame {
    public static let prefix: [UInt8] = [0x00, 0x00, 0x55, 0xAA]
    public static let suffix: [UInt8] = [0x00, 0x00, 0xAA, 0x55]
    /// Prefix and suffix as the big-endian words they are, compared in one step.
    static let prefixWord: UInt32 = 0x0000_55AA
    static let suffixWord: UInt32 = 0x0000_AA55
    /// Prefix, seqno, cmd and length.
    public static let headerSize = 16

    /// How the frame's trailer protects it.
    public enum Integrity: Sendable, Hashable {
        /// 3.1–3.3: zlib CRC-32.
        case crc32
        /// 3.4: HMAC-SHA256 under this key.
        case hmac(AESKey)

        /// Checksum plus suffix.
        var trailerSize: Int {
            switch self {
            case .crc32: 8
            case .hmac: 36
            }
        }
    }

    /// An integrity check ready to run: the HMAC keyed once (`LANFrameKey`).
    enum Check: Sendable {
        case crc32
        case hmac(LANCipher)

        init(_ integrity: Integrity) throws(WireError) {
            switch integrity {
            case .crc32: self = .crc32
            case .hmac(let key): self = .hmac(try LANCipher(key, version: .v3_4))
            }
        }

        var trailerSize: Int {
            switch self {
            case .crc32: 8
            case .hmac: 36
            }
        }

        /// Appends the checksum over everything in `frame` so far, written straight into
        /// the room appended for it.
        func appendChecksum(to frame: inout [UInt8]) throws(WireError) {
            switch self {
            case .crc32:
                let crc = CRC32.checksum(frame)
                BigEndian.append(crc, to: &frame)
            case .hmac(let cipher):
                let covered = frame.count
                frame.append(contentsOf: repeatElement(0, count: 32))
                try frame.withUnsafeMutableBufferPointer { all throws(WireError) in
                    try cipher.authenticate(
                        UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: all[..<covered])),
                        into: all.baseAddress! + covered)
                }
            }
        }

        /// Whether the HMAC over `bytes` equals the 32 bytes at `offset` of `frame`, looking
        /// at every byte whatever the first difference (constant time).
        func verifies(over bytes: ArraySlice<UInt8>, against frame: [UInt8], at offset: Int) throws(WireError) -> Bool {
            guard case .hmac(let cipher) = self else { return false }
            let outcome: Result<Bool, WireError> = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) {
                expected in
                do throws(WireError) {
                    try bytes.withUnsafeBufferPointer { covered throws(WireError) in
                        try cipher.authenticate(UnsafeRawBufferPointer(covered), into: expected.baseAddress!)
                    }
                } catch {
                    return .failure(error)
                }
                var difference: UInt8 = 0
                for index in 0..<32 { difference |= expected[index] ^ frame[offset + index] }
                return .success(difference == 0)
            }
            return try outcome.get()
        }
    }

    /// A whole frame. `retcode` is written only when given (frames from a device).
    public static func encode(
        sequence: UInt32, command: LANCommand, retcode: UInt32? = nil, payload: [UInt8], integrity: Integrity
    ) throws(WireError) -> [UInt8] {
        try encode(
            sequence: sequence, command: command, retcode: retcode, payload: payload, check: Check(integrity))
    }

    static func encode(
        sequence: UInt32, command: LANCommand, retcode: UInt32?, payload: [UInt8], check: Check
    ) throws(WireError) -> [UInt8] {
        var frame = frameStart(
            sequence: sequence, command: command, retcode: retcode, payloadSize: payload.count, check: check)
        frame.append(contentsOf: payload)
        try check.appendChecksum(to: &frame)
        frame.append(contentsOf: suffix)
        return frame
    }

    /// The frame up to its payload: prefix, sequence, command, the length (retcode, payload
    /// of `payloadSize` bytes and trailer) and the retcode when given; room reserved for the rest.
    private static func frameStart(
        sequence: UInt32, command: LANCommand, retcode: UInt32?, payloadSize: Int, check: Check
    ) -> [UInt8] {
        let body = (retcode == nil ? 0 : 4) + payloadSize
        var frame: [UInt8] = []
        frame.reserveCapacity(headerSize + body + check.trailerSize)
        frame.append(contentsOf: prefix)
        BigEndian.append(sequence, to: &frame)
        BigEndian.append(command.rawValue, to: &frame)
        BigEndian.append(UInt32(body + check.trailerSize), to: &frame)
        if let retcode { BigEndian.append(retcode, to: &frame) }
        return frame
    }

    /// A whole frame whose payload is `body` PKCS#7-padded and AES-ECB encrypted under
    /// `cipher`, with `header` in clear before the ciphertext (3.2/3.3) or inside it, before
    /// the body (3.4). Built, sealed and checked in the one array it returns; an empty
    /// `body` sends no payload at all.
    static func encodeSealed(
        sequence: UInt32, command: LANCommand, retcode: UInt32?, header: LANVersionHeader?, headerInside: Bool,
        body: [UInt8], cipher: LANCipher, check: Check
    ) throws(WireError) -> [UInt8] {
        let versionHeader = header == nil ? 0 : LANVersionHeader.size
        let plain = body.isEmpty ? 0 : (headerInside ? versionHeader : 0) + body.count
        let padded = body.isEmpty ? 0 : plain + 16 - plain % 16
        var frame = frameStart(
            sequence: sequence, command: command, retcode: retcode,
            payloadSize: (body.isEmpty || headerInside ? 0 : versionHeader) + padded, check: check)
        if !body.isEmpty {
            if let header, !headerInside { header.append(to: &frame) }
            let sealedFrom = frame.count
            if let header, headerInside { header.append(to: &frame) }
            frame.append(contentsOf: body)
            let pad = padded - plain
            for _ in 0..<pad { frame.append(UInt8(pad)) }
            try frame.withUnsafeMutableBufferPointer { all throws(WireError) in
                try cipher.encryptECB(inPlace: UnsafeMutableBufferPointer(rebasing: all[sealedFrom...]))
            }
        }
        try check.appendChecksum(to: &frame)
        frame.append(contentsOf: suffix)
        return frame
    }

    /// The total size a frame announces in its header, once 16 bytes are there; nil when
    /// the bytes do not start with the 55AA prefix.
    static func announcedSize(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard bytes.count >= headerSize, BigEndian.read(bytes, at: bytes.startIndex) == prefixWord else { return nil }
        return headerSize + Int(BigEndian.read(bytes, at: bytes.startIndex + 12))
    }

    /// Decodes exactly one frame and checks its suffix and checksum. An HMAC that does not
    /// verify throws `authenticationFailed`: the caller knows whether that means a wrong
    /// key (during the handshake) or an altered frame.
    public static func decode(
        _ bytes: [UInt8], direction: LANDirection, integrity: Integrity, maxSize: Int = LANFrame.defaultMaxSize
    ) throws(WireError) -> LANFrame {
        try decode(bytes, direction: direction, check: try Check(integrity), maxSize: maxSize)
    }

    static func decode(
        _ bytes: [UInt8], direction: LANDirection, check integrity: Check, maxSize: Int
    ) throws(WireError) -> LANFrame {
        let (frame, payload) = try decodeInPlace(bytes, direction: direction, check: integrity, maxSize: maxSize)
        var whole = frame
        whole.payload = Array(bytes[payload])
        return whole
    }

    /// Decodes and checks one frame like `decode`, but leaves the payload where it lies:
    /// the frame comes back with an empty payload and the payload's range in `bytes`.
    static func decodeInPlace(
        _ bytes: [UInt8], direction: LANDirection, check integrity: Check, maxSize: Int
    ) throws(WireError) -> (frame: LANFrame, payload: Range<Int>) {
        guard bytes.count <= maxSize else {
            throw .lengthOutOfRange(field: "LAN 55AA frame size", value: bytes.count, limit: maxSize)
        }
        guard bytes.count >= headerSize else {
            throw .truncated(what: "LAN 55AA header", needed: headerSize, available: bytes.count)
        }
        guard BigEndian.read(bytes, at: 0) == prefixWord else {
            throw .malformed("LAN frame does not start with 00 00 55 AA")
        }
        let length = Int(BigEndian.read(bytes, at: 12))
        guard length == bytes.count - headerSize else {
            if length > bytes.count - headerSize {
                throw .truncated(what: "LAN 55AA frame", needed: headerSize + length, available: bytes.count)
            }
            throw .malformed(
                "LAN 55AA length field says \(length) bytes, \(bytes.count - headerSize) follow the header")
        }
        guard length >= integrity.trailerSize else {
            throw .lengthOutOfRange(field: "LAN 55AA length", value: length, limit: integrity.trailerSize)
        }
        guard BigEndian.read(bytes, at: bytes.count - 4) == suffixWord else {
            throw .malformed("LAN 55AA frame does not end with 00 00 AA 55")
        }
        let checkedEnd = bytes.count - integrity.trailerSize
        try verify(bytes, checkedEnd: checkedEnd, integrity: integrity)
        var payloadStart = headerSize
        var retcode: UInt32?
        if direction == .fromDevice, checkedEnd - headerSize >= 4 {
            retcode = BigEndian.read(bytes, at: headerSize)
            payloadStart += 4
        }
        let frame = LANFrame(
            format: .prefix55AA, sequence: BigEndian.read(bytes, at: 4),
            command: LANCommand(rawValue: BigEndian.read(bytes, at: 8)), retcode: retcode, payload: [])
        return (frame, payloadStart..<checkedEnd)
    }

    private static func verify(_ bytes: [UInt8], checkedEnd: Int, integrity: Check) throws(WireError) {
        switch integrity {
        case .crc32:
            let expected = BigEndian.read(bytes, at: checkedEnd)
            let actual = CRC32.checksum(bytes[..<checkedEnd])
            guard expected == actual else {
                throw .checksumMismatch(what: "LAN 55AA CRC-32", expected: expected, actual: actual)
            }
        case .hmac:
            guard try integrity.verifies(over: bytes[..<checkedEnd], against: bytes, at: checkedEnd) else {
                throw .authenticationFailed(what: "LAN 3.4 frame HMAC-SHA256")
            }
        }
    }
}
