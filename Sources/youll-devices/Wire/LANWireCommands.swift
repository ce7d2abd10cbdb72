import ArgumentParser
import Foundation
import TuyaCore
import TuyaWire

/// Options the LAN `wire` commands share: the protocol version and the keys of one
/// connection (protocol/TUYA.md §2).
struct LANKeyOptions: ParsableArguments {
    @Option(name: .long, help: "The LAN protocol version: 3.1, 3.2, 3.3, 3.4 or 3.5.")
    var `protocol`: String?

    @Option(
        name: .long,
        help: "The session key of the connection (32 hex digits), for 3.4/3.5 data frames; handshake frames use --key.")
    var sessionKey: String?

    func version() throws -> LANProtocolVersion {
        guard let text = `protocol` else { throw CLIError.usage("--protocol: give the LAN protocol version, e.g. 3.3") }
        guard let version = LANProtocolVersion(text) else {
            throw CLIError.usage("--protocol: \"\(text)\" is not one of 3.1, 3.2, 3.3, 3.4, 3.5")
        }
        return version
    }

    /// The key a frame of `command` is sealed with: the local key up to 3.3 and for the
    /// handshake, the session key for 3.4/3.5 data.
    func key(for command: LANCommand, version: LANProtocolVersion, localKey: String) throws -> AESKey {
        guard version.negotiatesSessionKey, !command.isHandshake else { return try AESKey(localKey: localKey) }
        guard let sessionKey else {
            throw CLIError(
                "--session-key: a \(version) \(command.name ?? "data") frame is sealed with its connection's session key; give it as 32 hex digits"
            )
        }
        let bytes = try Hex.decode(sessionKey, what: "--session-key")
        guard bytes.count == 16 else {
            throw CLIError.usage("--session-key: 16 bytes (32 hex digits) expected, got \(bytes.count)")
        }
        return try AESKey(bytes: bytes)
    }
}

/// `wire decode lan --protocol 3.x --key K [--session-key HEX] [--from device|client] HEX`:
/// header fields, the version or source header and the JSON body of one Tuya LAN frame.
struct LANDecode: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lan", abstract: "Decode a Tuya LAN frame (55AA or 6699, protocol 3.1–3.5).")

    @OptionGroup var options: KeyOptions
    @OptionGroup var lan: LANKeyOptions
    @OptionGroup var fields: BodyOptions

    @Option(
        name: .long, help: "Who sent the frame: device (has a retcode) or client. Default: worked out from the frame.")
    var from: String?

    @Argument(help: "The frame as hex.")
    var hex: String?

    func run() throws {
        try reportingErrors {
            let version = try lan.version()
            let localKey = try options.localKey()
            guard let hex else { throw CLIError("HEX: give the frame as hex") }
            let bytes = try Hex.decode(hex, what: "HEX")
            let key = try lan.key(for: Self.command(of: bytes), version: version, localKey: localKey)
            let (message, direction) = try decode(bytes, version: version, key: key)
            show(message, direction: direction, version: version, bytes: bytes)
        }
    }

    /// The clear cmd field, to pick the key before anything is decrypted.
    private static func command(of bytes: [UInt8]) -> LANCommand {
        let offset = bytes.starts(with: LAN6699Frame.prefix) ? 10 : 8
        guard bytes.count >= offset + 4 else { return .control }
        return LANCommand(rawValue: bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) })
    }

    private func decode(
        _ bytes: [UInt8], version: LANProtocolVersion, key: AESKey
    ) throws -> (LANMessage, LANDirection) {
        let codec = LANMessageCodec(version: version)
        switch from?.lowercased() {
        case "device": return (try codec.decode(bytes, key: key, direction: .fromDevice), .fromDevice)
        case "client", "app", "gateway": return (try codec.decode(bytes, key: key, direction: .toDevice), .toDevice)
        case nil: break
        case let other?: throw CLIError.usage("--from: \"\(other)\" is not device or client")
        }
        // A device's retcode is a small number; a client payload's first bytes are JSON,
        // a version header or ciphertext.
        let asDevice = Result { () throws(WireError) in try codec.decode(bytes, key: key, direction: .fromDevice) }
        if case .success(let message) = asDevice, (message.retcode ?? 0) <= 0xFF { return (message, .fromDevice) }
        let asClient = Result { () throws(WireError) in try codec.decode(bytes, key: key, direction: .toDevice) }
        switch (asClient, asDevice) {
        case (.success(let message), _): return (message, .toDevice)
        case (.failure, .success(let message)): return (message, .fromDevice)
        case (.failure(let clientError), .failure(let deviceError)):
            throw Self.isKeyProblem(deviceError) && !Self.isKeyProblem(clientError) ? deviceError : clientError
        }
    }

    private static func isKeyProblem(_ error: WireError) -> Bool {
        switch error {
        case .keyMismatch, .authenticationFailed: true
        default: false
        }
    }

    private func show(_ message: LANMessage, direction: LANDirection, version: LANProtocolVersion, bytes: [UInt8]) {
        let body = message.command.isHandshake ? nil : try? CompactJSON.decode(message.payload)
        let dps = message.command.isHandshake ? nil : (try? LANDataPoints.dps(in: message.payload)) ?? nil
        let bodyText =
            message.command.isHandshake || (body == nil && !message.payload.allSatisfy { $0 >= 0x20 && $0 < 0x7F })
            ? Hex.encode(message.payload) : String(decoding: message.payload, as: UTF8.self)
        if options.json {
            var fields: [String: JSONValue] = [
                "protocol": .string(version.rawValue), "sequence": .integer(Int64(message.sequence)),
                "cmd": .integer(Int64(message.command.rawValue)),
                "from": .string(direction == .fromDevice ? "device" : "client"),
                "body": body ?? .string(bodyText),
            ]
            if let name = message.command.name { fields["cmd_name"] = .string(name) }
            if let retcode = message.retcode { fields["retcode"] = .integer(Int64(retcode)) }
            if let dps { fields["dps"] = .object(dps) }
            if let header = message.header {
                fields["header"] = .object([
                    "crc": .integer(Int64(header.crc)), "sequence": .integer(Int64(header.sequence)),
                    "source": .integer(Int64(header.source)),
                ])
            }
            printJSON(.object(fields))
            return
        }
        var rows: [(String, String)] = [
            (
                "protocol",
                "\(version) (\(bytes.starts(with: LAN6699Frame.prefix) ? "6699, GCM tag ok" : version.usesHMAC ? "55AA, HMAC ok" : "55AA, CRC ok"))"
            ),
            ("from", direction == .fromDevice ? "device" : "client"), ("sequence", String(message.sequence)),
            ("cmd", message.command.description),
        ]
        if let retcode = message.retcode { rows.append(("retcode", retcode == 0 ? "0 (ok)" : String(retcode))) }
        if let header = message.header {
            rows.append(
                ("header", "\(header.version) crc \(header.crc) sequence \(header.sequence) source \(header.source)"))
        }
        rows.append(("body", message.payload.isEmpty ? "(empty)" : bodyText))
        printRows(rows)
    }
}

/// `wire encode lan --protocol 3.x --key K [--session-key HEX] --dps '{"20":true}'`: a Tuya LAN
/// frame as hex: a request from the client, or with `--retcode` an answer from a device.
struct LANEncode: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lan", abstract: "Encode a Tuya LAN frame (CONTROL from --dps, or any command with --body).")

    @OptionGroup var options: KeyOptions
    @OptionGroup var lan: LANKeyOptions
    @OptionGroup var fields: BodyOptions

    @Option(
        name: .long,
        help: "Command name or number (CONTROL, DP_QUERY_NEW, 0x10…). Default: the version's control command.")
    var cmd: String?

    @Option(name: .long, help: "The JSON body as it is, e.g. '{}'.")
    var body: String?

    @Option(name: .long, help: "Raw payload bytes as hex (handshake nonces and HMACs).")
    var payload: String?

    @Option(name: .long, help: "Write a device's answer with this retcode.")
    var retcode: String?

    @Option(name: .long, help: "A 3.5 frame's 12-byte nonce as hex (default: random).")
    var nonce: String?

    @Option(name: .long, help: "Put this source id (and the frame's sequence) in the version header.")
    var sourceId: String?

    func run() throws {
        try reportingErrors {
            let version = try lan.version()
            let localKey = try options.localKey()
            let sequence = try fields.sequence()
            let (command, bytes) = try requestBody(version: version)
            let key = try lan.key(for: command, version: version, localKey: localKey)
            let header = try sourceId.map {
                LANVersionHeader(
                    version: version, sequence: sequence,
                    source: try parseInteger($0, option: "--source-id", as: UInt32.self))
            }
            let message = LANMessage(
                command: command, sequence: sequence,
                retcode: try retcode.map { try parseInteger($0, option: "--retcode", as: UInt32.self) }, payload: bytes,
                header: header)
            let frame = try LANMessageCodec(version: version).encode(message, key: key, nonce: try frameNonce(version))
            if options.json {
                var fields: [String: JSONValue] = [
                    "hex": .string(Hex.encode(frame)), "sequence": .integer(Int64(sequence)),
                    "cmd": .integer(Int64(command.rawValue)), "protocol": .string(version.rawValue),
                ]
                fields["body"] = .string(
                    payload != nil ? Hex.encode(bytes) : String(decoding: bytes, as: UTF8.self))
                printJSON(.object(fields))
            } else {
                Swift.print(Hex.encode(frame))
            }
        }
    }

    private func requestBody(version: LANProtocolVersion) throws -> (LANCommand, [UInt8]) {
        let given = [fields.dps != nil, body != nil, payload != nil].filter { $0 }.count
        guard given <= 1 else { throw CLIError.usage("--dps, --body, --payload: give one of them") }
        let command = try cmd.map { text in
            guard let command = LANCommand(text) else {
                throw CLIError.usage("--cmd: \"\(text)\" is not a LAN command name or number")
            }
            return command
        }
        if let dps = fields.dps {
            let timestamp = try fields.timestamp()
            if !version.negotiatesSessionKey, fields.devId == nil {
                throw CLIError.usage("--dev-id: a \(version) CONTROL body names the device")
            }
            let request = LANRequest.control(
                version: version, devId: fields.devId ?? "", dps: try parseDPs(dps), timestamp: timestamp)
            return (command ?? request.command, request.json)
        }
        guard let command else { throw CLIError.usage("--cmd: give the command, or --dps for a CONTROL frame") }
        if let body {
            do {
                _ = try CompactJSON.decode(Array(body.utf8))
            } catch {
                throw CLIError.usage("--body: \(error)")
            }
            return (command, Array(body.utf8))
        }
        if let payload { return (command, try Hex.decode(payload, what: "--payload")) }
        return (command, [])
    }

    private func frameNonce(_ version: LANProtocolVersion) throws -> [UInt8]? {
        guard version.usesGCMFrames else { return nil }
        guard let nonce else {
            var generator = SystemRandomNumberGenerator()
            return (0..<12).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        }
        let bytes = try Hex.decode(nonce, what: "--nonce")
        guard bytes.count == 12 else {
            throw CLIError.usage("--nonce: 12 bytes (24 hex digits) expected, got \(bytes.count)")
        }
        return bytes
    }
}
