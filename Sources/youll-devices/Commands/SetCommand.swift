import ArgumentParser
import Gateway
import TuyaCore

/// `youll-devices set DEVICE key=value…`: one command, confirmed by the device's own report.
struct SetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set", abstract: "Change a device's state and show the confirmed state.",
        discussion: """
            Values are numbers, true/false, text, or JSON. Examples:
              youll-devices set lamp state=ON brightness=40 color_temp=2700
              youll-devices set lamp color=hue:30,saturation:80
              youll-devices set diffuser mist=ON 'led_color={"hue":200,"saturation":90}'
            """)

    @OptionGroup var bridge: BridgeOptions

    @Argument(help: "The device's friendly name or id.", completion: CompletionCandidates.devices)
    var device: String

    @Argument(help: "Fields to set, as key=value.", completion: CompletionCandidates.fields)
    var assignments: [String] = []

    func run() async throws {
        try await reportingErrors {
            let payload = try SetAssignments.parse(assignments)
            let state = try await bridge.withBridge { client, limit in
                let target = try BridgeDevice.resolve(device, in: try await client.devices(timeout: limit))
                let answer = try await client.set(device: target.friendlyName, payload: payload, timeout: limit)
                // The daemon answers {"id","friendly_name","state":{…}}; older answers were the state itself.
                let confirmed = answer["state"] ?? answer
                if let members = confirmed.objectValue, !members.isEmpty { return confirmed }
                // The daemon confirmed without the state: show what it retains now.
                let topic = "\(client.baseTopic)/\(target.friendlyName)"
                return try await client.retained(topic, timeout: limit)?.decoded() ?? confirmed
            }
            if bridge.json {
                printJSONLine(state)
            } else {
                stateList(state).print()
            }
        }
    }
}
