import TuyaCore
import TuyaWire

func bleDP(_ id: Int) -> DataPointID { DataPointID(id)! }

struct BLEFixedIVSource: IVSource {
    var iv: [UInt8]
    mutating func nextIV() -> [UInt8] { iv }
}

/// The TUYA.md §1.4 test key material.
enum BLEVectors {
    static let localKey = "0123456789abcdef"
    static let secKey = "fedcba9876543210"
    static let srand: [UInt8] = [1, 2, 3, 4, 5, 6]

    static func sessionKeys(secKey: String? = nil) throws -> BLEKeys {
        var keys = try BLEKeys(localKey: localKey, secKey: secKey)
        try keys.establishSession(srand: srand)
        return keys
    }
}

/// Runs `body` and returns the WireError it threw, or nil.
func bleError<T>(_ body: () throws(WireError) -> T) -> WireError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}
