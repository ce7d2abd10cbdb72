import DeepLinks
import Foundation
import TuyaCore

/// Deep-link resolutions per second over a mix of valid and invalid links (the routing
/// engine: strict parse, validation, context checks, destination or gate), beside
/// Foundation's `URLComponents(string:)` merely parsing the same strings in the same run.
struct LinkBenchmarks {
    let seconds: Double

    static let diffuser = DeviceID("bf3a9c1e7d2b4f60a1xq")!
    static let context = RouteContext(
        pairedDevices: [diffuser: ["refill", "clean", "replace-wick"], DeviceID("bulb-kitchen")!: []],
        presets: ["calm", "focus", "sleep"], sessionRunning: false, universalLinkHosts: ["links.youll.example"])

    /// Half resolve (to a destination or a gate), half are rejected for different reasons.
    static let links = [
        "youll://tuya/maintenance?type=refill&device=bf3a9c1e7d2b4f60a1xq",
        "youll://tuya/maintenance?device=bf3a9c1e7d2b4f60a1xq&type=replace-wick",
        "youll://tuya/devices/bulb-kitchen",
        "youll://tuya/pair",
        "youll://timer?preset=calm&minutes=20",
        "youll://timer/sessions/3f2a9c1e-7d2b-4f60-a1b2-c3d4e5f60718",
        "https://links.youll.example/tuya/maintenance?type=clean&device=bf3a9c1e7d2b4f60a1xq",
        "youll://tuya/devices/bfunpaired000000001",
        "youll://tuya/maintenance?type=refill&device=bf3a9c1e7d2b4f60a1xq&type=clean",
        "youll://timer?preset=calm&minutes=900",
        "youll://tuya/maintenance?type=oil&device=bf3a9c1e7d2b4f60a1xq",
        "youll://user@tuya/pair",
        "youll://tuya/devices/%zz",
        "http://tuya/pair",
        "youll://tuya/nowhere",
        "youll://timer?preset=sl%00eep&minutes=10",
    ]

    func run() {
        let links = Self.links
        let engine = RoutingEngine()
        let context = Self.context
        var resolved = 0
        let resolutions = rate(seconds: seconds) {
            for link in links {
                if (try? engine.resolve(url: link, context: context)) != nil { resolved &+= 1 }
            }
        }
        var parsed = 0
        let parses = rate(seconds: seconds) {
            for link in links where URLComponents(string: link) != nil { parsed &+= 1 }
        }
        blackHole((resolved, parsed))
        let perSecond = resolutions * Double(links.count)
        let floor = parses * Double(links.count)
        report("deeplink.resolve", perSecond, "links/s")
        report("deeplink.floor.urlcomponents", floor, "links/s")
        // Time per link, resolve over parse-only: lower is better, target <= 2.
        print("BENCH deeplink.resolve.vs-urlcomponents.ratio \(String(format: "%.2f", floor / perSecond)) x")
    }
}
