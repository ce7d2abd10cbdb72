import ArgumentParser
import Foundation
import Gateway
import TuyaController
import TuyaCore

/// `youll-devices pair …`: adds devices to the running daemon (`device/add`, `permit_join`).
struct PairCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair", abstract: "Pair devices with the running daemon.",
        subcommands: [PairMQTT.self, PairBLE.self, PairLAN.self, PairImport.self, PairPermit.self])
}

/// Pairing waits for the device to answer a query with the right key: longer than a request.
let pairingWaitSeconds = 30.0

/// What `pair mqtt` and `pair ble` share: adds the optional `name`, `profile` and
/// `productID` to `request`, sends `device/add` (waiting `waitDefault` seconds unless
/// --wait says otherwise) and prints the device (as JSON with --json), shown with
/// `detail` in brackets.
func addDevice(
    _ request: [String: JSONValue], name: String?, profile: String?, productID: String?, bridge: BridgeOptions,
    waitDefault: Double, waitingFor device: String? = nil, detail: (BridgeDevice?) -> String
) async throws {
    var request = request
    if let name { request["name"] = .string(name) }
    if let profile { request["profile"] = .string(profile) }
    if let productID { request["product_id"] = .string(productID) }
    let sent = request
    let answer = try await bridge.withBridge(waitDefault: waitDefault) { client, limit in
        guard let device else { return try await client.request("device/add", sent, timeout: limit) }
        return try await PairingWait.ask(
            client, "device/add", sent, device: device, limit: limit, askAgain: bridge.timeout != nil, json: bridge.json
        )
    }
    if bridge.json {
        printJSONLine(answer)
    } else {
        let paired = BridgeDevice(answer)
        let id = request["id"]?.stringValue ?? "?"
        print(
            "paired \(BridgeText.printable(paired?.friendlyName ?? id)) (\(BridgeText.printable(detail(paired))))"
                + (paired?.profile.map { ", profile \(BridgeText.printable($0))" } ?? ""))
    }
}

/// `pair mqtt DEVID --key-file F [--name N]`: one Wi-Fi device by devId and local key.
struct PairMQTT: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mqtt", abstract: "Pair a Wi-Fi (MQTT) device by its devId and local key.")

    @OptionGroup var bridge: BridgeOptions
    @OptionGroup var key: LocalKeyOptions

    @Argument(help: "The Tuya device id (devId).")
    var devId: String

    @Option(name: .long, help: "Friendly name: the device's topics become <base>/<name> (default: its devId).")
    var name: String?

    @Option(name: .long, help: "Device profile id (default: chosen from the product id).")
    var profile: String?

    @Option(name: .customLong("product-id"), help: "Tuya product id, when the device does not report it.")
    var productID: String?

    func run() async throws {
        try await reportingErrors {
            let request: [String: JSONValue] = [
                "id": .string(devId), "local_key": .string(try key.localKey()), "transport": .string("mqtt"),
            ]
            try await addDevice(
                request, name: name, profile: profile, productID: productID, bridge: bridge,
                waitDefault: pairingWaitSeconds, waitingFor: name ?? devId
            ) { paired in paired?.id ?? devId }
        }
    }
}

/// `pair import devices.json`: every device of a tinytuya wizard file, 8 at a time.
struct PairImport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Pair every device of a tinytuya devices.json (or snapshot.json); those with an IP over the LAN.")

    @OptionGroup var bridge: BridgeOptions

    @Argument(help: "The devices.json written by `python -m tinytuya wizard`.", completion: .file(extensions: ["json"]))
    var file: String

    /// Pairing attempts in flight at once: enough to import a house quickly without
    /// flooding the daemon's pairing queue.
    static let concurrency = 8

    /// The file's bytes, up to one past the import's limit (the parser names the limit): a
    /// FIFO would block and /dev/zero never end, so only regular files.
    static func read(_ file: String) throws -> Data {
        // Through any symbolic link (a devices.json linked from tinytuya's folder).
        let url = URL(fileURLWithPath: file).resolvingSymlinksInPath()
        guard (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true else {
            throw CLIError(
                FileManager.default.fileExists(atPath: file)
                    ? "\(file): not a regular file; export devices.json with tinytuya's wizard"
                    : "\(file): no such file")
        }
        do {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            return try handle.read(upToCount: TinyTuyaImport.maximumSize + 1) ?? Data()
        } catch {
            throw CLIError("\(file): cannot read the file; check that it is readable by this user")
        }
    }

    struct Outcome: Sendable {
        var entry: TinyTuyaImport.Entry
        var result: Result<JSONValue, BridgeClientError>
    }

    func run() async throws {
        try await reportingErrors {
            let data = try Self.read(file)
            let entries: [TinyTuyaImport.Entry]
            do {
                entries = try TinyTuyaImport.parse(Array(data))
            } catch {
                throw CLIError("\(file): \(error)")
            }
            guard !entries.isEmpty else { throw CLIError("\(file): no device with a local key to import") }
            let outcomes = try await bridge.withBridge(waitDefault: pairingWaitSeconds) { client, limit in
                await Self.pairAll(entries, client: client, timeout: limit)
            }
            report(outcomes)
            let failed = outcomes.filter { if case .failure = $0.result { true } else { false } }.count
            if failed > 0 {
                // The list above says which and why; stderr carries the one line every failure has.
                throw CLIError("\(failed) of \(outcomes.count) devices could not be paired")
            }
        }
    }

    static func pairAll(_ entries: [TinyTuyaImport.Entry], client: BridgeClient, timeout: Duration) async -> [Outcome] {
        await withTaskGroup(of: (Int, Outcome).self) { group in
            var next = 0
            func start() {
                guard next < entries.count else { return }
                let index = next
                let entry = entries[index]
                next += 1
                group.addTask {
                    let request = Self.request(for: entry)
                    do throws(BridgeClientError) {
                        let device = try await client.request("device/add", request, timeout: timeout)
                        return (index, Outcome(entry: entry, result: .success(device)))
                    } catch {
                        return (index, Outcome(entry: entry, result: .failure(error)))
                    }
                }
            }
            for _ in 0..<concurrency { start() }
            var outcomes: [Outcome?] = Array(repeating: nil, count: entries.count)
            for await (index, outcome) in group {
                outcomes[index] = outcome
                start()
            }
            return outcomes.compactMap { $0 }
        }
    }

    /// `device/add` for one entry: over the LAN when the file gives its IP, else MQTT.
    static func request(for entry: TinyTuyaImport.Entry) -> [String: JSONValue] {
        var request: [String: JSONValue] = [
            "id": .string(entry.id.rawValue), "local_key": .string(entry.localKey), "name": .string(entry.name),
            "transport": .string(entry.ip == nil ? "mqtt" : "lan"),
        ]
        if let productID = entry.productID { request["product_id"] = .string(productID) }
        if let ip = entry.ip {
            request["ip"] = .string(ip)
            if let version = entry.version { request["version"] = .string(version) }
        }
        return request
    }

    private func report(_ outcomes: [Outcome]) {
        if bridge.json {
            printJSONLine(
                .array(
                    outcomes.map { outcome in
                        var fields: [String: JSONValue] = [
                            "id": .string(outcome.entry.id.rawValue), "name": .string(outcome.entry.name),
                        ]
                        switch outcome.result {
                        case .success(let device):
                            fields["status"] = .string("ok")
                            fields["device"] = device
                        case .failure(let error):
                            fields["status"] = .string("error")
                            fields["error"] = .string(error.description)
                        }
                        return .object(fields)
                    }))
            return
        }
        var table = TextTable(headers: ["ID", "NAME", "RESULT"])
        table.colour = { column, text in column == 2 ? (text.hasPrefix("failed") ? .red : .green) : nil }
        for outcome in outcomes {
            switch outcome.result {
            case .success(let device):
                let already = device.objectValue?["already_paired"] == .bool(true)
                table.append([outcome.entry.id.rawValue, outcome.entry.name, already ? "already paired" : "paired"])
            case .failure(let error): table.append([outcome.entry.id.rawValue, outcome.entry.name, "failed: \(error)"])
            }
        }
        table.print()
        let failed = outcomes.filter { if case .failure = $0.result { true } else { false } }.count
        if failed > 0 { printNote("error: \(failed) of \(outcomes.count) devices did not pair") }
    }
}

/// `pair permit [--seconds N]`: opens the pairing window and lists unknown devices seen on
/// the broker until it closes.
struct PairPermit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "permit",
        abstract: "Let the daemon list unknown devices publishing on the broker for a while.")

    @OptionGroup var bridge: BridgeOptions

    @Option(name: .long, help: "How long the window stays open (1–3600; default: the daemon's permit_join_timeout).")
    var seconds: Int?

    func run() async throws {
        try await reportingErrors {
            if let seconds, !BridgeRequest.permitJoinSeconds.contains(seconds) {
                throw CLIError.usage("--seconds: expected 1 to 3600, got \(seconds)")
            }
            try await bridge.withBridge { client, limit in
                let events = try await client.subscribe(["\(client.baseTopic)/bridge/event"])
                var request: [String: JSONValue] = ["value": .bool(true)]
                if let seconds { request["time"] = .integer(Int64(seconds)) }
                let answer = try await client.request("permit_join", request, timeout: limit)
                // The daemon's answer, within the 1–3600 s it accepts (a forged answer must not
                // set the wait): else what was asked.
                let window =
                    answer["time"]?.int64Value.flatMap { Int(exactly: $0) }
                    .flatMap { BridgeRequest.permitJoinSeconds.contains($0) ? Int64($0) : nil }
                    ?? Int64(seconds ?? 120)
                if !bridge.json {
                    printNote("pairing permitted for \(window) s; power on the devices to pair (Ctrl-C to stop)")
                    Self.printLANCandidates(answer["lan_candidates"])
                }
                let terminal = Terminal.current
                try await forEach(events, for: .seconds(window)) { message in
                    guard let event = message.json, let type = event["type"]?.stringValue else { return true }
                    if bridge.json {
                        printJSONLine(event)
                    } else if type.hasPrefix("device_") || type.hasPrefix("pairing_") {
                        print(MonitorLine.human(message, baseTopic: client.baseTopic, at: Date(), terminal: terminal))
                    }
                    flushStandardOutput()
                    if type == "permit_join_changed", event["data"]?["value"]?.boolValue == false { return false }
                    return true
                }
            }
        }
    }

    /// `heard on the LAN: <id> at <ip>, protocol 3.x, product <key>` for each unpaired
    /// device the daemon heard broadcasting: what `pair lan` needs.
    static func printLANCandidates(_ list: JSONValue?) {
        guard case .array(let candidates)? = list else { return }
        for candidate in candidates {
            guard let id = candidate["id"]?.stringValue, let ip = candidate["ip"]?.stringValue else { continue }
            let version = candidate["version"]?.stringValue ?? "?"
            let product = candidate["product_key"]?.stringValue.map { ", product \($0)" } ?? ""
            print(
                BridgeText.printable(
                    "heard on the LAN: \(id) at \(ip), protocol \(version)\(product); pair it with: youll-devices pair lan \(id)",
                    maximumLength: 300))
        }
    }

}
