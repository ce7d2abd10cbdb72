import DeepLinks
import Foundation
import TuyaCore
import TuyaWire

/// One harness per decoder of untrusted bytes. Each must return normally for every
/// input: a trap, an ASan report or a hang is a finding. Where a decoder accepts the
/// input, the harness also checks the round trip, so a decoder that "succeeds" with a
/// wrong value is a finding too.
let harnesses: [String: @Sendable ([UInt8]) -> Void] = bleHarnesses.merging([
    "padding-ecb": { bytes in
        _ = try? PKCS7.unpad(bytes)
        _ = try? AESCipher.decryptECB(bytes, key: fuzzKey)
        // Whole blocks encrypt (every block under one key schedule) and decrypt back.
        if let sealed = try? AESCipher.encryptECB(bytes, key: fuzzKey) {
            guard (try? AESCipher.decryptECB(sealed, key: fuzzKey)) == bytes else {
                fatalError("ECB round trip changed the bytes")
            }
        }
    },
    "mqtt-frame": { bytes in
        _ = try? MQTTFrame.decodeHeader(bytes)
        _ = try? MQTTFrame.decode(bytes, key: fuzzKey)
    },
    "mqtt-legacy": { bytes in
        _ = try? MQTTLegacyFrame.decode(bytes, key: fuzzKey)
    },
    "mqtt-envelope": { bytes in
        guard let (envelope, timestamp) = try? TuyaEnvelope.decode(bytes) else { return }
        let again = envelope.encode(timestamp: timestamp)
        guard let (decoded, t) = try? TuyaEnvelope.decode(again), decoded == envelope, t == timestamp else {
            fatalError("envelope round trip changed the value")
        }
    },
    "compact-json": { bytes in
        guard let value = try? CompactJSON.decode(bytes) else { return }
        guard let again = try? CompactJSON.decode(CompactJSON.encode(value)), again == value else {
            fatalError("JSON round trip changed the value")
        }
    },
    "ble-reassembler": { bytes in
        // The input is a sequence of packets, each prefixed by its length byte.
        var reassembler = BLEReassembler()
        var rest = bytes[...]
        while let length = rest.first {
            rest = rest.dropFirst()
            let packet = Array(rest.prefix(Int(length % 21)))
            rest = rest.dropFirst(packet.count)
            _ = try? reassembler.receive(packet)
        }
    },
    "ble-frame": { bytes in
        _ = try? BLEFrameCodec.decrypt(bytes, keys: fuzzBLEKeys)
        _ = try? BLECommandFrame(bytes: bytes)
    },
    "ble-datapoints": { bytes in
        for format in [BLEDataPointList.Format.v3, .v4] {
            guard let list = try? BLEDataPointList(bytes: bytes, format: format) else { continue }
            guard let again = try? BLEDataPointList(bytes: list.encoded, format: format), again == list else {
                fatalError("DP list round trip changed the value")
            }
        }
    },
    "ble-bodies": { bytes in
        _ = try? BLEDeviceInfo(bytes: bytes)
        _ = try? BLEDataPointWriteV4(bytes: bytes)
        _ = try? BLEDataPointWriteV4Response(bytes: bytes)
        for command in [BLECommand.dpReportV3, .dpReportV3WithTime] {
            _ = try? BLEDataPointReportV3(bytes: bytes, command: command)
        }
        for command in [BLECommand.dpReportV4, .dpReportV4WithTime] {
            _ = try? BLEDataPointReportV4(bytes: bytes, command: command)
        }
        _ = try? Varint(bytes: bytes)
        _ = try? BLEDeviceInfoRequest(bytes: bytes)
        _ = try? BLEPairRequest(bytes: bytes)
        _ = try? BLEPairResult(bytes: bytes)
        _ = try? BLETimeStringReply(bytes: bytes)
        _ = try? BLETimeDateReply(bytes: bytes)
        // Enum indices from the device against a profile's label list (TUYA.md §1.8).
        for format in [BLEDataPointList.Format.v3, .v4] {
            for dp in (try? BLEDataPointList(bytes: bytes, format: format))?.dataPoints ?? [] {
                if let spec = fuzzProfile.dataPoint(dp.id) { _ = try? dp.value(spec: spec) }
            }
        }
    },
    "lan-frame": { bytes in
        // Both frame formats, both directions, every version's payload rules. A 55AA frame
        // that decodes must encode back to the same bytes.
        for direction in [LANDirection.toDevice, .fromDevice] {
            for integrity in [LAN55AAFrame.Integrity.crc32, .hmac(fuzzKey)] {
                guard let frame = try? LAN55AAFrame.decode(bytes, direction: direction, integrity: integrity) else {
                    continue
                }
                let again = try? LAN55AAFrame.encode(
                    sequence: frame.sequence, command: frame.command, retcode: frame.retcode, payload: frame.payload,
                    integrity: integrity)
                guard again == bytes else { fatalError("55AA frame round trip changed the bytes") }
            }
            _ = try? LAN6699Frame.decode(bytes, direction: direction, key: fuzzKey)
            for version in LANProtocolVersion.allCases {
                _ = try? LANMessageCodec(version: version).decode(bytes, key: fuzzKey, direction: direction)
            }
        }
    },
    "lan-dps": { bytes in
        // Reading only a LAN body's dps must agree with reading the whole body into values.
        func whole() -> Result<[String: JSONValue]?, WireError> {
            guard !bytes.isEmpty else { return .success(nil) }
            do throws(WireError) {
                guard case .object(let root) = try CompactJSON.decode(bytes) else {
                    throw .malformedJSON("the LAN body is not a JSON object")
                }
                if let dps = root["dps"] {
                    guard case .object(let members) = dps else {
                        throw .invalidField(field: "dps", reason: "not an object")
                    }
                    return .success(members)
                }
                if case .object(let data)? = root["data"], let dps = data["dps"] {
                    guard case .object(let members) = dps else {
                        throw .invalidField(field: "data.dps", reason: "not an object")
                    }
                    return .success(members)
                }
                return .success(nil)
            } catch {
                return .failure(error)
            }
        }
        let alone: Result<[String: JSONValue]?, WireError>
        do throws(WireError) {
            alone = .success(try LANDataPoints.dps(in: bytes))
        } catch {
            alone = .failure(error)
        }
        guard alone == whole() else { fatalError("LAN dps reading differs from the whole body's") }
    },
    "lan-reader": { bytes in
        // The input is cut into reads by its own bytes; every frame out must be whole.
        var reader = LANFrameReader(maxFrameSize: 2_048)
        var rest = bytes[...]
        while let length = rest.first {
            rest = rest.dropFirst()
            let chunk = rest.prefix(Int(length % 64) + 1)
            rest = rest.dropFirst(chunk.count)
            reader.append(chunk)
            while true {
                guard let frame = try? reader.next() else {
                    if reader.bufferedCount > 2_048 + 64 { fatalError("reader holds more than a frame and a read") }
                    break
                }
                guard frame.count >= 24, frame.count <= 2_048 else {
                    fatalError("reader cut a frame of \(frame.count)")
                }
            }
        }
    },
    "lan-session": { bytes in
        // A hostile peer on both ends of a connection, on every version.
        for version in LANProtocolVersion.allCases {
            var client = LANClientSession(version: version, localKey: fuzzKey, random: FuzzRandom())
            _ = client.start()
            _ = client.receive(bytes)
            var device = LANDeviceSession(version: version, localKey: fuzzKey, random: FuzzRandom())
            _ = device.receive(bytes)
        }
    },
    "lan-discovery": { bytes in
        if case .announcement(let broadcast, let format)? = try? LANDiscovery.decode(bytes) {
            let nonce = [UInt8](repeating: 1, count: 12)
            guard let again = try? LANDiscovery.encode(broadcast, format: format, nonce: nonce),
                (try? LANDiscovery.decode(again)) == .announcement(broadcast, format)
            else { fatalError("announcement round trip changed the value") }
        }
        _ = try? LANDataPoints.dps(in: bytes)
        _ = try? LANBroadcast(json: bytes)
        _ = try? LANSolicitation(json: bytes)
    },
    "profile-yaml": { bytes in
        guard let text = String(validating: bytes, as: UTF8.self) else { return }
        _ = try? ProfileLoader.parse(yaml: text, source: "fuzz.yaml")
    },
    "dps-json": { bytes in
        guard case .object(let dps)? = try? CompactJSON.decode(bytes) else { return }
        let (values, _) = DataPointJSON.decode(dps, profile: fuzzProfile)
        _ = DataPointMapper(profile: fuzzProfile).state(from: values)
        _ = DataPointJSON.decode(dps, profile: nil)
    },
    "deeplink": { bytes in
        // Raw bytes and the same bytes as a (repaired) String; a link that resolves must
        // resolve to the same thing from url(for:), and a gate's resume request must
        // resolve to the same gate.
        let engine = RoutingEngine()
        let fromBytes = Result { () throws(RouteError) in try engine.resolve(utf8: bytes, context: fuzzRouteContext) }
        if let text = String(validating: bytes, as: UTF8.self) {
            let fromText = Result { () throws(RouteError) in try engine.resolve(url: text, context: fuzzRouteContext) }
            guard fromText == fromBytes else { fatalError("bytes and String resolve differently") }
        }
        switch fromBytes {
        case .success(.proceed(let destination)):
            let again = try? engine.resolve(url: engine.url(for: destination), context: fuzzRouteContext)
            guard again == .proceed(destination) else {
                fatalError("url(for:) does not resolve back to \(destination)")
            }
        case .success(.gated(let precondition, let resume)):
            let again = try? engine.resolve(request: resume, context: fuzzRouteContext)
            guard again == .gated(precondition, resume: resume) else {
                fatalError("resume request resolves differently")
            }
        case .failure:
            break
        }
    },
]) { ble, _ in ble }

/// Devices, presets and a host that the deeplink seeds name, so fuzzing reaches every gate
/// and every validation.
let fuzzRouteContext = RouteContext(
    pairedDevices: [DeviceID("bf3a9c1e7d2b4f60a1xq")!: ["refill", "clean", "replace-wick"], DeviceID("bulb-1")!: []],
    presets: ["calm", "focus", "sleep", "Deep sleep"], sessionRunning: false,
    universalLinkHosts: ["links.youll.example"])

let fuzzKey: AESKey = {
    guard let key = try? AESKey(localKey: "0123456789abcdef") else { fatalError("fixed fuzz key is 16 bytes") }
    return key
}()

/// Fixed "randomness" for sessions under fuzzing: the input is the only variable.
struct FuzzRandom: RandomNumberGenerator, Sendable {
    var state: UInt64 = 1

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return state
    }
}

let fuzzBLEKeys: BLEKeys = {
    guard var keys = try? BLEKeys(localKey: "0123456789abcdef") else { fatalError("fixed fuzz key") }
    try? keys.establishSession(srand: [1, 2, 3, 4, 5, 6])
    return keys
}()

/// The shipped modern diffuser profile (enum, bitmap, colour and value DPs).
let fuzzProfile: DeviceProfile = {
    let url = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("devices/aroma-diffuser-modern.yaml")
    guard let text = try? String(contentsOf: url, encoding: .utf8),
        let profile = try? ProfileLoader.parse(yaml: text, source: url.lastPathComponent)
    else { fatalError("cannot load \(url.path) for the dps-json harness") }
    return profile
}()
