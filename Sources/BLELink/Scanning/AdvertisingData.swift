/// One AD structure of an advertisement or scan response (Core Specification Vol 3 Part C
/// §11): a length byte, then `length` bytes of which the first is the AD type and the rest
/// its value.
public struct ADStructure: Hashable, Sendable {
    /// The AD type (`ADType`).
    public var type: UInt8
    /// The bytes after the type.
    public var value: [UInt8]

    public init(type: UInt8, value: [UInt8]) {
        self.type = type
        self.value = value
    }
}

/// The AD types this project reads (Bluetooth Assigned Numbers, "Common Data Types").
public enum ADType {
    public static let flags: UInt8 = 0x01
    public static let incompleteServiceUUIDs16: UInt8 = 0x02
    public static let completeServiceUUIDs16: UInt8 = 0x03
    public static let shortenedLocalName: UInt8 = 0x08
    public static let completeLocalName: UInt8 = 0x09
    public static let serviceData16: UInt8 = 0x16
    public static let manufacturerData: UInt8 = 0xFF
}

/// Why parsing stopped before the end of the bytes. The structures before that point are kept.
public enum ADParseProblem: Hashable, Sendable, CustomStringConvertible {
    /// The structure at `offset` says it is `length` bytes long but only `available` follow
    /// its length byte.
    case structureOverrunsData(offset: Int, length: Int, available: Int)

    public var description: String {
        switch self {
        case .structureOverrunsData(let offset, let length, let available):
            "AD structure at byte \(offset) claims \(length) bytes but only \(available) follow"
        }
    }
}

/// The AD structures of one advertisement or scan response, with typed accessors.
///
/// Adverts come from any radio in range and are hostile input. Parsing never fails and never
/// traps: it keeps every structure that is whole, and when a structure's length runs past the
/// end it stops there and records why in `problem`. A zero length byte ends the data early, as
/// the Core Specification allows (Vol 3 Part C §11: "only to allow an early termination"); the
/// bytes after it are padding, not a problem. Accessors skip values that are too short for
/// their type (an odd byte in a UUID list, service data without its UUID) instead of guessing.
public struct AdvertisingData: Hashable, Sendable {
    /// The whole structures, in the order they were sent.
    public var structures: [ADStructure]
    /// Set when the bytes ended inside a structure; nil for well-formed data.
    public var problem: ADParseProblem?

    public init(structures: [ADStructure] = [], problem: ADParseProblem? = nil) {
        self.structures = structures
        self.problem = problem
    }

    /// Parses raw AD bytes (the data of one advertising report).
    public init(bytes: some Collection<UInt8>) {
        let bytes = Array(bytes)
        var structures: [ADStructure] = []
        var problem: ADParseProblem?
        var offset = 0
        while offset < bytes.count {
            let length = Int(bytes[offset])
            if length == 0 { break }
            let available = bytes.count - offset - 1
            guard length <= available else {
                problem = .structureOverrunsData(offset: offset, length: length, available: available)
                break
            }
            structures.append(
                ADStructure(type: bytes[offset + 1], value: Array(bytes[(offset + 2)..<(offset + 1 + length)])))
            offset += 1 + length
        }
        self.init(structures: structures, problem: problem)
    }

    /// The bytes that parse back to `structures` (values longer than 254 bytes cannot be sent
    /// and are cut, so that the length byte stays true).
    public var encoded: [UInt8] {
        structures.flatMap { structure -> [UInt8] in
            let value = structure.value.prefix(254)
            return [UInt8(value.count + 1), structure.type] + value
        }
    }

    /// The values of every structure of `type`, in order.
    public func values(ofType type: UInt8) -> [[UInt8]] {
        structures.filter { $0.type == type }.map(\.value)
    }

    /// The Flags byte (LE General Discoverable = 0x02, BR/EDR not supported = 0x04, …).
    public var flags: UInt8? {
        values(ofType: ADType.flags).first { !$0.isEmpty }?.first
    }

    /// 16-bit service UUIDs from the complete and the incomplete lists, in order, without
    /// repeats. A trailing odd byte is ignored.
    public var serviceUUIDs16: [UInt16] {
        var uuids: [UInt16] = []
        for structure in structures
        where structure.type == ADType.completeServiceUUIDs16 || structure.type == ADType.incompleteServiceUUIDs16 {
            for uuid in Self.littleEndian16s(structure.value) where !uuids.contains(uuid) {
                uuids.append(uuid)
            }
        }
        return uuids
    }

    /// Whether the advertiser said its 16-bit UUID list is complete (type 0x03).
    public var hasCompleteServiceUUIDs16: Bool {
        structures.contains { $0.type == ADType.completeServiceUUIDs16 }
    }

    /// The service data for a 16-bit UUID (bytes after the UUID), from its first structure.
    public func serviceData(uuid: UInt16) -> [UInt8]? {
        serviceData16[uuid]
    }

    /// All 16-bit service data by UUID; when a UUID repeats, the first structure wins.
    public var serviceData16: [UInt16: [UInt8]] {
        keyedByLeadingUInt16(ADType.serviceData16)
    }

    /// The manufacturer-specific data for a company id (bytes after the id), from its first
    /// structure.
    public func manufacturerData(company: UInt16) -> [UInt8]? {
        manufacturerData[company]
    }

    /// All manufacturer-specific data by company id; when a company repeats, the first wins.
    public var manufacturerData: [UInt16: [UInt8]] {
        keyedByLeadingUInt16(ADType.manufacturerData)
    }

    /// The complete local name if sent, else the shortened one. Invalid UTF-8 and control
    /// characters become U+FFFD, so a name from the radio cannot drive a terminal.
    public var localName: String? {
        (values(ofType: ADType.completeLocalName).first ?? values(ofType: ADType.shortenedLocalName).first)
            .map(Self.printableText)
    }

    /// Whether `localName` is the complete name (type 0x09) rather than a shortened one.
    public var isLocalNameComplete: Bool {
        structures.contains { $0.type == ADType.completeLocalName }
    }

    /// This data followed by `other`'s structures, as one device's advert plus its scan
    /// response. Accessors that take the first match then prefer this data's values.
    public func merged(with other: AdvertisingData) -> AdvertisingData {
        AdvertisingData(structures: structures + other.structures, problem: problem ?? other.problem)
    }

    private func keyedByLeadingUInt16(_ type: UInt8) -> [UInt16: [UInt8]] {
        var result: [UInt16: [UInt8]] = [:]
        for value in values(ofType: type) where value.count >= 2 {
            let key = UInt16(value[0]) | UInt16(value[1]) << 8
            if result[key] == nil { result[key] = Array(value[2...]) }
        }
        return result
    }

    /// AD values are little-endian (Core Specification Vol 3 Part C §11).
    static func littleEndian16s(_ bytes: [UInt8]) -> [UInt16] {
        stride(from: 0, to: bytes.count - 1, by: 2).map { UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8 }
    }

    static func printableText(_ bytes: [UInt8]) -> String {
        let decoded = String(decoding: bytes, as: UTF8.self)
        var scalars = String.UnicodeScalarView()
        for scalar in decoded.unicodeScalars {
            let isControl = scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
            scalars.append(isControl ? "\u{FFFD}" : scalar)
        }
        return String(scalars)
    }
}
