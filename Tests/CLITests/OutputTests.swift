import Foundation
import Gateway
import Testing
import TuyaCore

@testable import youll_devices

/// Pure: tables, key/value lists, colour decisions and monitor lines.
@Suite("CLI output")
struct OutputTests {
    let plain = Terminal(usesColour: false)
    let colour = Terminal(usesColour: true)

    @Test("table columns line up whatever the cell widths, with no trailing spaces")
    func alignment() {
        var table = TextTable(headers: ["NAME", "ID", "AVAILABILITY"])
        table.append(["desk lamp", "bf01", "online"])
        table.append(["x", "bf0000000000000002", "offline"])
        let lines = table.render(on: plain)
        #expect(
            lines == [
                "NAME       ID                  AVAILABILITY",
                "desk lamp  bf01                online",
                "x          bf0000000000000002  offline",
            ])
        #expect(lines.allSatisfy { !$0.hasSuffix(" ") })
    }

    @Test("colour never shifts a column: without the escapes the coloured table equals the plain one")
    func colourKeepsAlignment() {
        var table = TextTable(headers: ["NAME", "AVAILABILITY", "ID"])
        table.colour = { column, text in column == 1 ? Terminal.colour(forStatus: text) : nil }
        table.append(["lamp", "online", "bf01"])
        table.append(["diffuser", "offline", "bf02"])
        let coloured = table.render(on: colour)
        #expect(coloured[1].contains("\u{1B}[32monline\u{1B}[0m"))
        #expect(coloured[2].contains("\u{1B}[31moffline\u{1B}[0m"))
        #expect(coloured.map(withoutEscapes) == table.render(on: plain))
    }

    @Test("devices: an offline device shows the daemon's reason, still coloured as offline")
    func offlineReason() throws {
        let lamp = try #require(
            BridgeDevice(.object(["id": .string("bf01"), "friendly_name": .string("lamp"), "profile": .string("x")])))
        let table = DevicesCommand.table([lamp], availability: ["lamp": "offline (profile_not_loaded)"])
        let row = table.render(on: colour)[1]
        #expect(row.contains("\u{1B}[31moffline (profile_not_loaded)\u{1B}[0m"), "\(row)")
        let joined = DevicesCommand.table(
            [lamp], availability: ["lamp": "offline"], reasons: ["lamp": "profile_not_loaded"])
        #expect(joined.render(on: colour) == table.render(on: colour), "state and reason apart, joined in the table")
    }

    @Test("no colour when standard output is not a terminal, when NO_COLOR is set, or TERM is dumb")
    func colourDecision() {
        #expect(Terminal(environment: [:], standardOutputIsTerminal: true).usesColour)
        #expect(!Terminal(environment: [:], standardOutputIsTerminal: false).usesColour)
        #expect(!Terminal(environment: ["NO_COLOR": "1"], standardOutputIsTerminal: true).usesColour)
        #expect(Terminal(environment: ["NO_COLOR": ""], standardOutputIsTerminal: true).usesColour)
        #expect(!Terminal(environment: ["TERM": "dumb"], standardOutputIsTerminal: true).usesColour)
        var table = TextTable(headers: ["A"])
        table.append(["online"])
        #expect(table.render(on: plain).allSatisfy { !$0.contains("\u{1B}") })
    }

    @Test("a device name carrying terminal escapes is printed inert")
    func hostileCell() {
        var table = TextTable(headers: ["NAME"])
        table.append(["evil\u{1B}[2J\nname"])
        let lines = table.render(on: plain)
        #expect(lines.count == 2)
        #expect(!lines[1].contains("\u{1B}"))
    }

    @Test("cells are cut at 80 characters, except the last column's, which keeps a whole reason")
    func longCells() {
        var table = TextTable(headers: ["NAME", "RESULT"])
        let reason = "failed: the device answered but the local key does not decrypt its frames; check the local key"
        table.append([String(repeating: "n", count: 100), reason])
        let row = table.render(on: plain)[1]
        #expect(row == String(repeating: "n", count: 80) + "…  " + reason)
    }

    @Test("a device state prints as sorted key/value lines with nested values as JSON")
    func stateLines() {
        let state: JSONValue = .object([
            "state": .string("ON"), "brightness": .integer(40),
            "color": .object(["hue": .integer(30), "saturation": .integer(80)]),
        ])
        #expect(
            stateList(state).render(on: plain) == [
                "brightness  40",
                #"color       {"hue":30,"saturation":80}"#,
                "state       ON",
            ])
    }

    @Test("monitor lines name the device and what changed; JSON lines carry the topic and the payload")
    func monitorLines() {
        let date = Date(timeIntervalSince1970: 1_700_000_000.25)
        let event = BridgeMessage(
            topic: "youll/bridge/event", payload: Array(#"{"type":"device_found","data":{"id":"bf01"}}"#.utf8),
            retained: false)
        let human = MonitorLine.human(event, baseTopic: "youll", at: date, terminal: plain)
        #expect(human.hasSuffix(#"bridge            device_found    {"id":"bf01"}"#))
        let availability = BridgeMessage(
            topic: "youll/lamp/availability", payload: Array(#"{"state":"offline"}"#.utf8), retained: false)
        #expect(
            MonitorLine.human(availability, baseTopic: "youll", at: date, terminal: plain).hasSuffix(
                "lamp              availability    offline"))
        let json = MonitorLine.json(
            BridgeMessage(topic: "youll/lamp", payload: Array("not json".utf8), retained: false), at: date)
        #expect(
            json
                == .object([
                    "time": .string("2023-11-14T22:13:20.250Z"), "topic": .string("youll/lamp"),
                    "payload": .string("not json"),
                ]))
    }

    @Test(
        "monitor prints a state change as what changed, a cleared topic as cleared, a maintenance alert in the columns")
    func monitorChanges() {
        let date = Date(timeIntervalSince1970: 1_700_000_000.25)
        func message(_ topic: String, _ text: String, retained: Bool = false) -> BridgeMessage {
            BridgeMessage(topic: topic, payload: Array(text.utf8), retained: retained)
        }
        var states = MonitorState()
        let first = message("youll/lamp", #"{"brightness":40,"color_temp":2700,"state":"ON"}"#, retained: true)
        #expect(states.changes(first) == nil, "the first state is the baseline")
        let dimmer = message("youll/lamp", #"{"brightness":25,"color_temp":2700,"state":"ON"}"#)
        let changes = states.changes(dimmer)
        #expect(changes == .object(["brightness": .integer(25)]))
        #expect(
            MonitorLine.human(dimmer, baseTopic: "youll", at: date, terminal: plain, changes: changes).hasSuffix(
                #"lamp              state           {"brightness":25}"#))

        let cleared = MonitorLine.human(message("youll/old", ""), baseTopic: "youll", at: date, terminal: plain)
        #expect(cleared.hasSuffix("old               cleared         the retained value was removed"), "\(cleared)")

        let alert = message(
            "youll/bridge/event",
            #"{"type":"maintenance_alert","data":{"alert":{"device":"bf01","friendly_name":"aroma","type":"refill","state":"due","title":"Refill the water tank","deeplink":"youll://tuya/maintenance?type=refill&device=bf01"}}}"#
        )
        #expect(
            MonitorLine.human(alert, baseTopic: "youll", at: date, terminal: plain).hasSuffix(
                "aroma             maintenance     refill due: Refill the water tank  youll://tuya/maintenance?type=refill&device=bf01"
            ))
    }

    /// `line` without its SGR colour sequences (ESC [ … m).
    func withoutEscapes(_ line: String) -> String {
        var out = ""
        var inEscape = false
        for character in line {
            if character == "\u{1B}" {
                inEscape = true
            } else if inEscape {
                if character == "m" { inEscape = false }
            } else {
                out.append(character)
            }
        }
        return out
    }
}
