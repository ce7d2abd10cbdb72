import Foundation
import Testing
import YoullTestSupport

/// The rules in `udev/`, checked with `UdevRuleParser` because `udevadm verify` is not on the
/// build machines.
@Suite("udev rules")
struct UdevRulesTests {
    static let repository = Repository.root

    static func ruleFiles() throws -> [URL] {
        let folder = repository.appendingPathComponent("udev")
        return try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "rules" }.sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    static func rules(_ name: String) throws -> [UdevRuleParser.Rule] {
        let text = try String(contentsOf: repository.appendingPathComponent("udev/\(name)"), encoding: .utf8)
        return try UdevRuleParser.parse(file: text)
    }

    @Test("every line of every rules file in udev/ parses")
    func everyFileParses() throws {
        let files = try Self.ruleFiles()
        #expect(!files.isEmpty)
        for file in files {
            #expect(
                file.lastPathComponent.range(of: #"^[0-9]{2}-[a-z0-9-]+\.rules$"#, options: .regularExpression) != nil)
            let text = try String(contentsOf: file, encoding: .utf8)
            do {
                let rules = try UdevRuleParser.parse(file: text)
                #expect(!rules.isEmpty, "\(file.lastPathComponent) has no rules")
            } catch {
                Issue.record("\(file.lastPathComponent) \(error)")
            }
        }
    }

    @Test("Bluetooth adapters, not their connections, are tagged for systemd and want the service that exists")
    func adaptersWantTheService() throws {
        let rules = try Self.rules("70-youll-devices-bluetooth.rules")
        let wanting = rules.filter { rule in
            rule.tokens.contains { $0.key == "ENV" && $0.attribute == "SYSTEMD_WANTS" }
        }
        #expect(wanting.count == 1)
        let tokens = try #require(wanting.first).tokens
        let match = { (key: String, attribute: String?) in
            tokens.first { $0.key == key && $0.attribute == attribute && $0.op == .match }?.value
        }
        #expect(match("SUBSYSTEM", nil) == "bluetooth")
        #expect(match("ENV", "DEVTYPE") == "host")
        #expect(tokens.contains(UdevRuleParser.Token(key: "TAG", op: .add, value: "systemd")))
        let unit = try #require(tokens.first { $0.attribute == "SYSTEMD_WANTS" })
        #expect(unit.op == .add, "+= keeps systemd's own bluetooth.target want")
        let unitFile = Self.repository.appendingPathComponent("scripts/systemd/\(unit.value)")
        #expect(
            FileManager.default.fileExists(atPath: unitFile.path), "\(unit.value) is not a unit this project installs")
    }

    @Test("every dongle named in the rules is listed in udev/README.md, with its USB id")
    func donglesDocumented() throws {
        let rules = try Self.rules("70-youll-devices-bluetooth.rules")
        let readme = try String(contentsOf: Self.repository.appendingPathComponent("udev/README.md"), encoding: .utf8)
        var count = 0
        for rule in rules {
            guard let name = rule.tokens.first(where: { $0.attribute == "YOULL_BLE_DONGLE" && $0.op == .assign }),
                let vendor = rule.tokens.first(where: { $0.attribute == "idVendor" })?.value,
                let product = rule.tokens.first(where: { $0.attribute == "idProduct" })?.value
            else { continue }
            count += 1
            #expect(
                name.value.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "_" },
                "\(name.value) is not unit-name safe")
            #expect(readme.contains("| `\(name.value)` | \(vendor):\(product) |"), "\(name.value) missing from README")
        }
        #expect(count >= 3)
    }

    @Test("comments, blank lines, continuation lines, every operator, attributes and escapes parse")
    func grammar() throws {
        let text = """
            # a comment

              # an indented comment
            ACTION=="add", KERNEL!="hci*", ENV{A}="1", ENV{B}+="2", TAG-="x", ENV{C}:="3", \\
              ATTRS{idVendor}=="0a12", SYMLINK += "spaced", ENV{D}="say \\"hi\\" \\\\ ok"
            ENV{E}=e"tab\\there",
            LABEL="end"
            """
        let rules = try UdevRuleParser.parse(file: text)
        #expect(rules.map(\.line) == [4, 6, 7])
        #expect(
            rules[0].tokens.map(\.op) == [
                .match, .notMatch, .assign, .add, .remove, .assignFinal, .match, .add, .assign,
            ])
        #expect(
            rules[0].tokens[6] == UdevRuleParser.Token(key: "ATTRS", attribute: "idVendor", op: .match, value: "0a12"))
        #expect(rules[0].tokens[8].value == #"say "hi" \ ok"#)
        #expect(rules[1].tokens[0].value == "tab\there")
    }

    @Test(
        "broken lines are refused with the reason",
        arguments: [
            (#"FOO=="bar""#, "unknown key FOO at column 4"),
            (#"KERNEL="hci0""#, "KERNEL does not take an assignment operator (=) at column 8"),
            (#"ATTRS{idVendor}="0a12""#, "ATTRS does not take an assignment operator (=) at column 17"),
            (#"OWNER=="root""#, "OWNER does not take a match operator (==) at column 8"),
            (#"TAG=="systemd""#, "TAG does not take a match operator (==) at column 6"),
            (#"GOTO+="end""#, "GOTO does not take an assignment operator (+=) at column 7"),
            (#"ENV{X}-="y""#, "ENV does not take an assignment operator (-=) at column 9"),
            (#"ENV{X}=~"y""#, "expected a value in double quotes at column 8"),
            (#"KERNEL "hci0""#, "expected an operator after KERNEL at column 8"),
            (#"KERNEL=="hci0"#, "unbalanced quote: the value never closes at column 14"),
            (#"KERNEL==hci0"#, "expected a value in double quotes at column 9"),
            (#"KERNEL=="a" SUBSYSTEM=="b""#, "expected a comma before the next key at column 13"),
            (#"ENV=="x""#, "ENV needs an {attribute} at column 4"),
            (#"KERNEL{x}=="y""#, "KERNEL takes no {attribute} at column 10"),
            (#"ENV{X=="y""#, "unclosed { after ENV at column 8"),
            (
                #"IMPORT{shell}="x""#,
                "IMPORT{shell} is not one of builtin, cmdline, db, file, parent, program at column 14"
            ),
            (#"KERNEL=="a", # trailing comment"#, "expected a key at column 14"),
            (#"KERNEL=="a\""#, "unbalanced quote: the value never closes at column 13"),
            (#","#, "expected a key at column 1"),
        ])
    func brokenLine(line: String, message: String) {
        do {
            let rules = try UdevRuleParser.parse(file: line)
            Issue.record("accepted \(rules)")
        } catch {
            #expect(error == UdevRuleParser.Failure(line: 1, message: message))
        }
    }

    @Test("file-level mistakes are refused: a GOTO without its LABEL, a file ending mid-continuation")
    func brokenFiles() {
        #expect(throws: UdevRuleParser.Failure(line: 2, message: "GOTO \"end\" has no LABEL after it")) {
            try UdevRuleParser.parse(file: "LABEL=\"end\"\nGOTO=\"end\"\n")
        }
        #expect(throws: UdevRuleParser.Failure(line: 1, message: "the file ends inside a continued line")) {
            try UdevRuleParser.parse(file: "KERNEL==\"a\", \\")
        }
    }
}
