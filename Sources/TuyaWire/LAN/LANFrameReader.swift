/// Cuts a TCP byte stream into whole Tuya LAN frames (55AA and 6699), the way a device's
/// bytes arrive: split anywhere, several frames in one read (protocol/TUYA.md §2.2).
///
/// Bounded and self-healing: a frame may announce at most `maxFrameSize` bytes, and bytes
/// that are not a frame are dropped up to the next prefix. Each such drop is reported
/// once as a thrown `WireError`; the reader stays usable and the next call carries on
/// after the dropped bytes. It never holds more than one frame plus one read.
///
/// A read that is exactly one whole frame with nothing buffered before it (a device's usual
/// answer) is handed back as the array it came in, without being copied in and out.
///
/// ```swift
/// reader.append(bytes)
/// while let frame = try reader.next() { … }   // a whole frame, prefix to suffix
/// ```
public struct LANFrameReader: Sendable {
    public let maxFrameSize: Int
    private var buffer: [UInt8] = []
    private var start = 0
    /// A read that is one whole frame, kept as it came while nothing else is buffered.
    private var whole: [UInt8]?

    /// Smallest possible frames: a 55AA frame with no payload and a CRC, a 6699 frame
    /// with an empty ciphertext.
    private static let minimum55AA = LAN55AAFrame.headerSize + 8
    private static let minimum6699 = LAN6699Frame.overhead

    public init(maxFrameSize: Int = LANFrame.defaultMaxSize) {
        self.maxFrameSize = maxFrameSize
    }

    /// Bytes waiting for the rest of their frame.
    public var bufferedCount: Int { whole?.count ?? (buffer.count - start) }

    /// The size the frame being read announces, once its header is in; nil before that or
    /// when the buffered bytes do not start a frame.
    public var announcedSize: Int? {
        if let whole { return whole.count }
        // Each format's reading checks its own prefix.
        let pending = buffer[start...]
        return LAN55AAFrame.announcedSize(pending) ?? LAN6699Frame.announcedSize(pending)
    }

    public mutating func append(_ bytes: [UInt8]) {
        if whole == nil, start == buffer.count, case .frame(bytes.count) = cut(bytes[...]) {
            whole = bytes
            return
        }
        buffer(bytes)
    }

    public mutating func append(_ bytes: some Sequence<UInt8>) {
        buffer(bytes)
    }

    private mutating func buffer(_ bytes: some Sequence<UInt8>) {
        if let pending = whole {
            whole = nil
            buffer.append(contentsOf: pending)
        }
        if start > 0, start >= buffer.count / 2 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Forgets everything buffered (a new connection).
    public mutating func reset() {
        whole = nil
        buffer.removeAll(keepingCapacity: true)
        start = 0
    }

    /// The read kept whole by `append` (exactly one frame, nothing buffered before it), taken
    /// out; nil when the buffered bytes are anything else, which `next()` then cuts.
    public mutating func takeWholeFrame() -> [UInt8]? {
        defer { whole = nil }
        return whole
    }

    /// The next whole frame, nil when more bytes are needed. Throws after dropping bytes
    /// that cannot start a frame: garbage before a prefix, a length over `maxFrameSize` or
    /// under the smallest frame, or a frame whose suffix is wrong.
    public mutating func next() throws(WireError) -> [UInt8]? {
        if let frame = takeWholeFrame() { return frame }
        switch cut(buffer[start...]) {
        case .needMore:
            return nil
        case .garbage:
            throw skipGarbage()
        case .badSize(let size, let limit):
            start += 1
            throw .lengthOutOfRange(field: "LAN frame size", value: size, limit: limit)
        case .badSuffix(let size):
            start += 1
            throw .malformed("a LAN frame of \(size) bytes does not end with its suffix; resynchronising")
        case .frame(let size):
            let frame = Array(buffer[start..<(start + size)])
            start += size
            return frame
        }
    }

    /// What the bytes at the start of `pending` are.
    private enum Cut: Equatable {
        case needMore
        /// Not a frame's prefix.
        case garbage
        /// A frame announcing a size outside `minimum...maxFrameSize` (`limit` is the bound
        /// it broke).
        case badSize(Int, limit: Int)
        /// A whole frame whose last four bytes are not its suffix.
        case badSuffix(Int)
        /// A whole frame of this size.
        case frame(Int)
    }

    private func cut(_ pending: ArraySlice<UInt8>) -> Cut {
        guard pending.count >= 4 else { return .needMore }
        let first = BigEndian.read(pending, at: pending.startIndex)
        let is55AA = first == LAN55AAFrame.prefixWord
        let is6699 = first == LAN6699Frame.prefixWord
        guard is55AA || is6699 else { return .garbage }
        let announced = is55AA ? LAN55AAFrame.announcedSize(pending) : LAN6699Frame.announcedSize(pending)
        guard let size = announced else { return .needMore }
        let minimum = is55AA ? Self.minimum55AA : Self.minimum6699
        guard size >= minimum, size <= maxFrameSize else {
            return .badSize(size, limit: size < minimum ? minimum : maxFrameSize)
        }
        guard pending.count >= size else { return .needMore }
        let frameEnd = pending.startIndex + size
        let suffix = is55AA ? LAN55AAFrame.suffixWord : LAN6699Frame.suffixWord
        guard BigEndian.read(pending, at: frameEnd - 4) == suffix else { return .badSuffix(size) }
        return .frame(size)
    }

    /// Drops bytes up to the next possible prefix (keeping a tail that may be the start
    /// of one) and says how many went.
    private mutating func skipGarbage() -> WireError {
        var index = start + 1
        while index + 4 <= buffer.count {
            if buffer[index] == 0, buffer[index + 1] == 0,
                (buffer[index + 2] == 0x55 && buffer[index + 3] == 0xAA)
                    || (buffer[index + 2] == 0x66 && buffer[index + 3] == 0x99)
            {
                break
            }
            index += 1
        }
        index = min(index, max(start + 1, buffer.count - 3))
        let dropped = index - start
        start = index
        return .malformed("skipped \(dropped) bytes that are not a LAN frame")
    }
}
