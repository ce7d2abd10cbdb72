import ArgumentParser
import Foundation
import TuyaCore
import TuyaWire

/// `wire decode mqtt --key K HEX`: header fields and the decrypted JSON body of a
/// Tuya MQTT "2.2" (or legacy "2.1") payload (protocol/TUYA.md §3.2).
struct MQTTDecode: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mqtt", abstract: "Decode a Tuya MQTT 2.2/2.1 payload.")

    @OptionGroup var options: KeyOptions

    @Argument(help: "The payload as hex.")
    var hex: String?

    func run() throws {
        try reportingErrors {
            let key = try AESKey(localKey: options.localKey())
            guard let hex else { throw CLIError("HEX: give the payload as hex") }
            let bytes = try Hex.decode(hex, what: "HEX")
            let decoded = try MQTTFrame.decode(bytes, key: key)
            let header = decoded.version == "2.2" ? try? MQTTFrame.decodeHeader(bytes) : nil
            let body = try? CompactJSON.decode(decoded.body)
            let envelope = try? TuyaEnvelope.decode(decoded.body)

            if options.json {
                var fields: [String: JSONValue] = ["version": .string(decoded.version)]
                if let header {
                    fields["crc"] = .string(String(format: "%08x", header.crc))
                    fields["sequence"] = .integer(Int64(header.sequence))
                    fields["source"] = .integer(Int64(header.source))
                }
                fields["body"] = body ?? .string(String(decoding: decoded.body, as: UTF8.self))
                if let envelope { fields["protocol"] = .integer(Int64(envelope.envelope.protocolNumber)) }
                printJSON(.object(fields))
                return
            }
            var rows: [(String, String)] = [("version", decoded.version)]
            if let header {
                rows += [
                    ("crc", String(format: "0x%08x (ok)", header.crc)),
                    ("sequence", String(header.sequence)),
                    ("source", "\(header.source)\(header.source == MQTTFrame.deviceSource ? " (device)" : "")"),
                ]
            }
            if let envelope {
                rows.append(
                    (
                        "protocol",
                        "\(envelope.envelope.protocolNumber) (\(protocolName(envelope.envelope.protocolNumber)))"
                    ))
                rows.append(("t", String(envelope.timestamp)))
            }
            rows.append(("body", String(decoding: decoded.body, as: UTF8.self)))
            printRows(rows)
        }
    }
}

/// `wire encode mqtt --key K --seq N --protocol 5 --dps '{"20":true}'`: a "2.2" payload as hex.
struct MQTTEncode: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mqtt", abstract: "Encode a Tuya MQTT 2.2 payload (protocol 4 report, 5 command, 31 query).")

    @OptionGroup var options: KeyOptions
    @OptionGroup var fields: BodyOptions

    @Option(name: .long, help: "Protocol: 4 (report), 5 (command) or 31 (query). Default 5.")
    var `protocol`: String?

    @Option(name: .long, help: "Source field (default 1).")
    var source: String?

    func run() throws {
        try reportingErrors {
            let key = try AESKey(localKey: options.localKey())
            let sequence = try fields.sequence()
            let source = try source.map { try parseInteger($0, option: "--source", as: UInt32.self) } ?? 1
            let number = try `protocol`.map { try parseInteger($0, option: "--protocol", as: Int.self) } ?? 5
            let timestamp = try fields.timestamp()
            let envelope: TuyaEnvelope
            switch number {
            case TuyaEnvelope.commandProtocol:
                guard let dps = fields.dps else {
                    throw CLIError.usage("--dps: a protocol-5 command needs DPs, e.g. '{\"20\":true}'")
                }
                envelope = .command(dps: try parseDPs(dps))
            case TuyaEnvelope.reportProtocol:
                guard let dps = fields.dps else { throw CLIError.usage("--dps: a protocol-4 report needs DPs") }
                envelope = .report(devId: fields.devId, dps: try parseDPs(dps), t: nil)
            case TuyaEnvelope.queryProtocol:
                envelope = .query(dpIDs: nil)
            default:
                throw CLIError.usage("--protocol: \(number) is not one of 4 (report), 5 (command), 31 (query)")
            }
            let body = envelope.encode(timestamp: timestamp)
            let frame = try MQTTFrame.encode(body: body, key: key, sequence: sequence, source: source)
            if options.json {
                printJSON(
                    .object([
                        "hex": .string(Hex.encode(frame)), "body": .string(String(decoding: body, as: UTF8.self)),
                        "sequence": .integer(Int64(sequence)), "protocol": .integer(Int64(number)),
                    ]))
            } else {
                print(Hex.encode(frame))
            }
        }
    }
}

func protocolName(_ number: Int) -> String {
    switch number {
    case 4: "DP report"
    case 5: "command"
    case 31: "query"
    case 8: "unbind"
    case 11: "reset"
    case 15: "upgrade"
    default: "other"
    }
}
