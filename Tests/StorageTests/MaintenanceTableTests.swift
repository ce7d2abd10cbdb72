import Foundation
import Storage
import Testing
import TuyaCore

/// Real SQLite files in a scratch directory.
@Suite("maintenance tables")
struct MaintenanceTableTests {
    @Test("the newest transitions are kept, as many as events, however many snoozes come")
    func transitionsAreTrimmed() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let database = try GatewayDatabase.open(directory: scratch.state, eventLimit: 5)
        for index in 1...12 {
            let transition = StoredReminderTransition(
                device: Fixture.lampID, type: "refill", from: "due", to: "snoozed",
                at: Date(timeIntervalSince1970: 1_750_000_000 + Double(index)), cause: "snooze \(index)")
            try await database.saveMaintenance(reminders: [], transitions: [transition])
        }
        let kept = try await database.maintenanceTransitions()
        #expect(kept.map(\.cause) == (8...12).map { "snooze \($0)" })
    }

    @Test("delivered alerts are kept up to the limit, newest first; undelivered ones are never dropped")
    func deliveredAlertsAreTrimmed() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let database = try GatewayDatabase.open(directory: scratch.state, eventLimit: 5)
        try await database.enqueueAlert(id: "waiting", payload: "{}")
        for index in 1...12 {
            try await database.enqueueAlert(id: "alert-\(index)", payload: "{}")
            try await database.markAlertDelivered("alert-\(index)")
        }
        let rows = try await database.outboxAlerts()
        #expect(rows.map(\.id) == ["waiting"] + (8...12).map { "alert-\($0)" })
        #expect(try await database.enqueueAlert(id: "alert-12", payload: "{}") == false, "a recent one is recognised")
    }

    @Test(
        "a removed device's alerts leave the outbox, waiting or delivered, so it is not alerted about and its ids can come again; another device's stay"
    )
    func removedDeviceAlerts() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let database = try GatewayDatabase.open(directory: scratch.state)
        let lamp = Fixture.lampID.rawValue
        // A device whose id is the lamp's with `_` where LIKE would match any character.
        let other = DeviceID(String(lamp.dropLast()) + "_")!.rawValue
        try await database.enqueueAlert(id: "\(lamp):refill:due:0", payload: "{}")
        try await database.markAlertDelivered("\(lamp):refill:due:0")
        try await database.enqueueAlert(id: "\(lamp):refill:overdue:0", payload: "{}")
        try await database.enqueueAlert(id: "\(other):refill:due:0", payload: "{}")
        try await database.deleteMaintenance(of: Fixture.lampID)
        #expect(try await database.outboxAlerts().map(\.id) == ["\(other):refill:due:0"])
        #expect(
            try await database.enqueueAlert(id: "\(lamp):refill:due:0", payload: "{}"), "paired again: alerted again")
    }
}
