/// Parsing of `data_points:`: one `DataPointSpec` per entry, with per-type keys checked.
extension ProfileLoader {
    static let dataPointKeys = [
        "id", "code", "type", "min", "max", "step", "scale", "values", "labels", "format", "default", "unit",
        "access",
    ]

    static func dataPointList(_ node: ProfileNode) throws(ProfileError) -> [DataPointSpec] {
        let items = try node.list()
        guard !items.isEmpty else { throw node.error("list at least one data point") }
        var specs: [DataPointSpec] = []
        var indexByID: [DataPointID: Int] = [:]
        var indexByCode: [String: Int] = [:]
        for (index, item) in items.enumerated() {
            let spec = try dataPoint(item)
            let entries = try item.mapping(allowed: dataPointKeys)
            if let earlier = indexByID[spec.id] {
                throw try entries.required("id").error(
                    "duplicate DP id \(spec.id.intValue) (also at \(node.path)[\(earlier)])")
            }
            if let earlier = indexByCode[spec.code] {
                throw try entries.required("code").error(
                    "duplicate DP code '\(spec.code)' (also at \(node.path)[\(earlier)])")
            }
            indexByID[spec.id] = index
            indexByCode[spec.code] = index
            specs.append(spec)
        }
        return specs
    }

    static func dataPoint(_ node: ProfileNode) throws(ProfileError) -> DataPointSpec {
        let entries = try node.mapping(allowed: dataPointKeys)
        let idNode = try entries.required("id")
        guard let id = DataPointID(try idNode.int()) else {
            throw idNode.error("DP id \(try idNode.int()) is outside 1...255")
        }
        let codeNode = try entries.required("code")
        let code = try codeNode.string()
        guard isWord(code, first: isCodeCharacter, rest: isCodeCharacter, maxLength: 64) else {
            throw codeNode.error("DP code '\(code.prefix(70))' must be 1-64 ASCII letters, digits and '_'")
        }
        let typeNode = try entries.required("type")
        let typeName = try typeNode.choice(DataPointType.allCases.map(\.name), what: "DP type")
        let type = DataPointType(name: typeName) ?? .raw

        try refuse(["min", "max", "step", "scale"], in: entries, unless: type == .value, typeName: typeName)
        try refuse(["values", "labels"], in: entries, unless: type == .enumeration, typeName: typeName)
        try refuse(["format"], in: entries, unless: type == .string, typeName: typeName)

        var spec = DataPointSpec(id: id, code: code, type: type)
        switch type {
        case .value:
            try readNumeric(entries, into: &spec)
        case .enumeration:
            spec.values = try enumValues(entries.required("values"))
            if let labelsNode = entries.optional("labels") {
                spec.labels = try enumLabels(labelsNode, count: spec.values.count)
            }
        case .string:
            if let formatNode = entries.optional("format") {
                let name = try formatNode.choice(ColourFormat.allCases.map(\.rawValue), what: "colour format")
                spec.colourFormat = ColourFormat(rawValue: name)
            }
        case .raw, .bool, .bitmap:
            break
        }
        if let defaultNode = entries.optional("default") {
            spec.defaultValue = try defaultValue(defaultNode, for: spec)
        }
        spec.unit = try entries.optional("unit").map { node throws(ProfileError) in try nonEmptyString(node) }
        if let accessNode = entries.optional("access") {
            let name = try accessNode.choice(DataPointSpec.Access.allCases.map(\.rawValue), what: "access")
            spec.access = DataPointSpec.Access(rawValue: name) ?? .readWrite
        }
        return spec
    }

    /// A value DP's `min`, `max` (both required), `step` and `scale`.
    private static func readNumeric(_ entries: ProfileMapping, into spec: inout DataPointSpec) throws(ProfileError) {
        let minNode = try entries.required("min")
        let maxNode = try entries.required("max")
        let low = try minNode.int(in: Int(Int32.min)...Int(Int32.max), what: "min")
        let high = try maxNode.int(in: Int(Int32.min)...Int(Int32.max), what: "max")
        guard low <= high else {
            throw maxNode.error("max \(high) is below min \(low); swap them")
        }
        spec.range = Int32(low)...Int32(high)
        if let stepNode = entries.optional("step") {
            let step = try stepNode.int()
            guard step > 0, step <= Int(Int32.max) else {
                throw stepNode.error("step must be at least 1, found \(step)")
            }
            spec.step = Int32(step)
        }
        spec.scale = try entries.optional("scale")?.int(in: 0...9, what: "scale") ?? 0
    }

    private static func refuse(
        _ keys: [String], in entries: ProfileMapping, unless allowed: Bool, typeName: String
    ) throws(ProfileError) {
        guard !allowed else { return }
        for key in keys {
            if let node = entries.optional(key) {
                throw node.error("'\(key)' does not apply to a \(typeName) DP")
            }
        }
    }

    private static func enumValues(_ node: ProfileNode) throws(ProfileError) -> [String] {
        let items = try node.list()
        guard !items.isEmpty else { throw node.error("an enum DP needs at least one value") }
        var values: [String] = []
        for item in items {
            let value = try item.string()
            guard !value.isEmpty else { throw item.error("enum values must not be empty") }
            if let earlier = values.firstIndex(of: value) {
                throw item.error("duplicate enum value '\(value.prefix(40))' (also at \(node.path)[\(earlier)])")
            }
            values.append(value)
        }
        return values
    }

    /// `labels:`: one per value, distinct, short, and plain enough to sit inside a Home
    /// Assistant template literal (letters, digits, space and `-_.:+%/`).
    private static func enumLabels(_ node: ProfileNode, count: Int) throws(ProfileError) -> [String] {
        let items = try node.list()
        guard items.count == count else {
            throw node.error("list one label per value: \(count) values, \(items.count) labels")
        }
        var labels: [String] = []
        for item in items {
            let label = try item.string()
            let allowed = label.unicodeScalars.allSatisfy {
                ($0.properties.isAlphabetic || $0.properties.numericType != nil
                    || " -_.:+%/".unicodeScalars.contains($0))
            }
            guard !label.isEmpty, label.count <= 32, allowed, label.first != " ", label.last != " " else {
                throw item.error(
                    "label '\(label.prefix(40))' must be 1-32 letters, digits, inner spaces or -_.:+%/")
            }
            if let earlier = labels.firstIndex(of: label) {
                throw item.error("duplicate label '\(label)' (also at \(node.path)[\(earlier)])")
            }
            labels.append(label)
        }
        return labels
    }

    /// Checks `default:` against the DP's type, range and enum list.
    private static func defaultValue(_ node: ProfileNode, for spec: DataPointSpec) throws(ProfileError) -> DPValue {
        switch spec.type {
        case .bool:
            return .bool(try node.bool())
        case .value:
            let value = try node.int()
            guard let range = spec.range, let raw = Int32(exactly: value), range.contains(raw) else {
                let bounds = spec.range.map { "\($0.lowerBound)...\($0.upperBound)" } ?? "the DP's range"
                throw node.error("default \(value) is outside \(bounds)")
            }
            return .value(raw)
        case .string:
            let text = try node.string()
            if let format = spec.colourFormat {
                let digits = format == .hsv16 ? 12 : 14
                guard text.utf8.count == digits, bytes(hex: text) != nil else {
                    throw node.error("a \(format.rawValue) default is \(digits) hex digits, found '\(text.prefix(40))'")
                }
            }
            return .string(text)
        case .enumeration:
            let label = try node.string()
            guard spec.values.contains(label) else {
                throw node.error(
                    "default '\(label.prefix(40))' is not one of the values: \(spec.values.joined(separator: ", "))")
            }
            return .enumeration(label)
        case .bitmap:
            let value = try node.int(in: 0...Int(UInt32.max), what: "default")
            return .bitmap(UInt32(value))
        case .raw:
            let hex = try node.string()
            guard let bytes = bytes(hex: hex) else {
                throw node.error("a raw default is an even number of hex digits, found '\(hex.prefix(40))'")
            }
            return .raw(bytes)
        }
    }

    private static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case 0x30...0x39: digit - 0x30
        case 0x61...0x66: digit - 0x61 + 10
        case 0x41...0x46: digit - 0x41 + 10
        default: nil
        }
    }

    private static func isCodeCharacter(_ byte: UInt8) -> Bool {
        (0x61...0x7A).contains(byte) || (0x41...0x5A).contains(byte) || (0x30...0x39).contains(byte) || byte == 0x5F
    }
}
