/// Objects read member by member (`forEachMember`), for the LAN body's levels that are
/// checked and stepped over: their plain keys are never made into strings.
extension JSONParser {
    /// Reads an object at `index` (its `{`), handing each key to `value` with the parser at
    /// the member's value, which `value` must consume. Keys are checked for duplicates as
    /// `parseObject` does: the first repeated key is reported once the object has been read.
    mutating func forEachMember(
        _ value: (inout JSONParser, JSONKey) throws(WireError) -> Void
    ) throws(WireError) {
        guard try enterContainer(closedBy: UInt8(ascii: "}")) else { return }
        // Plain keys are compared as bytes of the input, kept on the stack; at the first
        // other key, or past `PlainKeys.capacity`, a set of the keys takes over, so that
        // hostile input cannot make the check quadratic.
        var plain = PlainKeys()
        var keys: Set<String>?
        var duplicateAt: Int?
        repeat {
            try expectKey()
            let keyOffset = index
            let key = try parseKey()
            let repeated: Bool
            if keys == nil, case .plain(let range) = key, plain.count < PlainKeys.capacity {
                repeated = plain.contains(range, in: bytes)
                plain.append(range)
            } else {
                if keys == nil { keys = plain.strings(in: bytes) }
                repeated = !keys!.insert(key.string(in: bytes)).inserted
            }
            if repeated, duplicateAt == nil { duplicateAt = keyOffset }
            try expectColon()
            guard index < bytes.count else { throw fail("unexpected end of input, expected a value") }
            try value(&self, key)
        } while try anotherMember()
        if let duplicateAt { throw .malformedJSON("duplicate object key at byte \(duplicateAt)") }
        depth -= 1
    }

    /// Reads a key at its opening quote. A key of printable ASCII without escapes is left
    /// where it lies in the input; any other goes through `parseString`, which checks it.
    mutating func parseKey() throws(WireError) -> JSONKey {
        let quote = index
        var end = index + 1
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") {
                index = end + 1
                return .plain((quote + 1)..<end)
            }
            guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\\") else { break }
            end += 1
        }
        return .decoded(try parseString())
    }
}

/// An object key as `forEachMember` hands it over.
enum JSONKey {
    /// Printable ASCII without escapes: the key is these bytes of the input, and two such
    /// keys are equal exactly when their bytes are.
    case plain(Range<Int>)
    /// Any other key, decoded.
    case decoded(String)

    /// Whether the key is `name` (ASCII).
    func `is`(_ name: StaticString, in bytes: UnsafeRawBufferPointer) -> Bool {
        switch self {
        case .plain(let range):
            guard range.count == name.utf8CodeUnitCount else { return false }
            for offset in 0..<range.count where bytes[range.lowerBound + offset] != name.utf8Start[offset] {
                return false
            }
            return true
        case .decoded(let key):
            return key == name.description
        }
    }

    func string(in bytes: UnsafeRawBufferPointer) -> String {
        switch self {
        case .plain(let range): String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        case .decoded(let key): key
        }
    }
}

/// The plain keys of one object read so far, as byte ranges of the input. Up to `capacity`
/// of them, in place, so that reading an object's members allocates nothing for the
/// duplicate check.
struct PlainKeys {

    static let capacity = 8
    private(set) var count = 0
    private var starts: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)
    private var ends: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)

    /// Where slot `position` lies in a tuple: `Int` is 4 bytes on 32-bit systems (armhf)
    /// and 8 on 64-bit ones.
    private static func offset(_ position: Int) -> Int {
        precondition(position >= 0 && position < capacity, "PlainKeys has \(capacity) slots")
        return position * MemoryLayout<Int>.stride
    }

    private func range(_ position: Int) -> Range<Int> {
        precondition(position < count, "PlainKeys holds \(count) keys")
        let start = withUnsafeBytes(of: starts) { $0.load(fromByteOffset: Self.offset(position), as: Int.self) }
        let end = withUnsafeBytes(of: ends) { $0.load(fromByteOffset: Self.offset(position), as: Int.self) }
        return start..<end
    }

    mutating func append(_ range: Range<Int>) {
        precondition(count < Self.capacity, "PlainKeys holds \(Self.capacity) keys")
        withUnsafeMutableBytes(of: &starts) {
            $0.storeBytes(of: range.lowerBound, toByteOffset: Self.offset(count), as: Int.self)
        }
        withUnsafeMutableBytes(of: &ends) {
            $0.storeBytes(of: range.upperBound, toByteOffset: Self.offset(count), as: Int.self)
        }
        count += 1
    }

    /// Whether a key already held has the bytes of `bytes[range]`.
    func contains(_ range: Range<Int>, in bytes: UnsafeRawBufferPointer) -> Bool {
        for position in 0..<count {
            let held = self.range(position)
            guard held.count == range.count else { continue }
            var same = true
            for offset in 0..<range.count where bytes[held.lowerBound + offset] != bytes[range.lowerBound + offset] {
                same = false
                break
            }
            if same { return true }
        }
        return false
    }

    /// The keys held, as strings.
    func strings(in bytes: UnsafeRawBufferPointer) -> Set<String> {
        var keys = Set<String>(minimumCapacity: count * 2)
        for position in 0..<count {
            keys.insert(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range(position)]), as: UTF8.self))
        }
        return keys
    }
}
