import DeepLinks
import Testing
import TuyaCore
import DeviceSimulator
import YoullTestSupport

@Suite("Deep links: url(for:) and resolve are inverses")
struct RoundTripTests {
    @Test("every generated destination's link resolves back to it", arguments: RouteName.allCases)
    func customScheme(kind: RouteName) throws {
        var generator = DestinationGenerator(
            random: SeededGenerator(seed: 0x5EED_0000 + UInt64(RouteName.allCases.firstIndex(of: kind)!)))
        for _ in 0..<1000 {
            let destination = generator.destination(kind)
            let url = Fixture.engine.url(for: destination)
            let context = DestinationGenerator.satisfying(destination)
            #expect(try Fixture.resolve(url, in: context) == .proceed(destination), "\(url)")
            #expect(url.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }, "link is printable ASCII: \(url)")
        }
    }

    @Test("the same destinations as https universal links on a configured host", arguments: RouteName.allCases)
    func universalLinks(kind: RouteName) throws {
        var generator = DestinationGenerator(random: SeededGenerator(seed: 0xB0B + UInt64(kind.rawValue.utf8.count)))
        for _ in 0..<1000 {
            let destination = generator.destination(kind)
            let url = Fixture.engine.universalLink(for: destination, host: "links.youll.example")
            #expect(url.hasPrefix("https://links.youll.example/"))
            #expect(try Fixture.resolve(url, in: DestinationGenerator.satisfying(destination)) == .proceed(destination))
        }
    }

    @Test("links have the shapes of the route table in ARCHITECTURE.md")
    func shapes() {
        let engine = Fixture.engine
        #expect(
            engine.url(for: .tuyaMaintenance(type: "refill", deviceID: Fixture.diffuser))
                == "youll://tuya/maintenance?type=refill&device=bf3a9c1e7d2b4f60a1xq")
        #expect(engine.url(for: .tuyaDevice(id: Fixture.bulb)) == "youll://tuya/devices/bulb-kitchen_2")
        #expect(engine.url(for: .tuyaPair) == "youll://tuya/pair")
        #expect(engine.url(for: .timer(preset: "calm", minutes: 20)) == "youll://timer?preset=calm&minutes=20")
        #expect(
            engine.url(for: .timer(preset: "Deep sleep & rest", minutes: 5))
                == "youll://timer?preset=Deep%20sleep%20%26%20rest&minutes=5")
        #expect(engine.url(for: .timerSession(id: "7F3A-11")) == "youll://timer/sessions/7F3A-11")
    }

    @Test("in-app requests for a destination resolve through the same table")
    func requests() throws {
        var generator = DestinationGenerator(random: SeededGenerator(seed: 42))
        for kind in RouteName.allCases {
            let destination = generator.destination(kind)
            let resolution = try Fixture.engine.resolve(
                request: RouteRequest(destination), context: DestinationGenerator.satisfying(destination))
            #expect(resolution == .proceed(destination))
        }
    }

    @Test("scheme and host compare without case, percent-encoded unreserved bytes decode, '/' alone is no path")
    func equivalentSpellings() throws {
        let pair = RouteResolution.proceed(.tuyaPair)
        #expect(try Fixture.resolve("YOULL://TUYA/pair") == pair)
        #expect(try Fixture.resolve("youll://tuya/%70air") == pair)
        #expect(try Fixture.resolve("HTTPS://Links.Youll.Example/tuya/pair") == pair)
        #expect(
            try Fixture.resolve("youll://timer/?preset=calm&minutes=9") == .proceed(.timer(preset: "calm", minutes: 9)))
        #expect(
            try Fixture.resolve("youll://tuya/maintenance?device=bulb-kitchen_2&type=refill", in: maintenanceForBulb())
                == .proceed(.tuyaMaintenance(type: "refill", deviceID: Fixture.bulb)), "query order does not matter")
        // Paths stay case-sensitive.
        #expect(Fixture.error("youll://tuya/PAIR") == .unknownRoute(path: "tuya/PAIR"))
    }

    private func maintenanceForBulb() -> RouteContext {
        var context = Fixture.context
        context.pairedDevices[Fixture.bulb] = ["refill"]
        return context
    }
}
