/// The client side of one TCP connection to a Tuya LAN device, as a pure state machine
/// the link pipes bytes through (protocol/TUYA.md §2; shaped like swift-nio's protocol
/// state machines: bytes in, events out, the caller performs them).
///
/// ```swift
/// var session = LANClientSession(version: .v3_4, localKey: key)
/// socket.write(session.start())                 // START for 3.4/3.5, nothing before that
/// for event in session.receive(bytesFromSocket) {
///     switch event {
///     case .send(let bytes): socket.write(bytes)  // FINISH, in order
///     case .established: …                        // data frames may be encoded now
///     case .message(let message): …               // STATUS push, query answer, ack
///     case .failed(let failure): …                // close; report auth_failed if failure.isKeyMismatch
///     }
/// }
/// socket.write(try session.encode(.controlNew, json: body))
/// ```
///
/// Rules it keeps:
/// - One value per TCP connection; `start()` on an existing value begins a new
///   connection (a fresh nonce, so a fresh session key, and an empty frame buffer) and
///   keeps the sequence counter running.
/// - 3.1–3.3 are established at once; 3.4/3.5 after the device's answer has verified.
///   `encode` before that throws `sessionNotEstablished`.
/// - Sequence numbers count up by one per frame sent, handshake frames included,
///   from `firstSequence`.
/// - A failure is final: after `.failed`, `receive` returns nothing and `encode` throws.
///   Timeouts are the link's business; the session keeps no clock.
public struct LANClientSession: Sendable {
    public enum Event: Sendable, Hashable {
        /// Bytes to write to the socket now (the handshake's FINISH).
        case send([UInt8])
        /// The session key is agreed (3.4/3.5); data frames may be sent.
        case established
        /// A message from the device, headers and encryption removed.
        case message(LANMessage)
        /// The connection cannot go on; close it.
        case failed(LANSessionFailure)
    }

    public enum State: Sendable, Hashable {
        /// 3.4/3.5 before `start()`.
        case idle
        /// START sent, waiting for the device's answer.
        case negotiating
        case established
        case failed(LANSessionFailure)
    }

    public let version: LANProtocolVersion
    public private(set) var state: State
    /// The agreed session key (3.4/3.5), nil before the handshake and for older versions.
    public private(set) var sessionKey: AESKey?
    /// The sequence number the next frame will carry.
    public private(set) var nextSequence: UInt32
    private let localKey: AESKey
    private let localFrameKey: LANFrameKey
    private var sessionFrameKey: LANFrameKey?
    private let sourceID: UInt32?
    private let codec: LANMessageCodec
    private var reader: LANFrameReader
    private var random: LANRandom
    private var clientNonce: [UInt8] = []

    /// - Parameters:
    ///   - random: where handshake and GCM nonces come from.
    ///   - sourceID: when given, outgoing version headers carry it with the frame's sequence
    ///     number (the "source header"); the caller keeps one random non-zero id per
    ///     gateway. nil sends the all-zero header, as tinytuya does.
    ///   - firstSequence: the first frame's sequence number; with a persistent `sourceID`
    ///     keep it rising across connections, as devices drop repeated sequences per source.
    public init(
        version: LANProtocolVersion, localKey: AESKey,
        random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(), sourceID: UInt32? = nil,
        firstSequence: UInt32 = 1, maxFrameSize: Int = LANFrame.defaultMaxSize
    ) {
        self.version = version
        self.localKey = localKey
        localFrameKey = LANFrameKey(localKey, version: version)
        self.random = LANRandom(random)
        self.sourceID = sourceID
        nextSequence = firstSequence
        codec = LANMessageCodec(version: version, maxFrameSize: maxFrameSize)
        reader = LANFrameReader(maxFrameSize: maxFrameSize)
        state = version.negotiatesSessionKey ? .idle : .established
    }

    public var isEstablished: Bool { state == .established }

    /// The bytes of a frame the device has begun but not finished, and the size it announced
    /// (nil before its header is in); nil between frames. What a connection that ends now
    /// leaves cut off.
    public var partialFrame: (received: Int, expected: Int?)? {
        let received = reader.bufferedCount
        return received == 0 ? nil : (received, reader.announcedSize)
    }

    /// Begins a connection: the handshake's START frame for 3.4/3.5, nothing for older
    /// versions (which are established already).
    public mutating func start() -> [UInt8] {
        reader.reset()
        sessionKey = nil
        sessionFrameKey = nil
        guard version.negotiatesSessionKey else {
            state = .established
            return []
        }
        clientNonce = random.bytes(LANHandshake.nonceSize)
        do throws(WireError) {
            let frame = try seal(.sessionKeyStart, payload: clientNonce, key: localFrameKey, header: nil)
            state = .negotiating
            return frame
        } catch {
            state = .failed(.malformed(error))
            return []
        }
    }

    /// Feeds bytes read from the socket; returns what happened, in order.
    public mutating func receive(_ bytes: [UInt8]) -> [Event] {
        switch state {
        case .failed: return []
        case .idle: return fail(.malformed(.sessionNotEstablished("bytes arrived before start()")))
        case .negotiating, .established: break
        }
        reader.append(bytes)
        // A device's usual read: one whole frame on an established session.
        if case .established = state, let frame = reader.takeWholeFrame() { return [deliver(frame)] }
        var events: [Event] = []
        while true {
            let frame: [UInt8]
            do throws(WireError) {
                guard let next = try reader.next() else { return events }
                frame = next
            } catch {
                return events + fail(.malformed(error))
            }
            if state == .negotiating {
                events += finishHandshake(frame)
            } else {
                events.append(deliver(frame))
            }
            if case .failed = state { return events }
        }
    }

    /// A data frame for `command` with `json` as its body (see `LANRequest` for the bodies
    /// each version expects).
    public mutating func encode(_ command: LANCommand, json: [UInt8]) throws(WireError) -> [UInt8] {
        guard state == .established else {
            throw .sessionNotEstablished("cannot send \(command) while the session is \(state)")
        }
        let header = sourceID.map { LANVersionHeader(version: version, sequence: nextSequence, source: $0) }
        return try seal(command, payload: json, key: sessionFrameKey ?? localFrameKey, header: header)
    }

    /// A request built by `LANRequest`.
    public mutating func encode(_ request: LANRequest) throws(WireError) -> [UInt8] {
        try encode(request.command, json: request.json)
    }

    private mutating func seal(
        _ command: LANCommand, payload: [UInt8], key: LANFrameKey, header: LANVersionHeader?
    ) throws(WireError) -> [UInt8] {
        let message = LANMessage(command: command, sequence: nextSequence, payload: payload, header: header)
        let nonce = version.usesGCMFrames ? random.bytes(LAN6699Frame.nonceSize) : nil
        let frame = try codec.encode(message, frameKey: key, nonce: nonce)
        nextSequence &+= 1
        return frame
    }

    /// The device's SESS_KEY_NEG_RESP: check it, answer with FINISH, derive the key.
    private mutating func finishHandshake(_ frame: [UInt8]) -> [Event] {
        let answer: LANMessage
        do throws(WireError) {
            answer = try codec.decode(frame, frameKey: localFrameKey, direction: .fromDevice)
        } catch {
            if case .authenticationFailed = error {
                return fail(.keyMismatch("the device's session-key answer does not verify under the local key"))
            }
            return fail(.malformed(error))
        }
        guard answer.command == .sessionKeyResponse else {
            return fail(
                .malformed(
                    .invalidField(field: "cmd", reason: "expected SESS_KEY_NEG_RESP (4), got \(answer.command)")))
        }
        if let retcode = answer.retcode, retcode != 0 {
            return fail(
                .malformed(.invalidField(field: "retcode", reason: "the device refused the handshake (\(retcode))")))
        }
        do throws(LANSessionFailure) {
            let deviceNonce = try LANHandshake.deviceNonce(
                fromResponse: answer.payload, localKey: localKey, clientNonce: clientNonce)
            let finish = LANHandshake.finishPayload(localKey: localKey, deviceNonce: deviceNonce)
            do throws(WireError) {
                let bytes = try seal(.sessionKeyFinish, payload: finish, key: localFrameKey, header: nil)
                let agreed = try LANHandshake.sessionKey(
                    version: version, localKey: localKey, clientNonce: clientNonce, deviceNonce: deviceNonce)
                sessionKey = agreed
                sessionFrameKey = LANFrameKey(agreed, version: version)
                state = .established
                return [.send(bytes), .established]
            } catch {
                return fail(.malformed(error))
            }
        } catch {
            return fail(error)
        }
    }

    private mutating func deliver(_ frame: [UInt8]) -> Event {
        do throws(WireError) {
            return .message(
                try codec.decode(frame, frameKey: sessionFrameKey ?? localFrameKey, direction: .fromDevice))
        } catch {
            let failure: LANSessionFailure
            if case .keyMismatch(let detail) = error {
                failure = .keyMismatch(detail)
            } else {
                failure = .malformed(error)
            }
            state = .failed(failure)
            return .failed(failure)
        }
    }

    private mutating func fail(_ failure: LANSessionFailure) -> [Event] {
        state = .failed(failure)
        return [.failed(failure)]
    }
}
