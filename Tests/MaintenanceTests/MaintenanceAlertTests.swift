import DeepLinks
import Foundation
import Testing
import TuyaCore

@testable import Maintenance

@Suite("Maintenance alerts")
struct MaintenanceAlertTests {
    let device = Fixtures.diffuser

    @Test("the same state produces one alert however often it is reported; a worse state or a new round alerts again")
    func deduplication() throws {
        let time = TestTime()
        var tracker = MaintenanceTracker()
        _ = tracker.register(device, profile: try Fixtures.modernDiffuser(), at: time.now)
        let dry = Fixtures.misting(false, faults: ["water_shortage"])
        var alerts = tracker.observe(state: dry, of: device, at: time.now).alerts
        for _ in 0..<5 {
            time.advance(hours: 1)
            alerts += tracker.observe(state: dry, of: device, at: time.now).alerts
            alerts += tracker.tick(at: time.now).alerts
        }
        #expect(alerts.map(\.id) == ["desk-diffuser:refill:due:1"])
        time.advance(hours: 19)
        #expect(tracker.tick(at: time.now).alerts.map(\.id) == ["desk-diffuser:refill:overdue:1"])
        #expect(tracker.tick(at: time.now).alerts.isEmpty)
        // Refilled, then dry again: a new round, a new alert.
        _ = tracker.observe(state: Fixtures.misting(true), of: device, at: time.now)
        time.advance(hours: 5)
        #expect(
            tracker.observe(state: dry, of: device, at: time.now).alerts.map(\.id) == ["desk-diffuser:refill:due:2"])
    }

    @Test(
        "a water sensor chattering near empty sends one alert, and overdue counts from its first raise; a raise after the flap window is a new round"
    )
    func flappingFault() throws {
        let time = TestTime()
        var tracker = MaintenanceTracker()
        _ = tracker.register(device, profile: try Fixtures.modernDiffuser(), at: time.now)
        let dry = Fixtures.misting(false, faults: ["water_shortage"])
        let wet = Fixtures.misting(false)
        var alerts: [String] = []
        for _ in 0..<6 {
            alerts += tracker.observe(state: dry, of: device, at: time.now).alerts.map(\.id)
            time.advance(hours: 1.0 / 60)
            alerts += tracker.observe(state: wet, of: device, at: time.now).alerts.map(\.id)
            time.advance(hours: 1.0 / 60)
        }
        #expect(alerts == ["desk-diffuser:refill:due:1"])
        // Raised again and left raised: overdue a day after the first raise, not the last.
        _ = tracker.observe(state: dry, of: device, at: time.now)
        time.advance(hours: 24 - 12.0 / 60)
        #expect(tracker.tick(at: time.now).alerts.map(\.id) == ["desk-diffuser:refill:overdue:1"])
        // Cleared for longer than the window, then dry again: that is news.
        _ = tracker.observe(state: wet, of: device, at: time.now)
        time.advance(hours: 0.5)
        #expect(
            tracker.observe(state: dry, of: device, at: time.now).alerts.map(\.id) == ["desk-diffuser:refill:due:2"])
    }

    @Test("alerts wait while a timer session runs and are released when it ends, without stale ones")
    func heldDuringSession() throws {
        let time = TestTime()
        var tracker = MaintenanceTracker()
        _ = tracker.register(device, profile: try Fixtures.modernDiffuser(), at: time.now)
        _ = tracker.register(Fixtures.other, profile: try Fixtures.modernDiffuser(), at: time.now)
        #expect(tracker.setSessionRunning(true, at: time.now).alerts.isEmpty)
        // During the session: the desk diffuser runs dry and its clean falls due; the hall
        // diffuser runs dry and is refilled before the session ends.
        var held = tracker.observe(state: Fixtures.misting(true), of: device, at: time.now).alerts
        time.advance(hours: 40)
        held +=
            tracker.observe(state: Fixtures.misting(false, faults: ["water_shortage"]), of: device, at: time.now)
            .alerts
        held +=
            tracker.observe(
                state: Fixtures.misting(false, faults: ["water_shortage"]), of: Fixtures.other, at: time.now
            ).alerts
        time.advance(hours: 0.5)
        held += tracker.observe(state: Fixtures.misting(true), of: Fixtures.other, at: time.now).alerts
        held += tracker.tick(at: time.now).alerts
        #expect(held.isEmpty)

        let released = tracker.setSessionRunning(false, at: time.now)
        #expect(released.alerts.map(\.id) == ["desk-diffuser:refill:due:1", "desk-diffuser:clean:due:1"])
        #expect(released.reminders.map(\.key.type) == ["refill", "clean"])
        #expect(tracker.tick(at: time.now).alerts.isEmpty)
    }

    @Test("an alert carries title, body and a deep link that resolves to its reminder when the device is paired")
    func deepLinkResolves() throws {
        let time = TestTime()
        let profile = try Fixtures.modernDiffuser()
        var tracker = MaintenanceTracker()
        _ = tracker.register(device, profile: profile, at: time.now)
        time.advance(days: 180)
        let alerts = tracker.tick(at: time.now).alerts
        #expect(alerts.map(\.type) == ["clean", "replace-wick"])
        let wick = try #require(alerts.last)
        #expect(wick.deeplink == "youll://tuya/maintenance?type=replace-wick&device=desk-diffuser")
        #expect(wick.title == "Replace the wick")
        #expect(wick.body.hasPrefix("The wick wears out with use"))
        #expect(wick.state == .due)

        var context = RouteContext()
        context.pair(device, profile: profile)
        let engine = RoutingEngine()
        for alert in alerts {
            #expect(
                try engine.resolve(url: alert.deeplink, context: context)
                    == .proceed(.tuyaMaintenance(type: alert.type, deviceID: device)))
        }
        // Not paired (yet): the link is gated on pairing, not broken.
        guard case .gated = try engine.resolve(url: wick.deeplink, context: RouteContext()) else {
            Issue.record("an unpaired device's maintenance link should be gated")
            return
        }
    }

    @Test("the webhook JSON has exactly the documented fields and reads back")
    func jsonShape() throws {
        let alert = MaintenanceAlert(
            id: "desk-diffuser:refill:due:1", device: device, type: "refill", state: .dueSoon, title: "Refill",
            body: "Empty \"tank\"", deeplink: "youll://tuya/maintenance?type=refill&device=desk-diffuser",
            at: Date(timeIntervalSince1970: 1_800_000_000))
        let data = try alert.jsonData()
        #expect(
            String(decoding: data, as: UTF8.self)
                == #"{"at":"2027-01-15T08:00:00Z","body":"Empty \"tank\"","deeplink":"youll://tuya/maintenance?type=refill&device=desk-diffuser","device":"desk-diffuser","id":"desk-diffuser:refill:due:1","state":"due_soon","title":"Refill","type":"refill"}"#
        )
        #expect(try MaintenanceAlert(jsonData: data) == alert)
    }
}
