import Foundation
import Testing

@testable import Gateway

/// Pure: the text table and the JSON array.
@Suite("doctor output")
struct DoctorReportTests {
    let checks: [DoctorCheck] = [
        .ok("broker", "mqtt://127.0.0.1:1883 reachable, authorised"),
        .warn("daemon", "the daemon is not running", fix: "start it"),
        .fail("profiles", "no device profiles", fix: "install them"),
        .warn("state", "will be created on first start", fix: nil),
    ]

    @Test("columns line up and each fix sits under its detail")
    func aligned() {
        let text = DoctorReport.text(checks, colour: false)
        #expect(
            text == """
                ok    broker    mqtt://127.0.0.1:1883 reachable, authorised
                warn  daemon    the daemon is not running
                                fix: start it
                fail  profiles  no device profiles
                                fix: install them
                warn  state     will be created on first start

                """)
    }

    @Test("colour wraps only the status word, so the columns stay where they were")
    func coloured() {
        let plain = DoctorReport.text(checks, colour: false)
        let coloured = DoctorReport.text(checks, colour: true)
        #expect(coloured.contains("\u{1B}[31mfail\u{1B}[0m  profiles"))
        #expect(coloured.contains("\u{1B}[32mok\u{1B}[0m    broker"))
        let stripped = coloured.replacing(/\x{1B}\[[0-9]+m/, with: "")
        #expect(stripped == plain)
        #expect(!plain.contains("\u{1B}"))
    }

    @Test("JSON is an array of objects with the same four keys, fix null when there is none")
    func json() throws {
        let text = DoctorReport.json(checks)
        // One compact line, like every command's --json.
        #expect(text.filter { $0 == "\n" }.count == 1 && text.hasSuffix("\n"))
        let data = Data(text.utf8)
        let array = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        #expect(array.count == 4)
        for object in array { #expect(Set(object.keys) == ["check", "status", "detail", "fix"]) }
        #expect(array[1]["check"] as? String == "daemon")
        #expect(array[1]["status"] as? String == "warn")
        #expect(array[1]["fix"] as? String == "start it")
        #expect(array[0]["fix"] is NSNull)
    }

    @Test("the summary names the failed checks, and there is none when nothing failed")
    func summary() {
        #expect(
            DoctorReport.failureSummary(checks) == "doctor: 1 check failed (profiles); see the fix lines above")
        #expect(DoctorReport.failureSummary(Array(checks.prefix(2))) == nil)
    }
}
