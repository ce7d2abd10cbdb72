import DeepLinks
import Foundation
import Testing
import TuyaCore

@Suite("Deep links: gates and parameter validation")
struct GateAndValidationTests {
    let unpaired = DeviceID("new-diffuser")!

    @Test("a maintenance link for an unpaired device is gated on pairing, and keeps the request to resume")
    func maintenanceUnpaired() throws {
        let resolution = try Fixture.resolve("youll://tuya/maintenance?type=refill&device=new-diffuser")
        let request = RouteRequest(.tuyaMaintenance(type: "refill", deviceID: unpaired))
        #expect(resolution == .gated(.devicePaired(unpaired), resume: request))
    }

    @Test("a device page for an unpaired device is gated on pairing")
    func devicePageUnpaired() throws {
        #expect(
            try Fixture.resolve("youll://tuya/devices/new-diffuser")
                == .gated(.devicePaired(unpaired), resume: RouteRequest(.tuyaDevice(id: unpaired))))
    }

    @Test("a timer link while a session runs is gated; pairing and session pages are never gated")
    func sessionRunning() throws {
        var context = Fixture.context
        context.sessionRunning = true
        #expect(
            try Fixture.resolve("youll://timer?preset=focus&minutes=25", in: context)
                == .gated(.noSessionRunning, resume: RouteRequest(.timer(preset: "focus", minutes: 25))))
        #expect(try Fixture.resolve("youll://tuya/pair", in: context) == .proceed(.tuyaPair))
        #expect(
            try Fixture.resolve("youll://timer/sessions/abc-1", in: context) == .proceed(.timerSession(id: "abc-1")))
        #expect(Precondition.noSessionRunning.description.contains("timer stop"))
        #expect(Precondition.devicePaired(unpaired).description.contains("youll-devices pair"))
    }

    @Test("a maintenance type the device's profile does not declare is refused, naming the known types")
    func unknownMaintenanceType() {
        #expect(
            Fixture.error("youll://tuya/maintenance?type=descale&device=bf3a9c1e7d2b4f60a1xq")
                == .validationFailed(
                    field: "type",
                    reason: .unknownMaintenanceType(
                        device: Fixture.diffuser, known: ["clean", "refill", "replace-wick"])))
        // A bulb's profile has no maintenance section at all.
        #expect(
            Fixture.error("youll://tuya/maintenance?type=refill&device=bulb-kitchen_2")
                == .validationFailed(field: "type", reason: .unknownMaintenanceType(device: Fixture.bulb, known: [])))
    }

    @Test("maintenance types come from the device's profile as loaded from devices/")
    func typesFromProfile() throws {
        let profile = DeviceProfile(
            id: "test-diffuser", name: "Test diffuser", category: .diffuser, productIDs: ["p"],
            transports: [.mqtt], dataPoints: [], capabilities: [:],
            maintenance: [MaintenanceRuleSpec(type: "replace-wick", title: "Replace the wick", triggers: [.days(90)])])
        var context = RouteContext()
        context.pair(unpaired, profile: profile)
        #expect(
            try Fixture.resolve("youll://tuya/maintenance?type=replace-wick&device=new-diffuser", in: context)
                == .proceed(.tuyaMaintenance(type: "replace-wick", deviceID: unpaired)))
        #expect(Fixture.error("youll://tuya/maintenance?type=refill&device=new-diffuser", in: context) != nil)
    }

    @Test("minutes must be a whole number 1–240 without sign or leading zeros")
    func minutes() throws {
        #expect(
            try Fixture.resolve("youll://timer?preset=calm&minutes=1") == .proceed(.timer(preset: "calm", minutes: 1)))
        #expect(
            try Fixture.resolve("youll://timer?preset=calm&minutes=240")
                == .proceed(.timer(preset: "calm", minutes: 240)))
        for bad in ["0", "241", "999999999"] {
            #expect(
                Fixture.error("youll://timer?preset=calm&minutes=\(bad)")
                    == .validationFailed(field: "minutes", reason: .outOfRange(1...240)), "\(bad)")
        }
        for bad in ["", "-5", "%2B5", "05", "1.5", "ten", "1e2", "9999999999999999999999", "%EF%BC%95"] {
            guard
                case .validationFailed(field: "minutes", reason: .badFormat)? = Fixture.error(
                    "youll://timer?preset=calm&minutes=\(bad)")
            else {
                Issue.record("minutes=\(bad) was not refused as badly formed")
                continue
            }
        }
    }

    @Test("a preset must exist in the configuration; the error lists the configured ones")
    func presets() {
        #expect(
            Fixture.error("youll://timer?preset=party&minutes=10")
                == .validationFailed(field: "preset", reason: .unknownPreset(known: ["calm", "focus", "sleep"])))
        // Checked before the session gate: a link that can never work is not held back.
        var running = Fixture.context
        running.sessionRunning = true
        #expect(Fixture.error("youll://timer?preset=party&minutes=10", in: running) != nil)
        let long = String(repeating: "x", count: 65)
        guard
            case .validationFailed(field: "preset", reason: .badFormat)? = Fixture.error(
                "youll://timer?preset=\(long)&minutes=10")
        else {
            Issue.record("a 65-byte preset name is refused")
            return
        }
    }

    @Test("device ids, maintenance types and session ids are held to their charsets and lengths")
    func charsets() {
        let cases: [(String, String)] = [
            ("youll://tuya/devices/bad.id", "device"),
            ("youll://tuya/devices/" + String(repeating: "a", count: 65), "device"),
            ("youll://tuya/devices/%C3%A9", "device"),
            ("youll://tuya/devices/a%2Fb", "device"),
            ("youll://tuya/maintenance?type=Refill&device=abc", "type"),
            ("youll://tuya/maintenance?type=-refill&device=abc", "type"),
            ("youll://tuya/maintenance?type=refill_now&device=abc", "type"),
            ("youll://tuya/maintenance?type=refill&device=", "device"),
            ("youll://tuya/maintenance?type=refill&device=a%20b", "device"),
            ("youll://timer/sessions/-abc", "session"),
            ("youll://timer/sessions/abc_def", "session"),
            ("youll://timer/sessions/" + String(repeating: "1", count: 65), "session"),
        ]
        for (url, field) in cases {
            guard case .validationFailed(let failed, .badFormat)? = Fixture.error(url), failed == field else {
                Issue.record("\(url) was not refused for its \(field): \(String(describing: Fixture.error(url)))")
                continue
            }
        }
    }

    @Test("a missing parameter is named")
    func missing() {
        #expect(
            Fixture.error("youll://tuya/maintenance?type=refill")
                == .validationFailed(field: "device", reason: .missing))
        #expect(Fixture.error("youll://timer?minutes=5") == .validationFailed(field: "preset", reason: .missing))
        #expect(
            (try? Fixture.engine.resolve(request: RouteRequest(route: .timerSession), context: Fixture.context)) == nil)
    }

    @Test("a request with an argument its route does not take is refused")
    func unexpectedArgument() {
        let request = RouteRequest(route: .tuyaPair, arguments: [.device: "abc"])
        #expect(throws: RouteError.malformed(.unexpectedParameter(name: "device", route: .tuyaPair))) {
            try Fixture.engine.resolve(request: request, context: Fixture.context)
        }
    }

    @Test("an in-app request is held to the same rules as a link: no control characters in a preset")
    func requestControlCharacters() {
        for preset in ["calm\n", "\u{1B}[2Jcalm", "calm\u{85}"] {
            var context = Fixture.context
            context.presets.insert(preset)
            guard
                case .validationFailed(field: "preset", reason: .badFormat)? = Result(catching: {
                    () throws(RouteError) in
                    try Fixture.engine.resolve(
                        request: RouteRequest(.timer(preset: preset, minutes: 5)), context: context)
                }).failure
            else {
                Issue.record("preset \(preset.debugDescription) was not refused")
                continue
            }
        }
    }

    @Test("error messages name the thing and what to do")
    func messages() {
        #expect(
            RouteError.validationFailed(field: "minutes", reason: .outOfRange(1...240)).description
                == "link parameter 'minutes': must be 1–240")
        #expect(Fixture.error("ftp://tuya/pair")!.description.contains("youll://"))
        #expect(Fixture.error("youll://nowhere")!.description.contains("tuya/maintenance?type=<type>&device=<device>"))
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
