import Testing
import TuyaCore

@testable import TuyaController

// Pure unit tests: parsing only, no I/O.
@Suite("TinyTuyaImport")
struct TinyTuyaImportTests {
    @Test("a tinytuya devices.json yields id, key, name and product id; keyless entries are skipped")
    func parsesWizardOutput() throws {
        let json = """
            [{"name":"Desk","id":"bf00aa11bb22cc33dd","key":"0123456789abcdef","product_id":"keywhite","mac":"x"},
             {"name":"Hub","id":"bf99","key":""}]
            """
        let entries = try TinyTuyaImport.parse(Array(json.utf8))
        #expect(entries.count == 1)
        #expect(entries.first?.name == "Desk" && entries.first?.productID == "keywhite")
        #expect(entries.first.map { !"\($0)".contains("0123456789abcdef") } == true)
    }

    @Test("hostile files give a clear error that never shows a key, and never trap")
    func hostileInput() {
        let cases: [String] = [
            "", "{}", "[1]", "not json", "[{\"id\":5,\"key\":\"0123456789abcdef\"}]",
            "[{\"id\":\"a/b\",\"key\":\"0123456789abcdef\"}]",
            "[{\"id\":\"abc\",\"key\":\"secret-too-short\"}]".replacingOccurrences(
                of: "secret-too-short", with: "leakme"),
            "[{\"id\":\"abc\",\"key\":\"0123456789abcdef\"},{\"id\":\"abc\",\"key\":\"0123456789abcdef\"}]",
            String(repeating: "[", count: 100_000), "[\"\\ud800\"]",
        ]
        for text in cases {
            #expect(throws: PairingError.self) {
                do { _ = try TinyTuyaImport.parse(Array(text.utf8)) } catch {
                    #expect(!"\(error)".contains("leakme") && !"\(error)".contains("0123456789abcdef"))
                    throw error
                }
            }
        }
        #expect(throws: PairingError.self) { try TinyTuyaImport.parse(Array(repeating: 0x20, count: 5_000_000)) }
    }
}
