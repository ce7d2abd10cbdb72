/// The device side of one TCP connection, for simulated Tuya LAN devices: accepts the
/// 3.4/3.5 handshake, opens requests and seals answers and STATUS pushes
/// (protocol/TUYA.md §2). The mirror of `LANClientSession`.
///
/// A request that does not open under the device's key is reported as `.rejected` and the
/// connection stays up, since devices ignore what they cannot read. A 3.4/3.5 START that
/// does not open is answered anyway, sealed with the device's own key, so a client with
/// the wrong key sees a key mismatch rather than silence. (What real firmware sends here
/// is [unverified].)
public struct LANDeviceSession: Sendable {
    public enum Event: Sendable, Hashable {
        /// Bytes to write now (the handshake's RESP).
        case send([UInt8])
        /// The client's FINISH verified; the session key is in place.
        case established
        /// A request from the client, headers and encryption removed.
        case request(LANMessage)
        /// A frame that did not open under the device's key; the connection stays up.
        case rejected(command: LANCommand, WireError)
        /// The connection cannot go on (garbage, a FINISH signed with another key).
        case failed(LANSessionFailure)
    }

    public enum State: Sendable, Hashable {
        case awaitingStart
        case awaitingFinish
        case established
        case failed(LANSessionFailure)
    }

    public let version: LANProtocolVersion
    public private(set) var state: State
    public private(set) var sessionKey: AESKey?
    /// The device's own sequence counter: global, independent of the client's numbers.
    public private(set) var nextSequence: UInt32
    private let localKey: AESKey
    private let localFrameKey: LANFrameKey
    private var sessionFrameKey: LANFrameKey?
    private let codec: LANMessageCodec
    private var reader: LANFrameReader
    private var random: LANRandom
    private var clientNonce: [UInt8] = []
    private var deviceNonce: [UInt8] = []

    public init(
        version: LANProtocolVersion, localKey: AESKey,
        random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(), firstSequence: UInt32 = 1,
        maxFrameSize: Int = LANFrame.defaultMaxSize
    ) {
        self.version = version
        self.localKey = localKey
        localFrameKey = LANFrameKey(localKey, version: version)
        self.random = LANRandom(random)
        nextSequence = firstSequence
        codec = LANMessageCodec(version: version, maxFrameSize: maxFrameSize)
        reader = LANFrameReader(maxFrameSize: maxFrameSize)
        state = version.negotiatesSessionKey ? .awaitingStart : .established
    }

    public var isEstablished: Bool { state == .established }

    /// Feeds bytes from the client; returns what happened, in order.
    public mutating func receive(_ bytes: [UInt8]) -> [Event] {
        if case .failed = state { return [] }
        reader.append(bytes)
        // A client's usual read: one whole frame on an established session.
        if case .established = state, let frame = reader.takeWholeFrame() { return open(frame) }
        var events: [Event] = []
        while true {
            let frame: [UInt8]
            do throws(WireError) {
                guard let next = try reader.next() else { return events }
                frame = next
            } catch {
                return events + fail(.malformed(error))
            }
            switch state {
            case .awaitingStart: events += answerStart(frame)
            case .awaitingFinish: events += checkFinish(frame)
            case .established: events += open(frame)
            case .failed: return events
            }
            if case .failed = state { return events }
        }
    }

    /// An answer or push: the retcode goes first, a non-empty STATUS body gets `header`
    /// (default: the device's source header with this frame's sequence and source id 1).
    public mutating func encode(
        _ command: LANCommand, retcode: UInt32 = 0, json: [UInt8], header: LANVersionHeader? = nil
    ) throws(WireError) -> [UInt8] {
        guard state == .established else {
            throw .sessionNotEstablished("cannot send \(command) while the session is \(state)")
        }
        let sourceHeader =
            header
            ?? LANVersionHeader(version: version, sequence: nextSequence, source: LANVersionHeader.deviceSource)
        return try seal(
            command, retcode: retcode, payload: json, key: sessionFrameKey ?? localFrameKey, header: sourceHeader)
    }

    private mutating func seal(
        _ command: LANCommand, retcode: UInt32, payload: [UInt8], key: LANFrameKey, header: LANVersionHeader?
    ) throws(WireError) -> [UInt8] {
        let message = LANMessage(
            command: command, sequence: nextSequence, retcode: retcode, payload: payload, header: header)
        let nonce = version.usesGCMFrames ? random.bytes(LAN6699Frame.nonceSize) : nil
        let frame = try codec.encode(message, frameKey: key, nonce: nonce)
        nextSequence &+= 1
        return frame
    }

    private mutating func answerStart(_ frame: [UInt8]) -> [Event] {
        var events: [Event] = []
        do throws(WireError) {
            let start = try codec.decode(frame, frameKey: localFrameKey, direction: .toDevice)
            guard start.command == .sessionKeyStart, start.payload.count >= LANHandshake.nonceSize else {
                return [
                    .rejected(
                        command: start.command,
                        .invalidField(field: "cmd", reason: "expected a 16-byte SESS_KEY_NEG_START"))
                ]
            }
            clientNonce = Array(start.payload.prefix(LANHandshake.nonceSize))
        } catch {
            // Unreadable under this key: answer over a nonce of our own, so the client's
            // check fails on its side.
            events.append(.rejected(command: .sessionKeyStart, error))
            clientNonce = random.bytes(LANHandshake.nonceSize)
        }
        deviceNonce = random.bytes(LANHandshake.nonceSize)
        let payload = LANHandshake.responsePayload(
            localKey: localKey, clientNonce: clientNonce, deviceNonce: deviceNonce)
        do throws(WireError) {
            events.append(
                .send(try seal(.sessionKeyResponse, retcode: 0, payload: payload, key: localFrameKey, header: nil)))
            state = .awaitingFinish
            return events
        } catch {
            return events + fail(.malformed(error))
        }
    }

    private mutating func checkFinish(_ frame: [UInt8]) -> [Event] {
        let finish: LANMessage
        do throws(WireError) {
            finish = try codec.decode(frame, frameKey: localFrameKey, direction: .toDevice)
        } catch {
            if case .authenticationFailed = error {
                return fail(.keyMismatch("the client's SESS_KEY_NEG_FINISH does not verify under the local key"))
            }
            return fail(.malformed(error))
        }
        if finish.command == .sessionKeyStart {
            // A client that starts over on the same connection.
            state = .awaitingStart
            return answerStart(frame)
        }
        guard finish.command == .sessionKeyFinish else {
            return fail(
                .malformed(.invalidField(field: "cmd", reason: "expected SESS_KEY_NEG_FINISH, got \(finish.command)")))
        }
        guard LANHandshake.verifyFinish(finish.payload, localKey: localKey, deviceNonce: deviceNonce) else {
            return fail(.handshakeHMACMismatch)
        }
        do throws(WireError) {
            let agreed = try LANHandshake.sessionKey(
                version: version, localKey: localKey, clientNonce: clientNonce, deviceNonce: deviceNonce)
            sessionKey = agreed
            sessionFrameKey = LANFrameKey(agreed, version: version)
        } catch {
            return fail(.malformed(error))
        }
        state = .established
        return [.established]
    }

    private mutating func open(_ frame: [UInt8]) -> [Event] {
        do throws(WireError) {
            return [.request(try codec.decode(frame, frameKey: sessionFrameKey ?? localFrameKey, direction: .toDevice))]
        } catch {
            switch error {
            case .keyMismatch, .authenticationFailed:
                return [.rejected(command: Self.command(of: frame), error)]
            default:
                return fail(.malformed(error))
            }
        }
    }

    /// The clear command field of a frame that did not open.
    private static func command(of frame: [UInt8]) -> LANCommand {
        let offset = frame.starts(with: LAN6699Frame.prefix) ? 10 : 8
        guard frame.count >= offset + 4 else { return LANCommand(rawValue: 0) }
        return LANCommand(rawValue: BigEndian.read(frame, at: offset))
    }

    private mutating func fail(_ failure: LANSessionFailure) -> [Event] {
        state = .failed(failure)
        return [.failed(failure)]
    }
}
