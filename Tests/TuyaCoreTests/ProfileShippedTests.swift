import Foundation
import Testing

@testable import TuyaCore
import YoullTestSupport

@Suite("Shipped profiles in devices/")
struct ProfileShippedTests {
    let library = Repository.shippedProfiles

    @Test("every shipped profile loads without errors")
    func allLoad() {
        #expect(library.errors.isEmpty, "\(library.errors)")
        #expect(
            library.all.map(\.id) == [
                "aroma-diffuser-legacy", "aroma-diffuser-modern", "ble-diffuser-dituo", "rgbcct-bulb-v2", "white-bulb",
            ])
    }

    @Test("the v2 bulb binds DPs 20-26 with hsv16 colour, kelvin bounds and named scenes")
    func rgbcctBulb() throws {
        let bulb = try #require(library.profile(id: "rgbcct-bulb-v2"))
        #expect(bulb.category == .light)
        #expect(bulb.transports == [.mqtt, .lan])
        #expect(bulb.dataPoints.map(\.id.intValue) == Array(20...26))
        #expect(bulb.dataPoint(for: .power)?.code == "switch_led")
        #expect(bulb.dataPoint(for: .brightness)?.range == 10...1000)
        #expect(bulb.dataPoint(for: .colour)?.colourFormat == .hsv16)
        #expect(bulb.capabilities[.colorTemperature]?.kelvin == 2700...6500)
        #expect(bulb.dataPoint(for: .workMode)?.defaultValue == .enumeration("white"))
        #expect(bulb.dataPoint(code: "countdown_1")?.unit == "s")
        #expect(bulb.scenes.first { $0.name == "night" }?.value == .string("000c0d0000000000000000c80000"))
        #expect(bulb.productIDs.contains("aok3caeleulg1neh"))
    }

    @Test("the white bulb uses the Type C layout: DPs 1-3 with v1 ranges")
    func whiteBulb() throws {
        let bulb = try #require(library.profile(id: "white-bulb"))
        #expect(bulb.dataPoints.map(\.id.intValue) == [1, 2, 3])
        #expect(bulb.dataPoint(for: .brightness)?.range == 25...255)
        #expect(bulb.dataPoint(for: .colorTemperature)?.range == 0...255)
        #expect(bulb.dataPoint(for: .colour) == nil)
    }

    @Test("the modern diffuser has DPs 1-11, its fault bitmap on DP 11 and three maintenance rules")
    func modernDiffuser() throws {
        let diffuser = try #require(library.profile(id: "aroma-diffuser-modern"))
        #expect(diffuser.category == .diffuser)
        #expect(diffuser.dataPoints.map(\.id.intValue) == Array(1...11))
        #expect(diffuser.capabilities[.fault]?.dataPoint.intValue == 11)
        #expect(diffuser.dataPoint(for: .fault)?.type == .bitmap)
        #expect(diffuser.faults == [FaultLabel(bit: 0, label: "water_shortage")])
        #expect(diffuser.maintenance.map(\.type) == ["refill", "clean", "replace-wick"])
        #expect(diffuser.maintenance.first?.triggers == [.fault(label: "water_shortage")])
        #expect(diffuser.maintenance[1].triggers == [.usageHours(40, of: .mist), .days(14)])
    }

    @Test("the legacy diffuser uses DPs 1, 11-14, 103, 108-111 with rgbhsv colour and DP 1 as mist switch")
    func legacyDiffuser() throws {
        let diffuser = try #require(library.profile(id: "aroma-diffuser-legacy"))
        #expect(diffuser.dataPoints.map(\.id.intValue) == [1, 11, 12, 13, 14, 103, 108, 109, 110, 111])
        #expect(diffuser.dataPoint(for: .ledColour)?.colourFormat == .rgbhsv)
        #expect(diffuser.capabilities[.mist]?.dataPoint == diffuser.capabilities[.power]?.dataPoint)
        #expect(diffuser.capabilities[.fault]?.dataPoint.intValue == 12)
        #expect(diffuser.dataPoint(for: .timer)?.values == ["0", "1", "2", "3"])
        #expect(diffuser.maintenance.contains { $0.type == "replace-wick" })
    }

    @Test("the Dituo profile is BLE-only with product id if1nolcm and enum scenes on DP 101")
    func dituoDiffuser() throws {
        let diffuser = try #require(library.profile(id: "ble-diffuser-dituo"))
        #expect(diffuser.transports == [.ble])
        #expect(diffuser.productIDs == ["if1nolcm"])
        #expect(diffuser.dataPoints.map(\.id.intValue) == [1, 2, 3, 5, 6, 7, 9, 10, 12, 101])
        #expect(diffuser.dataPoint(for: .ledColour)?.colourFormat == .hsv16)
        #expect(diffuser.dataPoint(for: .timer)?.enumIndex(of: "3h") == 2)
        #expect(diffuser.scenes.first { $0.name == "reading" }?.value == .enumeration("read"))
        #expect(diffuser.faults.first?.label == "water_shortage")
        #expect(library.match(productID: "if1nolcm", dataPointIDs: [])?.id == "ble-diffuser-dituo")
    }
}
