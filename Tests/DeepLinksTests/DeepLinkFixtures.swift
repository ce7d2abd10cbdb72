import DeepLinks
import TuyaCore
import DeviceSimulator
import YoullTestSupport

enum Fixture {
    static let engine = RoutingEngine()
    static let diffuser = DeviceID("bf3a9c1e7d2b4f60a1xq")!
    static let bulb = DeviceID("bulb-kitchen_2")!

    /// Two paired devices (a diffuser with the shipped maintenance types, a bulb with
    /// none), the shipped presets, no session, one universal-link host.
    static let context = RouteContext(
        pairedDevices: [diffuser: ["refill", "clean", "replace-wick"], bulb: []],
        presets: ["calm", "focus", "sleep"], sessionRunning: false, universalLinkHosts: ["links.youll.example"])

    static func resolve(_ url: String, in context: RouteContext = context) throws(RouteError) -> RouteResolution {
        try engine.resolve(url: url, context: context)
    }

    /// The error `url` is rejected with, or nil if it resolves.
    static func error(_ url: String, in context: RouteContext = context) -> RouteError? {
        do throws(RouteError) {
            _ = try engine.resolve(url: url, context: context)
            return nil
        } catch {
            return error
        }
    }

    static func malformation(_ url: String) -> RouteError.MalformedReason? {
        if case .malformed(let reason)? = error(url) { return reason }
        return nil
    }
}

/// Random destinations of one kind, with the context that satisfies each.
struct DestinationGenerator {
    var random: SeededGenerator

    private static let idAlphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
    private static let typeFirst = Array("abcdefghijklmnopqrstuvwxyz")
    private static let typeRest = Array("abcdefghijklmnopqrstuvwxyz0123456789-")
    private static let sessionAlphabet = Array("abcdefABCDEF0123456789-")
    /// Preset names are free text: reserved URL characters, spaces, non-ASCII and
    /// characters outside the BMP all have to survive the round trip.
    private static let presetAlphabet = Array("abcXYZ019 -_.~&=?#/%+;:@!$'()*,[]\"<>\\^`{|}éß日本🙂\u{00A0}\u{200B}")

    mutating func destination(_ kind: RouteName) -> DeeplinkDestination {
        switch kind {
        case .tuyaMaintenance: .tuyaMaintenance(type: maintenanceType(), deviceID: deviceID())
        case .tuyaDevice: .tuyaDevice(id: deviceID())
        case .tuyaPair: .tuyaPair
        case .timer: .timer(preset: preset(), minutes: Int.random(in: 1...240, using: &random))
        case .timerSession: .timerSession(id: sessionID())
        }
    }

    mutating func deviceID() -> DeviceID {
        DeviceID(string(from: Self.idAlphabet, length: 1...64))!
    }

    mutating func maintenanceType() -> String {
        String(Self.typeFirst.randomElement(using: &random)!) + string(from: Self.typeRest, length: 0...31)
    }

    mutating func sessionID() -> String {
        String(Self.sessionAlphabet.prefix(22).randomElement(using: &random)!)
            + string(from: Self.sessionAlphabet, length: 0...63)
    }

    mutating func preset() -> String {
        while true {
            let candidate = string(from: Self.presetAlphabet, length: 1...20)
            if (1...64).contains(candidate.utf8.count) { return candidate }
        }
    }

    private mutating func string(from alphabet: [Character], length: ClosedRange<Int>) -> String {
        let count = Int.random(in: length, using: &random)
        return String((0..<count).map { _ in alphabet.randomElement(using: &random)! })
    }

    /// A context in which `destination` proceeds.
    static func satisfying(_ destination: DeeplinkDestination) -> RouteContext {
        var context = Fixture.context
        switch destination {
        case .tuyaMaintenance(let type, let id): context.pairedDevices[id] = ["clean", type]
        case .tuyaDevice(let id): context.pairedDevices[id] = []
        case .timer(let preset, _): context.presets.insert(preset)
        case .tuyaPair, .timerSession: break
        }
        return context
    }
}
