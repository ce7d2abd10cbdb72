import ArgumentParser
import DeviceSimulator
import Foundation
import LocalBroker
import MQTTLink
import TuyaController
import TuyaCore

/// `youll-devices demo`: the whole MQTT path on a fresh machine, no hardware needed. A
/// private mosquitto on a free loopback port, simulated devices speaking Tuya's real
/// protocol to it, and the controller pairing and driving them exactly as it would real
/// ones. Leaves no process behind.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo", abstract: "Pair and drive simulated Tuya devices on a private broker.")

    @Option(name: .long, help: "A folder of device profiles (repeatable; default: the installed ones).")
    var profiles: [String] = []

    func run() async throws {
        let start = ContinuousClock.now
        let library = ProfileLibrary.load(directories: ProfileDirectories.search(explicit: profiles))
        for error in library.errors { print("  warning: profile skipped: \(error)") }

        step("Starting a private mosquitto broker")
        let broker = try LocalBroker()
        defer { broker.stop() }
        print("  broker on \(broker.url) (set_tcp_nodelay true)")

        step("Starting simulated devices: two lights and an aroma diffuser")
        let fleet = try SimulatorFleet(
            options: .init(lights: 2, diffusers: 1, seed: 2026), library: library,
            broker: SwarmConfiguration(brokerURL: broker.url))
        try await fleet.start()
        defer { fleet.stop() }
        guard await fleet.waitUntilConnected(timeout: .seconds(15)) else { throw CLIError("simulated devices did not connect") }
        for identity in fleet.identities { print("  \(identity.name): devId \(identity.devId), profile \(identity.profile.id)") }

        step("Starting the controller and importing the devices' tinytuya devices.json")
        let bus = try MQTTDeviceBus(configuration: MQTTConfiguration(url: broker.url))
        let controller = TuyaController(bus: bus, library: library)
        try await controller.start()
        let events = controller.events()
        let eventLog = Task {
            var lines: [String] = []
            for await event in events { lines.append(describe(event)) }
            return lines
        }
        let outcomes = try await controller.importTinyTuya(devicesJSON: Array(fleet.devicesJSON().utf8))
        var devices: [TuyaDevice] = []
        for (entry, outcome) in outcomes {
            print("  \(entry.name): \(outcome)")
            if case .paired(let device) = outcome { devices.append(device) }
        }
        guard devices.count == fleet.identities.count else {
            await controller.stop()
            throw CLIError("only \(devices.count) of \(fleet.identities.count) devices paired")
        }

        step("A wrong local key is caught at pairing, not mistaken for an offline device")
        // A device reveals a wrong key only by what it sends, so the lamp is switched on
        // while pairing is under way: its power-on report cannot be decrypted.
        let extra = try SimulatorFleet(
            options: .init(lights: 1, diffusers: 0, seed: 99), library: library,
            broker: SwarmConfiguration(brokerURL: broker.url))
        if let stranger = extra.identities.first {
            let outcome = try await withThrowingTaskGroup(of: PairingOutcome?.self) { group in
                group.addTask {
                    try await controller.pair(devId: stranger.devId, localKey: "0000000000000000", name: "guest-lamp")
                }
                group.addTask {
                    // Switched on once pairing is under way; switched off and on again while
                    // the pairing waits, as a person trying would.
                    try await Task.sleep(for: .milliseconds(100))
                    try await extra.start()
                    while true {
                        try await Task.sleep(for: .milliseconds(500))
                        await extra.goOffline(stranger.devId)
                        await extra.comeOnline(stranger.devId)
                    }
                }
                defer { group.cancelAll() }
                while let result = try await group.next() {
                    if let outcome = result { return outcome }
                }
                return PairingOutcome.noAnswer
            }
            print("  guest-lamp, paired with key 0000… and switched on: \(outcome)")
        }
        defer { extra.stop() }

        step("Driving the devices (each call returns when the device itself confirms)")
        let lights = devices.filter { $0.category == .light }
        let diffusers = devices.filter { $0.category == .diffuser }
        if let first = lights.first {
            try await drive(controller, first, .light(LightCommand(power: true, brightness: 30, colorTemperature: 2700)),
                "warm and dim: on, 30 %, 2700 K")
        }
        if lights.count > 1 {
            try await drive(controller, lights[1], .light(LightCommand(power: true, colour: HSVColour(hue: 30, saturation: 80, value: 60))),
                "amber colour: hue 30°, 80 % saturation, 60 % value")
        }
        if let diffuser = diffusers.first {
            try await drive(controller, diffuser, .diffuser(DiffuserCommand(power: true, mist: true, ledPower: true, ledBrightness: 20)),
                "mist on, LED at 20 %")
        }
        if let first = lights.first {
            try await drive(controller, first, .light(LightCommand(brightness: 100, colorTemperature: 5000)),
                "sunrise end: 100 %, 5000 K")
        }

        step("What the devices say now")
        for device in devices {
            let state = await controller.confirmedState(of: device.id)
            let status = await controller.status(of: device.id)
            print("  \(device.name) [\(status?.availability.rawValue ?? "unknown")]: \(state.map(describe) ?? "no report yet")")
        }

        await controller.stop()
        let log = await eventLog.value
        let elapsed = start.duration(to: .now)
        step("Done")
        print("  \(devices.count) devices paired and driven over MQTT, \(log.count) controller events, in \(elapsed.formatted(.units(allowed: [.seconds, .milliseconds], width: .narrow)))")
        print("  broker and simulated devices stopped; nothing left running")
    }

    private func step(_ text: String) {
        print("\n== \(text)")
    }

    private func drive(_ controller: TuyaController, _ device: TuyaDevice, _ command: DeviceCommand, _ what: String) async throws {
        let clock = ContinuousClock()
        let started = clock.now
        let state = try await controller.send(command, to: device.id)
        let elapsed = started.duration(to: clock.now)
        print("  \(device.name): \(what) → confirmed in \(String(format: "%.1f", Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)) ms")
        print("    \(describe(state))")
    }
}

private func describe(_ state: DeviceState) -> String {
    switch state {
    case .light(let light):
        var parts = [light.power == true ? "on" : "off"]
        if let mode = light.mode { parts.append("mode \(mode)") }
        if light.mode == "colour", let colour = light.colour {
            parts.append("\(colour)")
        } else {
            if let brightness = light.brightness { parts.append("brightness \(brightness) %") }
            if let kelvin = light.colorTemperature { parts.append("\(kelvin) K") }
        }
        return parts.joined(separator: ", ")
    case .diffuser(let diffuser):
        var parts = [diffuser.power == true ? "on" : "off"]
        if let mist = diffuser.mist { parts.append("mist \(mist ? "on" : "off")") }
        if let mode = diffuser.mistMode { parts.append("mode \(mode)") }
        if let led = diffuser.ledPower { parts.append("LED \(led ? "on" : "off")") }
        if let brightness = diffuser.ledBrightness { parts.append("LED \(brightness) %") }
        if !diffuser.faults.isEmpty { parts.append("faults: \(diffuser.faults.joined(separator: ", "))") }
        return parts.joined(separator: ", ")
    }
}

private func describe(_ event: ControllerEvent) -> String {
    switch event {
    case .stateChanged(let id, _): "state \(id)"
    case .availabilityChanged(let id, let status): "availability \(id) \(status.availability.rawValue)"
    case .faultRaised(let id, let labels): "fault \(id) \(labels)"
    case .faultCleared(let id, let labels): "fault cleared \(id) \(labels)"
    case .devicePaired(let device): "paired \(device.id)"
    case .deviceRemoved(let id): "removed \(id)"
    case .candidateFound(let candidate): "heard unpaired device \(candidate.id)"
    }
}
