import DeviceSimulator
import YoullTestSupport
import Testing
import TuyaWire

@Suite("LAN frame reader over a TCP byte stream")
struct LANFrameReaderTests {
    let frames: [[UInt8]]

    init() throws {
        let key = aesKey(lanKey)
        frames = [
            try LAN55AAFrame.encode(
                sequence: 1, command: .status, retcode: 0, payload: ascii("{\"a\":1}"), integrity: .crc32),
            try LAN6699Frame.encode(
                sequence: 2, command: .status, retcode: 0, payload: ascii("{\"b\":2}"), key: key,
                nonce: [UInt8](repeating: 9, count: 12)),
            try LAN55AAFrame.encode(sequence: 3, command: .heartBeat, retcode: 0, payload: [], integrity: .hmac(key)),
        ]
    }

    /// Everything the reader hands out until it wants more bytes; errors collected apart.
    private func drain(_ reader: inout LANFrameReader) -> (frames: [[UInt8]], errors: [WireError]) {
        var out: [[UInt8]] = []
        var errors: [WireError] = []
        while true {
            do {
                guard let frame = try reader.next() else { return (out, errors) }
                out.append(frame)
            } catch {
                errors.append(error)
            }
        }
    }

    @Test("frames split at every possible byte come out whole and in order")
    func splitEverywhere() {
        let stream = frames.flatMap { $0 }
        for cut in 0...stream.count {
            var reader = LANFrameReader()
            reader.append(stream[..<cut])
            var (got, errors) = drain(&reader)
            reader.append(stream[cut...])
            let rest = drain(&reader)
            got += rest.frames
            errors += rest.errors
            #expect(got == frames, "cut at \(cut)")
            #expect(errors.isEmpty, "cut at \(cut): \(errors)")
            #expect(reader.bufferedCount == 0)
        }
    }

    @Test("reads that are whole frames, fed alone or before and after partial reads, come out in order")
    func wholeFrameReads() {
        // Each frame as its own read, drained after every read and only at the end.
        for drainEachTime in [true, false] {
            var reader = LANFrameReader()
            var got: [[UInt8]] = []
            for frame in frames {
                reader.append(frame)
                if drainEachTime {
                    #expect(reader.bufferedCount == frame.count)
                    got += drain(&reader).frames
                }
            }
            got += drain(&reader).frames
            #expect(got == frames, "drained each time: \(drainEachTime)")
            #expect(reader.bufferedCount == 0)
        }
        // A whole frame read while another is still buffered waits behind it, and a whole
        // frame followed by the start of the next keeps its place.
        var reader = LANFrameReader()
        reader.append(Array(frames[0][..<10]))
        reader.append(Array(frames[0][10...]))
        reader.append(frames[1])
        #expect(drain(&reader).frames == [frames[0], frames[1]])
        var again = LANFrameReader()
        again.append(frames[1])
        again.append(Array(frames[2][..<7]))
        again.append(Array(frames[2][7...]))
        #expect(drain(&again).frames == [frames[1], frames[2]])
    }

    @Test("bytes fed one at a time give the same frames")
    func byteByByte() {
        var reader = LANFrameReader()
        var got: [[UInt8]] = []
        for byte in frames.flatMap({ $0 }) {
            reader.append([byte])
            got += drain(&reader).frames
        }
        #expect(got == frames)
    }

    @Test("garbage before, between and after frames is skipped with one typed error each, and frames survive")
    func garbageResync() {
        var reader = LANFrameReader()
        let garbage = ascii("HTTP/1.1 200 OK\r\n")
        reader.append(garbage + frames[0] + [0x00, 0x00, 0x55] + frames[1] + garbage + frames[2] + [0x00, 0x00])
        let (got, errors) = drain(&reader)
        #expect(got == frames)
        #expect(errors.count == 3)
        for error in errors {
            guard case .malformed(let detail) = error else {
                Issue.record("expected malformed, got \(error)")
                continue
            }
            #expect(detail.contains("not a LAN frame"))
        }
        #expect(reader.bufferedCount <= 3)
    }

    @Test("a length over the limit is refused before buffering it, and the reader finds the next frame")
    func oversizedLength() {
        var reader = LANFrameReader(maxFrameSize: 1_024)
        let hostile = hexBytes("000055aa 00000001 00000008 7fffffff")
        reader.append(hostile + frames[0])
        let (got, errors) = drain(&reader)
        #expect(got == [frames[0]])
        #expect(errors.first == .lengthOutOfRange(field: "LAN frame size", value: 16 + 0x7FFF_FFFF, limit: 1_024))
    }

    @Test("a length shorter than the smallest frame is refused")
    func undersizedLength() {
        var reader = LANFrameReader()
        reader.append(hexBytes("00006699 0000 00000001 00000008 00000003") + frames[2])
        let (got, errors) = drain(&reader)
        #expect(got == [frames[2]])
        guard case .lengthOutOfRange(_, let value, _)? = errors.first else {
            Issue.record("expected lengthOutOfRange, got \(errors)")
            return
        }
        #expect(value == 18 + 3 + 4)
    }

    @Test("a frame whose announced end is not its suffix is dropped and the stream resynchronises")
    func wrongSuffix() {
        var broken = frames[0]
        broken[broken.count - 1] = 0x00
        var reader = LANFrameReader()
        reader.append(broken + frames[1])
        let (got, errors) = drain(&reader)
        #expect(got == [frames[1]])
        #expect(!errors.isEmpty)
    }

    @Test("an endless stream of garbage never grows the buffer")
    func boundedGarbage() {
        var reader = LANFrameReader()
        var generator = SeededGenerator(seed: 77)
        for _ in 0..<200 {
            let chunk = (0..<512).map { _ in UInt8.random(in: 0x01...0xFF, using: &generator) }
            reader.append(chunk)
            _ = drain(&reader)
            #expect(reader.bufferedCount <= 3)
        }
    }

    @Test("reset forgets a half-received frame")
    func resetDropsPartial() {
        var reader = LANFrameReader()
        reader.append(frames[0].prefix(10))
        reader.reset()
        reader.append(frames[1])
        #expect(drain(&reader).frames == [frames[1]])
    }
}
