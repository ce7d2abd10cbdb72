import ArgumentParser
import Foundation
import TuyaCore
import TuyaWire

/// Options shared by the BLE `wire` commands: the keys of one connection.
struct BLEKeyOptions: ParsableArguments {
    @Option(
        name: .long, help: "The 6-byte srand of the device-info reply, as hex; needed for session-key (flag 5) frames.")
    var srand: String?

    @Option(name: .long, help: "The cloud sec_key (16 characters), for devices that use flags 14/15.")
    var secKey: String?

    func keys(localKey: String) throws -> BLEKeys {
        var keys = try BLEKeys(localKey: localKey, secKey: secKey)
        if let srand {
            let bytes = try Hex.decode(srand, what: "--srand")
            guard bytes.count == 6 else { throw CLIError.usage("--srand: 6 bytes expected, got \(bytes.count)") }
            try keys.establishSession(srand: bytes)
        }
        return keys
    }
}

/// `wire decode ble --key K [--srand HEX] HEX…`: flag, sn, ack_sn, cmd and DPs of a Tuya
/// BLE frame (protocol/TUYA.md §1.3–1.8). Several HEX arguments (or `--packets`) are read
/// as 20-byte GATT packets and reassembled first.
struct BLEDecode: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "ble", abstract: "Decode a Tuya BLE frame.")

    @OptionGroup var options: KeyOptions
    @OptionGroup var bleKeys: BLEKeyOptions

    @Flag(name: .long, help: "The HEX arguments are GATT packets (varint-numbered) to reassemble.")
    var packets = false

    @Argument(help: "The encrypted frame as hex, or its packets.")
    var hex: [String] = []

    func run() throws {
        try reportingErrors {
            let keys = try bleKeys.keys(localKey: options.localKey())
            let (whole, version) = try readFrame()
            let flag = whole.first.flatMap(BLESecurityFlag.init(rawValue:))
            if flag == .session || flag == .secKeySession, !keys.hasSession {
                throw CLIError(
                    "--srand: this frame uses the session key (flag \(whole[0])): give the srand from the device-info reply"
                )
            }
            let (usedFlag, frame) = try BLEFrameCodec.decrypt(whole, keys: keys)
            let body = describeBody(frame)
            if options.json {
                var fields: [String: JSONValue] = [
                    "flag": .integer(Int64(usedFlag.rawValue)), "sn": .integer(Int64(frame.sn)),
                    "ack_sn": .integer(Int64(frame.ackSN)), "cmd": .string(frame.command.description),
                    "cmd_name": .string(commandName(frame.command)), "data": .string(shownData(frame)),
                ]
                if let version { fields["protocol_version"] = .integer(Int64(version)) }
                if let dps = body.dataPoints {
                    // A device may repeat a DP in one list; the later value wins, as it would on the device.
                    fields["dps"] = .object(
                        Dictionary(dps.map { ($0.id.jsonKey, jsonValue($0)) }, uniquingKeysWith: { $1 }))
                }
                for (label, value) in body.extra { fields[label] = .string(value) }
                printJSON(.object(fields))
                return
            }
            var rows: [(String, String)] = [
                ("flag", "\(usedFlag.rawValue) (\(usedFlag))"),
                ("sn", String(frame.sn)),
                ("ack_sn", String(frame.ackSN)),
                ("cmd", "\(frame.command) (\(commandName(frame.command)))"),
                ("data", frame.data.isEmpty ? "(empty)" : shownData(frame)),
            ]
            if let version { rows.insert(("version", String(version)), at: 0) }
            rows += body.extra
            for dp in body.dataPoints ?? [] {
                rows.append(("dp \(dp.id.rawValue)", "\(dp.type.name) \(text(dp))"))
            }
            printRows(rows)
        }
    }

    /// The frame from the HEX arguments: one frame, or GATT packets reassembled (with the
    /// protocol version their header carries).
    private func readFrame() throws -> (bytes: [UInt8], version: UInt8?) {
        guard !hex.isEmpty else { throw CLIError("HEX: give the frame (or its packets) as hex") }
        let first = try Hex.decode(hex[0], what: "HEX")
        guard packets || hex.count > 1 else { return (first, nil) }
        var reassembler = BLEReassembler()
        var complete: [UInt8]?
        for (index, text) in hex.enumerated() {
            let packet = try Hex.decode(text, what: "packet \(index)")
            do {
                complete = try reassembler.receive(packet)
            } catch {
                throw CLIError("packet \(index): \(error)")
            }
        }
        guard let complete else { throw CLIError("packets: frame incomplete after \(hex.count) packets") }
        return (complete, reassembler.protocolVersion)
    }

    /// The DPs and notable fields of the bodies the gateway sees most.
    private func describeBody(_ frame: BLECommandFrame) -> (dataPoints: [BLEDataPoint]?, extra: [(String, String)]) {
        switch frame.command {
        case .dpWriteV3, .dpReportV3:
            return ((try? BLEDataPointList(bytes: frame.data, format: .v3))?.dataPoints, [])
        case .dpReportV3WithTime:
            let report = try? BLEDataPointReportV3(bytes: frame.data, command: frame.command)
            return (report?.dataPoints, report?.time.map { [("time_ms", String($0.unixMilliseconds))] } ?? [])
        case .dpWriteV4:
            let write = try? BLEDataPointWriteV4(bytes: frame.data)
            return (write?.dataPoints, write.map { [("dp_sn", String($0.sn))] } ?? [])
        case .dpReportV4, .dpReportV4WithTime:
            let report = try? BLEDataPointReportV4(bytes: frame.data, command: frame.command)
            return (
                report?.dataPoints, report.map { [("dp_sn", String($0.sn)), ("wants_ack", String($0.wantsAck))] } ?? []
            )
        case .pair:
            guard let request = try? BLEPairRequest(bytes: frame.data) else { return (nil, []) }
            return (nil, [("uuid", request.uuid), ("devId", request.devId)])
        case .deviceInfo where frame.data.count >= BLEDeviceInfo.minimumLength:
            guard let info = try? BLEDeviceInfo(bytes: frame.data) else { return (nil, []) }
            return (
                nil,
                [
                    ("firmware", info.firmwareVersion.description), ("protocol", info.protocolVersion.description),
                    ("bound", String(info.isBound)), ("srand", Hex.encode(info.srand)),
                ]
            )
        default:
            return (nil, [])
        }
    }
}

/// The data as hex, with the local-key prefix of a pair request (bytes 16–21, §1.6)
/// masked: those six characters are all a BLE login or session key is derived from
/// (§1.4), so decoded output must be safe to paste into a bug report.
private func shownData(_ frame: BLECommandFrame) -> String {
    switch frame.command {
    case .pair:
        // Bytes 16..<22 are local_key[0:6], all the BLE keys derive from (TUYA.md §1.4, §1.6).
        return masked(frame.data, 16..<22)
    case .deviceInfo:
        // Bytes 14..<46 of the reply are the device's register/auth-key material (§1.7).
        return masked(frame.data, 14..<46)
    default:
        return Hex.encode(frame.data)
    }
}

/// Hex of `data` with the bytes in `secret` (clamped to the data) shown as `*`.
private func masked(_ data: [UInt8], _ secret: Range<Int>) -> String {
    let lower = min(secret.lowerBound, data.count)
    let upper = min(secret.upperBound, data.count)
    return Hex.encode(data[..<lower]) + String(repeating: "*", count: 2 * (upper - lower)) + Hex.encode(data[upper...])
}

/// `wire encode ble --key K [--srand HEX] --sn N --cmd 0x0002 --dps '{"1":true}'`: an
/// encrypted Tuya BLE frame as hex (or, with `--packets`, its GATT packets one per line).
struct BLEEncode: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "ble", abstract: "Encode a Tuya BLE frame.")

    @OptionGroup var options: KeyOptions
    @OptionGroup var bleKeys: BLEKeyOptions

    @Option(name: .long, help: "Frame sequence number (default 1).")
    var sn: String?

    /// `--sn`, else 1.
    private func sequence() throws -> UInt32 {
        try sn.map { try parseInteger($0, option: "--sn", as: UInt32.self) } ?? 1
    }

    @Option(name: .customLong("ack-sn"), help: "The sn being answered (default 0).")
    var ackSN: String?

    /// `--ack-sn`, else 0.
    private func answeredSequence() throws -> UInt32 {
        try ackSN.map { try parseInteger($0, option: "--ack-sn", as: UInt32.self) } ?? 0
    }

    @Option(
        name: .long,
        help: "Command code, e.g. 0x0002 (DP write v3), 0x0027 (v4), 0x0000 (device info). Default: 0x0002 with --dps.")
    var cmd: String?

    /// `--cmd`, else a v3 DP write.
    private func command() throws -> BLECommand {
        BLECommand(
            rawValue: try cmd.map { try parseInteger($0, option: "--cmd", as: UInt16.self) }
                ?? BLECommand.dpWriteV3.rawValue)
    }

    @Option(name: .long, help: "DPs as a JSON object (bool, integer or string values).")
    var dps: String?

    @Option(name: .long, help: "Raw command data as hex (instead of --dps).")
    var data: String?

    /// The command's data: `--dps` encoded for `command`, `--data` as it is, or nothing.
    private func body(command: BLECommand, sn: UInt32) throws -> [UInt8] {
        if dps != nil, data != nil { throw CLIError.usage("--dps and --data: give one of them") }
        if let dps { return try encodeDPs(parseDPs(dps), command: command, sn: sn) }
        if let data { return try Hex.decode(data, what: "--data") }
        return []
    }

    @Option(name: .long, help: "Security flag: 4 (login key) or 5 (session key). Default 5 with --srand, else 4.")
    var flag: String?

    /// `--flag`, else the session key's flag when there is a session, the login key's otherwise.
    private func securityFlag(_ keys: BLEKeys) throws -> BLESecurityFlag {
        let value =
            try flag.map { try parseInteger($0, option: "--flag", as: UInt8.self) }
            ?? (keys.hasSession ? keys.sessionFlag.rawValue : keys.loginFlag.rawValue)
        guard let securityFlag = BLESecurityFlag(rawValue: value) else {
            throw CLIError.usage("--flag: \(value) is not a Tuya BLE security flag (0, 4, 5, 14, 15)")
        }
        return securityFlag
    }

    @Option(name: .long, help: "The 16-byte IV as hex (default: random).")
    var iv: String?

    /// The frame encrypted with `--iv`, or with a random IV.
    private func seal(_ frame: BLECommandFrame, flag: BLESecurityFlag, keys: BLEKeys) throws -> [UInt8] {
        guard let iv else {
            var source = RandomIVSource()
            return try BLEFrameCodec.encrypt(frame, flag: flag, keys: keys, ivSource: &source)
        }
        let ivBytes = try Hex.decode(iv, what: "--iv")
        guard ivBytes.count == 16 else { throw CLIError.usage("--iv: 16 bytes expected, got \(ivBytes.count)") }
        let key = flag.isEncrypted ? try keys.key(for: flag) : nil
        return try BLEFrameCodec.encrypt(frame, flag: flag, key: key, iv: ivBytes)
    }

    @Flag(name: .long, help: "Print the 20-byte GATT packets, one per line.")
    var packets = false

    @Option(name: .long, help: "Protocol version for the packet header (default 3).")
    var version: String?

    func run() throws {
        try reportingErrors {
            let keys = try bleKeys.keys(localKey: options.localKey())
            let sn = try sequence()
            let ackSN = try answeredSequence()
            let command = try command()
            let securityFlag = try securityFlag(keys)
            let frame = try BLECommandFrame(
                sn: sn, ackSN: ackSN, command: command, data: try body(command: command, sn: sn))
            let sealed = try seal(frame, flag: securityFlag, keys: keys)
            let protocolVersion = try version.map { try parseInteger($0, option: "--version", as: UInt8.self) } ?? 3
            let fragments = try BLEFragmenter(protocolVersion: protocolVersion).packets(for: sealed)
            if options.json {
                printJSON(
                    .object([
                        "hex": .string(Hex.encode(sealed)),
                        "packets": .array(fragments.map { .string(Hex.encode($0)) }),
                        "flag": .integer(Int64(securityFlag.rawValue)), "sn": .integer(Int64(sn)),
                        "cmd": .string(command.description),
                    ]))
            } else if packets {
                fragments.forEach { print(Hex.encode($0)) }
            } else {
                print(Hex.encode(sealed))
            }
        }
    }

    /// DPs as the body the command carries: a v3 list, a v4 write or a v4 report.
    private func encodeDPs(_ dps: [String: JSONValue], command: BLECommand, sn: UInt32) throws -> [UInt8] {
        let points = try dps.keys.compactMap(DataPointID.init(jsonKey:)).sorted().map { id throws -> BLEDataPoint in
            switch dps[id.jsonKey] {
            case .bool(let value): return .bool(id, value)
            case .integer(let value):
                guard let int = Int32(exactly: value) else {
                    throw CLIError.usage("--dps: \(id.jsonKey) is outside 32 bits")
                }
                return .value(id, int)
            case .string(let value): return try .string(id, value)
            default: throw CLIError.usage("--dps: \(id.jsonKey) must be true/false, an integer or a string")
            }
        }
        switch command {
        case .dpWriteV3, .dpReportV3: return try BLEDataPointList(format: .v3, dataPoints: points).encoded
        case .dpWriteV4: return try BLEDataPointWriteV4(sn: sn, dataPoints: points).encoded()
        case .dpReportV4: return try BLEDataPointReportV4(sn: sn, dataPoints: points).encoded()
        default:
            throw CLIError.usage("--dps: command \(command) does not carry DPs (use 0x0002, 0x0027, 0x8001 or 0x8006)")
        }
    }
}

func commandName(_ command: BLECommand) -> String {
    switch command {
    case .deviceInfo: "device info"
    case .pair: "pair"
    case .dpWriteV3: "DP write v3"
    case .query: "query DPs"
    case .unbind: "unbind"
    case .reset: "reset"
    case .dpWriteV4: "DP write v4"
    case .dpReportV3: "DP report v3"
    case .dpReportV3WithTime: "DP report v3 with time"
    case .dpReportV4: "DP report v4"
    case .dpReportV4WithTime: "DP report v4 with time"
    case .timeRequestString: "time request (string)"
    case .timeRequestDate: "time request (date)"
    case .timeRequestBinary: "time request (binary)"
    default: "unknown"
    }
}

private func text(_ dp: BLEDataPoint) -> String {
    if let value = dp.boolValue { return String(value) }
    if let value = dp.intValue { return String(value) }
    if let value = dp.enumIndex { return "index \(value)" }
    if let value = dp.bitmapValue { return "0x" + String(value, radix: 16) }
    if let value = dp.stringValue { return "\"\(value)\"" }
    return Hex.encode(dp.payload)
}

private func jsonValue(_ dp: BLEDataPoint) -> JSONValue {
    if let value = dp.boolValue { return .bool(value) }
    if let value = dp.intValue { return .integer(Int64(value)) }
    if let value = dp.enumIndex { return .integer(Int64(value)) }
    if let value = dp.bitmapValue { return .integer(Int64(value)) }
    if let value = dp.stringValue { return .string(value) }
    return .string(Hex.encode(dp.payload))
}
