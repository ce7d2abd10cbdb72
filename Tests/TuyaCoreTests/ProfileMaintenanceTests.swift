import Foundation
import Testing

@testable import TuyaCore
import YoullTestSupport

/// The text, timing and reset parts of `maintenance:` rules: `body`, `steps`,
/// `due_soon_at`, `reset_dp` and `reset_value`, and the rules every shipped diffuser carries.
@Suite("Profile maintenance rules")
struct ProfileMaintenanceTests {
    typealias F = ProfileFixture

    /// The fixture with a writable `filter_reset` bool (DP 102) and a read-only counter (DP 103).
    static let withResetDPs = F.replacing(
        "  - { id: 101, code: scene, type: enum, values: [night, read] }\n",
        with: """
              - { id: 101, code: scene, type: enum, values: [night, read] }
              - { id: 102, code: filter_reset, type: bool }
              - { id: 103, code: filter_days, type: value, min: 0, max: 1000, access: ro }
              - { id: 104, code: filter_life, type: string }

            """)

    static func cleanRule(adding extra: String) -> String {
        F.replacing(
            "triggers: [{ usage_hours: 40, of: mist }, { days: 30 }]\n",
            with: "triggers: [{ usage_hours: 40, of: mist }, { days: 30 }]\n" + extra, in: withResetDPs)
    }

    /// Expects exactly `reason` at `keyPath`, not merely a message containing it.
    static func expectExactRejection(
        _ yaml: String, keyPath: String, reason: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let error = F.expectRejection(yaml, keyPath: keyPath, reason: reason, sourceLocation: sourceLocation)
        else { return }
        #expect(error.reason == reason, sourceLocation: sourceLocation)
    }

    @Test("body, steps, due_soon_at and a reset DP by code load into the rule")
    func fullRuleLoads() throws {
        let yaml = Self.cleanRule(adding: "    due_soon_at: 0.75\n    reset_dp: filter_reset\n    reset_value: true\n")
        let profile = try ProfileLoader.parse(yaml: yaml, source: "devices/test.yaml")
        let clean = try #require(profile.maintenance.first { $0.type == "clean" })
        #expect(clean.body == "Residue weakens the mist.")
        #expect(clean.steps == ["Unplug it.", "Wipe the plate."])
        #expect(clean.dueSoonShare == 0.75)
        #expect(clean.reset == MaintenanceReset(dataPoint: DataPointID(102)!, value: .bool(true)))
        let refill = try #require(profile.maintenance.first { $0.type == "refill" })
        #expect(refill.dueSoonShare == MaintenanceRuleSpec.defaultDueSoonShare)
        #expect(refill.steps.isEmpty)
        #expect(refill.reset == nil)
    }

    @Test("a reset DP can be named by id and take a value or an enum label")
    func resetByIDAndOtherTypes() throws {
        let byID = Self.cleanRule(adding: "    reset_dp: 23\n    reset_value: 1000\n")
        let profile = try ProfileLoader.parse(yaml: byID, source: "devices/test.yaml")
        #expect(profile.maintenance[1].reset == MaintenanceReset(dataPoint: DataPointID(23)!, value: .value(1000)))
        let byEnum = Self.cleanRule(adding: "    reset_dp: mode\n    reset_value: small\n")
        let enumProfile = try ProfileLoader.parse(yaml: byEnum, source: "devices/test.yaml")
        #expect(enumProfile.maintenance[1].reset?.value == .enumeration("small"))
    }

    @Test("a folded block body is trimmed and keeps its words")
    func foldedBody() throws {
        let yaml = F.replacing(
            "body: The tank is empty.\n", with: "body: >-\n      The tank\n      is empty.\n")
        let profile = try ProfileLoader.parse(yaml: yaml, source: "devices/test.yaml")
        #expect(profile.maintenance[0].body == "The tank is empty.")
    }

    @Test("a rule without a body is rejected with the rule's path and line")
    func missingBody() {
        let yaml = F.replacing("    body: The tank is empty.\n", with: "")
        let error = F.expectRejection(yaml, keyPath: "maintenance[0]", reason: "missing required key 'body'")
        #expect(error?.description == "devices/test.yaml:30: maintenance[0]: missing required key 'body'")
    }

    @Test(
        "bad bodies are rejected with exact reasons",
        arguments: [
            ("body: \"  \"", "must not be empty"),
            ("body: \"a\\u0007b\"", "body must not contain control characters other than line breaks"),
            ("body: [a, b]", "expected a string, found a list"),
            (
                "body: " + String(repeating: "x", count: 1001),
                "body is 1001 characters; at most 1000"
            ),
        ])
    func badBody(body: String, reason: String) {
        Self.expectExactRejection(
            F.replacing("body: The tank is empty.", with: body), keyPath: "maintenance[0].body", reason: reason)
    }

    @Test(
        "bad steps are rejected with exact reasons",
        arguments: [
            ("steps: [Unplug it., \"\"]", "maintenance[1].steps[1]", "must not be empty"),
            (
                "steps: [\"one\\ntwo\"]", "maintenance[1].steps[0]",
                "a step is one line without control characters; split it into several steps"
            ),
            ("steps: Unplug it.", "maintenance[1].steps", "expected a list, found a scalar"),
            (
                "steps: [" + Array(repeating: "x", count: 21).joined(separator: ", ") + "]", "maintenance[1].steps",
                "21 steps; at most 20"
            ),
            (
                "steps: [" + String(repeating: "y", count: 301) + "]", "maintenance[1].steps[0]",
                "a step is at most 300 characters, found 301"
            ),
        ])
    func badSteps(steps: String, keyPath: String, reason: String) {
        Self.expectExactRejection(
            F.replacing("steps: [Unplug it., Wipe the plate.]", with: steps), keyPath: keyPath, reason: reason)
    }

    @Test(
        "due_soon_at must be a plain decimal strictly between 0 and 1",
        arguments: ["0", "1", "1.0", "0.0", "0.00", ".8", "80%", "\"0.8\"", "0.8e0", "-0.5", "0.12345", "0x1"])
    func badDueSoonShare(text: String) {
        let shown = text.hasPrefix("\"") ? String(text.dropFirst().dropLast()) : text
        Self.expectExactRejection(
            Self.cleanRule(adding: "    due_soon_at: \(text)\n"), keyPath: "maintenance[1].due_soon_at",
            reason: "due_soon_at must be a decimal between 0 and 1 (exclusive), like 0.8; found '\(shown)'")
    }

    @Test("due_soon_at on a rule with only fault triggers is rejected")
    func dueSoonOnFaultRule() {
        Self.expectExactRejection(
            F.replacing(
                "triggers: [{ fault: water_shortage }]\n",
                with: "triggers: [{ fault: water_shortage }]\n    due_soon_at: 0.5\n"),
            keyPath: "maintenance[0].due_soon_at",
            reason: "due_soon_at applies to usage_hours and days triggers; this rule has only fault triggers")
    }

    @Test(
        "reset_dp and reset_value are checked against the profile's data points",
        arguments: [
            (
                "    reset_dp: filter_days\n    reset_value: 0\n", "maintenance[1].reset_dp",
                "filter_days (DP103) is read-only; a reset is written to a DP with access rw or wo"
            ),
            (
                "    reset_dp: wick_reset\n    reset_value: true\n", "maintenance[1].reset_dp",
                "no data point with code 'wick_reset'; declare it under data_points"
            ),
            (
                "    reset_dp: 99\n    reset_value: true\n", "maintenance[1].reset_dp",
                "no data point with id 99; declare it under data_points"
            ),
            (
                "    reset_dp: filter_life\n    reset_value: full\n", "maintenance[1].reset_dp",
                "a reset DP is bool, value or enum, but filter_life (DP104) is string"
            ),
            ("    reset_dp: filter_reset\n", "maintenance[1]", "missing required key 'reset_value'"),
            (
                "    reset_value: true\n", "maintenance[1].reset_value",
                "reset_value needs reset_dp, the DP it is written to"
            ),
            (
                "    reset_dp: filter_reset\n    reset_value: yes\n", "maintenance[1].reset_value",
                "expected true or false, found 'yes'"
            ),
            (
                "    reset_dp: temp_value\n    reset_value: 1001\n", "maintenance[1].reset_value",
                "reset_value 1001 is outside 0...1000 of temp_value"
            ),
            (
                "    reset_dp: mode\n    reset_value: medium\n", "maintenance[1].reset_value",
                "reset_value 'medium' is not one of the values of mode: small, large"
            ),
            (
                "    reset_dpp: filter_reset\n", "maintenance[1].reset_dpp",
                "unknown key 'reset_dpp'; expected one of: type, title, body, steps, triggers, due_soon_at, reset_dp, reset_value"
            ),
        ])
    func badReset(extra: String, keyPath: String, reason: String) {
        Self.expectExactRejection(Self.cleanRule(adding: extra), keyPath: keyPath, reason: reason)
    }

    @Test("hostile maintenance text is refused, not loaded or crashed on")
    func hostileText() {
        // A terminal escape in a step would reach every `maintenance list` and log line.
        Self.expectExactRejection(
            F.replacing("steps: [Unplug it., Wipe the plate.]", with: "steps: [\"\\e[2Jgone\"]"),
            keyPath: "maintenance[1].steps[0]",
            reason: "a step is one line without control characters; split it into several steps")
        F.expectRejection(
            F.replacing("body: The tank is empty.", with: "body: {a: [b, {c: d}]}"), keyPath: "maintenance[0].body",
            reason: "expected a string, found a mapping")
        F.expectRejection(
            F.replacing("steps: [Unplug it., Wipe the plate.]", with: "steps: [[a], b]"),
            keyPath: "maintenance[1].steps[0]", reason: "expected a string, found a list")
    }

    @Test("every shipped diffuser has refill, clean and replace-wick with a body and steps")
    func shippedDiffuserRules() {
        let library = Repository.shippedProfiles
        #expect(library.errors.isEmpty, "\(library.errors)")
        let diffusers = library.all.filter { $0.category == .diffuser }
        #expect(
            diffusers.map(\.id).sorted() == ["aroma-diffuser-legacy", "aroma-diffuser-modern", "ble-diffuser-dituo"])
        for profile in diffusers {
            #expect(profile.maintenance.map(\.type) == ["refill", "clean", "replace-wick"], "\(profile.id)")
            for rule in profile.maintenance {
                #expect(!rule.body.isEmpty && rule.steps.count >= 3, "\(profile.id) \(rule.type)")
                for case .fault(let label) in rule.triggers {
                    #expect(profile.faults.contains { $0.label == label }, "\(profile.id) \(rule.type)")
                }
                for case .usageHours(_, let capability) in rule.triggers {
                    #expect(profile.capabilities[capability] != nil, "\(profile.id) \(rule.type)")
                }
            }
            #expect(profile.maintenance[0].triggers == [.fault(label: "water_shortage")])
            #expect(profile.maintenance[1].triggers.contains(.days(14)))
        }
    }
}
