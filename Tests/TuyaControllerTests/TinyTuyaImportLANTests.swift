import Testing
import TuyaCore

@testable import TuyaController

// Pure unit tests: parsing only, no I/O.
@Suite("TinyTuyaImport: LAN devices")
struct TinyTuyaImportLANTests {
    @Test("devices.json entries with an IP carry it and their version; an empty IP means no LAN address")
    func devicesJSON() throws {
        let json = """
            [{"name":"Desk","id":"bf00aa11bb22cc33dd","key":"0123456789abcdef","ip":"192.168.1.40","version":"3.4"},
             {"name":"Cloud","id":"bf00aa11bb22cc33ee","key":"0123456789abcdef","ip":"","version":"3.3"},
             {"name":"Old","id":"bf00aa11bb22cc33ff","key":"0123456789abcdef","ip":"192.168.1.41","version":3.3},
             {"name":"Quiet","id":"bf00aa11bb22cc3300","key":"0123456789abcdef","ip":"192.168.1.42","version":""}]
            """
        let entries = try TinyTuyaImport.parse(Array(json.utf8))
        #expect(entries.map(\.ip) == ["192.168.1.40", nil, "192.168.1.41", "192.168.1.42"])
        #expect(entries.map(\.version) == ["3.4", "3.3", "3.3", nil])
    }

    @Test("a snapshot.json (an object with devices, ip and ver) pairs its keyed devices")
    func snapshotJSON() throws {
        let json = """
            {"timestamp": 1700000000, "devices": [
              {"id":"bf00aa11bb22cc33dd","ip":"10.0.0.5","ver":"3.5","name":"Porch","key":"0123456789abcdef"},
              {"id":"bf00aa11bb22cc33ee","ip":"10.0.0.6","ver":"3.3","name":"Unknown","key":""}]}
            """
        let entries = try TinyTuyaImport.parse(Array(json.utf8))
        #expect(entries.count == 1)
        #expect(entries.first?.ip == "10.0.0.5" && entries.first?.version == "3.5" && entries.first?.name == "Porch")
    }

    @Test("an object that is not a snapshot, or a snapshot whose devices are not objects in a list, is refused")
    func notASnapshot() {
        for json in [#"{"devices": 5}"#, #"{"dps": []}"#, #"{"devices": [1]}"#] {
            #expect(throws: PairingError.self, "\(json)") { try TinyTuyaImport.parse(Array(json.utf8)) }
        }
    }

    @Test("a version that is no version (a huge number, an object) reads as absent: it comes from discovery")
    func oddVersions() throws {
        let json = """
            [{"id":"bf1","key":"0123456789abcdef","ip":"10.0.0.1","version":1e308},
             {"id":"bf2","key":"0123456789abcdef","ip":"10.0.0.2","version":{"v":3}}]
            """
        let entries = try TinyTuyaImport.parse(Array(json.utf8))
        #expect(entries.map(\.version) == [nil, nil])
        #expect(entries.map(\.ip) == ["10.0.0.1", "10.0.0.2"])
    }
}
