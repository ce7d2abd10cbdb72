import Testing
import TuyaCore

@testable import youll_devices

/// Pure: `set DEVICE key=value…` arguments into the JSON object sent on `/set`.
@Suite("set key=value parsing")
struct SetAssignmentsTests {
    func parse(_ arguments: String...) throws -> [String: JSONValue] {
        try SetAssignments.parse(arguments)
    }

    func failure(_ arguments: String...) -> String? {
        do {
            _ = try SetAssignments.parse(arguments)
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test("numbers, booleans, null and words become JSON of the right type")
    func scalars() throws {
        #expect(
            try parse(
                "brightness=40", "state=ON", "ratio=0.5", "offset=-3", "big=1e3", "on=true", "off=false", "scene=null")
                == [
                    "brightness": .integer(40), "state": .string("ON"), "ratio": .double(0.5), "offset": .integer(-3),
                    "big": .double(1000), "on": .bool(true), "off": .bool(false), "scene": .null,
                ])
    }

    @Test("text that only looks numeric, like nan, inf or 0x10, stays text")
    func notNumbers() throws {
        #expect(
            try parse("a=nan", "b=inf", "c=0x10", "d=1.2.3", "e=-") == [
                "a": .string("nan"), "b": .string("inf"), "c": .string("0x10"), "d": .string("1.2.3"),
                "e": .string("-"),
            ])
    }

    @Test("colour in the short form and as JSON give the same object")
    func colour() throws {
        let expected: JSONValue = .object(["hue": .integer(30), "saturation": .integer(80)])
        #expect(try parse("color=hue:30,saturation:80") == ["color": expected])
        #expect(try parse(#"color={"hue":30,"saturation":80}"#) == ["color": expected])
        #expect(try parse("color=hue: 30, saturation: 80") == ["color": expected])
    }

    @Test("a value with colons that is not a key:number list stays text")
    func colonText() throws {
        #expect(try parse("scene=night:party") == ["scene": .string("night:party")])
        #expect(try parse("timer=12:30") == ["timer": .string("12:30")])
        #expect(try parse("url=http://x") == ["url": .string("http://x")])
    }

    @Test("raw JSON values are taken as they are, and a value may contain =")
    func rawJSON() throws {
        #expect(try parse(#"name="a=b""#) == ["name": .string("a=b")])
        #expect(try parse("list=[1,2]") == ["list": .array([.integer(1), .integer(2)])])
        #expect(try parse("label=a=b") == ["label": .string("a=b")])
    }

    @Test("bad input is refused with an error naming the argument")
    func errors() {
        #expect(failure()?.contains("nothing to set") == true)
        #expect(failure("brightness")?.contains(#""brightness": expected key=value"#) == true)
        #expect(failure("=40")?.contains(#""=40": the key before ="#) == true)
        #expect(failure("brightness=")?.contains(#""brightness=": no value after ="#) == true)
        #expect(failure("brightness=40", "brightness=50")?.contains("brightness is given twice") == true)
        #expect(failure(#"color={"hue":30"#)?.contains(#""color={"hue":30": the value is not valid JSON"#) == true)
        #expect(failure("a b=1")?.contains("the key before =") == true)
    }

    @Test("an escape sequence in a bad argument is not echoed raw")
    func hostileArgument() {
        let message = failure("\u{1B}[2J") ?? ""
        #expect(!message.isEmpty)
        #expect(!message.contains("\u{1B}"))
    }
}
