import Testing
import TuyaCore

@Suite("DataPointID")
struct DataPointIDTests {
    @Test("a JSON key of one to three plain decimal digits naming 1...255 is a data point id")
    func validKeys() {
        #expect(DataPointID(jsonKey: "1")?.rawValue == 1)
        #expect(DataPointID(jsonKey: "20")?.rawValue == 20)
        #expect(DataPointID(jsonKey: "255")?.rawValue == 255)
        #expect(DataPointID(jsonKey: "020")?.rawValue == 20)
    }

    @Test(
        "anything else from a device's JSON is refused: empty, zero, out of range, signs, spaces, non-ASCII digits",
        arguments: ["", "0", "000", "256", "999", "1000", "0020", "+1", "-1", " 1", "1 ", "1a", "٢", "１", "2\u{301}"])
    func hostileKeys(_ key: String) {
        #expect(DataPointID(jsonKey: key) == nil, "\(key.unicodeScalars.map { $0.value })")
    }
}
