import BLELink
import Testing
import DeviceSimulator
import YoullTestSupport

@Suite("AD structures")
struct AdvertisingDataTests {
    /// A Tuya A201 advert as TUYA.md §1.2 (a) draws it: flags, the 0xA201 UUID, service data.
    static let tuyaAdvert = hexBytes("02 01 06  03 02 01A2  0C 16 01A2 00 7466767171336d67")

    @Test("flags, a 16-bit UUID list and service data are read from a Tuya advert")
    func tuyaAdvert() {
        let data = AdvertisingData(bytes: Self.tuyaAdvert)
        #expect(data.problem == nil)
        #expect(data.structures.count == 3)
        #expect(data.flags == 0x06)
        #expect(data.serviceUUIDs16 == [0xA201])
        #expect(data.hasCompleteServiceUUIDs16 == false)
        #expect(data.serviceData(uuid: 0xA201) == [0x00] + Array("tfvqq3mg".utf8))
        #expect(data.serviceData(uuid: 0xFD50) == nil)
        #expect(data.encoded == Self.tuyaAdvert)
    }

    @Test("manufacturer data is keyed by its little-endian company id, and the complete name wins")
    func manufacturerAndName() {
        let bytes =
            adStructure(0x08, Array("T".utf8)) + adStructure(0x09, Array("TY".utf8))
            + adStructure(0xFF, [0xD0, 0x07, 0x80, 0x03]) + adStructure(0xFF, [0x4C, 0x00, 0x02])
        let data = AdvertisingData(bytes: bytes)
        #expect(data.localName == "TY")
        #expect(data.isLocalNameComplete)
        #expect(data.manufacturerData(company: 0x07D0) == [0x80, 0x03])
        #expect(data.manufacturerData(company: 0x004C) == [0x02])
        #expect(data.manufacturerData.count == 2)
    }

    @Test("a shortened name is used when no complete one is sent")
    func shortenedName() {
        let data = AdvertisingData(bytes: adStructure(0x08, Array("Diff".utf8)))
        #expect(data.localName == "Diff")
        #expect(!data.isLocalNameComplete)
    }

    @Test("complete and incomplete UUID lists merge without repeats; an odd trailing byte is dropped")
    func uuidLists() {
        let bytes = adStructure(0x03, [0x50, 0xFD, 0x0F, 0x18]) + adStructure(0x02, [0x0F, 0x18, 0x10, 0x19, 0xAA])
        let data = AdvertisingData(bytes: bytes)
        #expect(data.serviceUUIDs16 == [0xFD50, 0x180F, 0x1910])
        #expect(data.hasCompleteServiceUUIDs16)
    }

    @Test("a zero length byte ends the data early and what follows is padding, not a problem")
    func zeroLengthTerminates() {
        let data = AdvertisingData(bytes: hexBytes("02 01 06 00 FF FF FF 05"))
        #expect(data.structures == [ADStructure(type: 0x01, value: [0x06])])
        #expect(data.problem == nil)
    }

    @Test("a structure running past the end keeps the structures before it and says where it broke")
    func overrun() {
        let data = AdvertisingData(bytes: hexBytes("02 01 06  09 09 5459"))
        #expect(data.structures == [ADStructure(type: 0x01, value: [0x06])])
        #expect(data.problem == .structureOverrunsData(offset: 3, length: 9, available: 3))
        #expect(data.problem?.description == "AD structure at byte 3 claims 9 bytes but only 3 follow")
        #expect(data.localName == nil)
    }

    @Test("a lone length byte at the end is a truncated structure")
    func loneLengthByte() {
        let data = AdvertisingData(bytes: hexBytes("02 01 06 03"))
        #expect(data.flags == 0x06)
        #expect(data.problem == .structureOverrunsData(offset: 3, length: 3, available: 0))
    }

    @Test("values too short for their type are skipped, not guessed")
    func shortValues() {
        let bytes = adStructure(0x16, [0x01]) + adStructure(0xFF, []) + adStructure(0x01, [])
        let data = AdvertisingData(bytes: bytes)
        #expect(data.structures.count == 3)
        #expect(data.serviceData16.isEmpty)
        #expect(data.manufacturerData.isEmpty)
        #expect(data.flags == nil)
    }

    @Test("control characters and invalid UTF-8 in a name become U+FFFD, so a name cannot drive a terminal")
    func hostileName() {
        let data = AdvertisingData(bytes: adStructure(0x09, [0x1B, 0x5B, 0x32, 0x4A, 0xFF, 0x41]))
        #expect(data.localName == "\u{FFFD}[2J\u{FFFD}A")
    }

    @Test("an advert merged with its scan response prefers the advert's values and keeps both")
    func merge() {
        let advert = AdvertisingData(bytes: adStructure(0x09, Array("ADV".utf8)))
        let response = AdvertisingData(
            bytes: adStructure(0x09, Array("RSP".utf8)) + adStructure(0xFF, [0xD0, 0x07, 0x01]))
        let merged = advert.merged(with: response)
        #expect(merged.localName == "ADV")
        #expect(merged.manufacturerData(company: 0x07D0) == [0x01])
    }

    @Test("ten thousand random and mutated AD byte strings never trap, and whole structures re-encode to the input")
    func fuzz() {
        var generator = SeededGenerator(seed: 0xAD)
        var problems = 0
        for _ in 0..<10_000 {
            let bytes = generator.mutate(Self.tuyaAdvert)
            let data = AdvertisingData(bytes: bytes)
            _ = (data.flags, data.serviceUUIDs16, data.serviceData16, data.manufacturerData, data.localName)
            if data.problem != nil { problems += 1 }
            let encoded = data.encoded
            #expect(Array(bytes.prefix(encoded.count)) == encoded)
            #expect(AdvertisingData(bytes: encoded).structures == data.structures)
        }
        #expect(problems > 0)
    }
}
