import Testing

@testable import TuyaCore

/// One test per rule of `capabilities:`, `faults:`, `scenes:` and `maintenance:`.
@Suite("Profile rejections: capabilities, faults, scenes, maintenance")
struct ProfileCapabilityRejectionTests {
    typealias F = ProfileFixture

    @Test("an unknown capability name lists the known ones")
    func unknownCapability() {
        F.expectRejection(
            F.replacing("  power: switch\n", with: "  power: switch\n  spray: switch_spray\n"),
            keyPath: "capabilities.spray", reason: "unknown capability 'spray'; expected one of: power")
    }

    @Test("a capability bound to a code no data point has is rejected")
    func missingDataPointByCode() {
        F.expectRejection(
            F.replacing("power: switch\n", with: "power: switch_led\n"),
            keyPath: "capabilities.power", reason: "no data point with code 'switch_led'")
    }

    @Test("a capability bound to an id no data point has is rejected")
    func missingDataPointByID() {
        F.expectRejection(
            F.replacing("mist: 2\n", with: "mist: 7\n"), keyPath: "capabilities.mist", reason: "no data point with id 7"
        )
    }

    @Test(
        "a capability bound to a DP of the wrong type names both types",
        arguments: [
            (
                "power: switch\n", "power: bright_value\n", "capabilities.power",
                "power needs a DP of type bool, but bright_value (DP8) is value"
            ),
            (
                "led_brightness: bright_value", "led_brightness: switch", "capabilities.led_brightness",
                "needs a DP of type value"
            ),
            ("mist_mode: mode", "mist_mode: switch_spray", "capabilities.mist_mode", "needs a DP of type enum"),
            ("fault: fault\n", "fault: bright_value\n", "capabilities.fault", "needs a DP of type bitmap"),
            (
                "power: switch\n", "power: switch\n  minutes_left: mode\n", "capabilities.minutes_left",
                "needs a DP of type value"
            ),
            (
                "power: switch\n", "power: switch\n  timer: bright_value\n", "capabilities.timer",
                "needs a DP of type enum"
            ),
            ("power: switch\n", "power: switch\n  brightness: colour_data\n", "capabilities.brightness", "is string"),
            ("power: switch\n", "power: switch\n  work_mode: switch\n", "capabilities.work_mode", "is bool"),
            ("power: switch\n", "power: switch\n  led_mode: fault\n", "capabilities.led_mode", "is bitmap"),
        ])
    func wrongType(old: String, new: String, keyPath: String, reason: String) {
        F.expectRejection(F.replacing(old, with: new), keyPath: keyPath, reason: reason)
    }

    @Test("a colour capability bound to a string DP without a format is rejected")
    func colourWithoutFormat() {
        F.expectRejection(
            F.replacing("type: string, format: hsv16", with: "type: string"),
            keyPath: "capabilities.led_colour", reason: "needs a string DP with a format")
    }

    @Test("color_temp written as a bare DP, without kelvin bounds, is rejected")
    func colorTempWithoutKelvin() {
        F.expectRejection(
            F.replacing(
                "color_temp: { dp: temp_value, kelvin_min: 2700, kelvin_max: 6500 }", with: "color_temp: temp_value"),
            keyPath: "capabilities.color_temp", reason: "color_temp needs kelvin bounds")
    }

    @Test(
        "color_temp kelvin bounds must lie in 1000...10000 with min below max",
        arguments: [(2700, 2700), (6500, 2700), (500, 6500), (2700, 12_000)])
    func colorTempBadKelvin(low: Int, high: Int) {
        F.expectRejection(
            F.replacing("kelvin_min: 2700, kelvin_max: 6500", with: "kelvin_min: \(low), kelvin_max: \(high)"),
            keyPath: "capabilities.color_temp", reason: "must lie in 1000...10000 with kelvin_min below kelvin_max")
    }

    @Test("kelvin bounds on a capability other than color_temp are unknown keys")
    func kelvinOnBrightness() {
        F.expectRejection(
            F.replacing("led_brightness: bright_value", with: "led_brightness: { dp: bright_value, kelvin_min: 2700 }"),
            keyPath: "capabilities.led_brightness.kelvin_min", reason: "unknown key 'kelvin_min'")
    }

    @Test("a fault bit outside 0...31 is rejected", arguments: [-1, 32])
    func faultBitOutOfRange(bit: Int) {
        F.expectRejection(
            F.replacing("{ bit: 0, label: water_shortage }", with: "{ bit: \(bit), label: water_shortage }"),
            keyPath: "faults[0].bit", reason: "fault bit \(bit) is outside 0...31")
    }

    @Test("a fault label used twice is rejected")
    func duplicateFaultLabel() {
        F.expectRejection(
            F.replacing(
                "{ bit: 0, label: water_shortage }",
                with: "{ bit: 0, label: water_shortage }\n  - { bit: 1, label: water_shortage }"),
            keyPath: "faults[1].label", reason: "duplicate fault label 'water_shortage' (also at faults[0])")
    }

    @Test("faults without a fault capability are rejected")
    func faultsWithoutCapability() {
        F.expectRejection(
            F.replacing("  fault: fault\n", with: ""), keyPath: "faults",
            reason: "no DP is bound to the 'fault' capability")
    }

    @Test("scenes without a scene capability are rejected")
    func scenesWithoutCapability() {
        F.expectRejection(
            F.replacing("  scene: scene\n", with: ""), keyPath: "scenes",
            reason: "no DP is bound to the 'scene' capability")
    }

    @Test("a scene naming a label the enum scene DP lacks is rejected")
    func sceneNotInEnum() {
        F.expectRejection(
            F.replacing("bedtime: night", with: "bedtime: sunset"),
            keyPath: "scenes.bedtime", reason: "'sunset' is not a value of scene: night, read")
    }

    @Test(
        "a maintenance type that is not lower-case words and dashes is rejected",
        arguments: ["Refill", "re fill", "-x", "a23456789012345678901234567890123"])
    func badMaintenanceType(type: String) {
        F.expectRejection(
            F.replacing("type: refill", with: "type: \"\(type)\""),
            keyPath: "maintenance[0].type", reason: "must be 1-32 lower-case letters")
    }

    @Test("a maintenance type used twice is rejected")
    func duplicateMaintenanceType() {
        F.expectRejection(
            F.replacing("type: clean", with: "type: refill"),
            keyPath: "maintenance[1].type", reason: "duplicate maintenance type 'refill' (also at maintenance[0])")
    }

    @Test("a fault trigger must name a declared fault label")
    func triggerUnknownFault() {
        F.expectRejection(
            F.replacing("{ fault: water_shortage }", with: "{ fault: no_water }"),
            keyPath: "maintenance[0].triggers[0].fault",
            reason: "fault 'no_water' is not declared under faults (water_shortage)")
    }

    @Test("usage_hours must be positive", arguments: [0, -4])
    func usageHoursNotPositive(hours: Int) {
        F.expectRejection(
            F.replacing("usage_hours: 40", with: "usage_hours: \(hours)"),
            keyPath: "maintenance[1].triggers[0].usage_hours", reason: "usage_hours \(hours) is outside 1...")
    }

    @Test("usage_hours must count power or mist, not another capability")
    func usageOfUnknownCapability() {
        F.expectRejection(
            F.replacing("of: mist", with: "of: led_power"),
            keyPath: "maintenance[1].triggers[0].of",
            reason: "unknown usage source 'led_power'; expected one of: mist, power")
    }

    @Test("usage_hours of mist needs a DP bound to mist")
    func usageOfUnboundCapability() {
        F.expectRejection(
            F.replacing("  mist: 2\n", with: ""),
            keyPath: "maintenance[1].triggers[0].of", reason: "no DP is bound to 'mist'")
    }

    @Test("usage_hours without 'of' is rejected")
    func usageWithoutSource() {
        F.expectRejection(
            F.replacing("{ usage_hours: 40, of: mist }", with: "{ usage_hours: 40 }"),
            keyPath: "maintenance[1].triggers[0]", reason: "missing required key 'of'")
    }

    @Test("days must be positive")
    func daysNotPositive() {
        F.expectRejection(
            F.replacing("{ days: 30 }", with: "{ days: 0 }"),
            keyPath: "maintenance[1].triggers[1].days", reason: "days 0 is outside 1...")
    }

    @Test("a rule without triggers is rejected")
    func noTriggers() {
        F.expectRejection(
            F.replacing("triggers: [{ fault: water_shortage }]", with: "triggers: []"),
            keyPath: "maintenance[0].triggers", reason: "needs at least one trigger")
    }

    @Test("a trigger mixing two kinds is rejected")
    func twoKindsInOneTrigger() {
        F.expectRejection(
            F.replacing("{ days: 30 }", with: "{ days: 30, fault: water_shortage }"),
            keyPath: "maintenance[1].triggers[1]", reason: "exactly one of fault, usage_hours or days, found 2")
    }
}
