import Testing
import TuyaCore

/// Pure: the UTF-8 well-formedness table shared by the JSON parser and the deep-link decoder.
@Suite("UTF-8 sequences")
struct UTF8SequenceTests {
    func length(_ bytes: [UInt8], at index: Int = 0) -> Int? {
        bytes.withUnsafeBufferPointer { UTF8Sequence.length($0, at: index) }
    }

    @Test("well-formed sequences of every length, at their table's edges, are measured")
    func wellFormed() {
        for text in ["A", "\u{7F}", "é", "\u{80}", "\u{7FF}", "€", "\u{800}", "\u{D7FF}", "\u{E000}", "\u{FFFF}"]
            + ["😀", "\u{10000}", "\u{10FFFF}"]
        {
            let bytes = Array(text.utf8)
            #expect(length(bytes) == bytes.count, "\(bytes)")
            #expect(length(bytes + [0x41]) == bytes.count, "a following byte is not part of it")
        }
        #expect(length([0x41, 0xC3, 0xA9], at: 1) == 2)
    }

    @Test("overlong forms, surrogates, above U+10FFFF, stray continuations and cut-short sequences are not")
    func malformed() {
        let cases: [[UInt8]] = [
            [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xE0, 0x9F, 0xBF], [0xF0, 0x8F, 0xBF, 0xBF],
            [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80],
            [0xFF], [0x80], [0xBF], [0xC3], [0xE2, 0x82], [0xF0, 0x9F, 0x98], [0xE2, 0x41, 0xAC],
            [0xF0, 0x9F, 0x98, 0x41],
        ]
        for bytes in cases { #expect(length(bytes) == nil, "\(bytes)") }
    }

    @Test("shape names the length and second-byte range of each lead, and nothing for ASCII or continuations")
    func shapes() {
        #expect(UTF8Sequence.shape(lead: 0x41) == nil)
        #expect(UTF8Sequence.shape(lead: 0x80) == nil)
        #expect(UTF8Sequence.shape(lead: 0xC2).map { [$0.length] } == [2])
        #expect(UTF8Sequence.shape(lead: 0xE0)?.second == 0xA0...0xBF)
        #expect(UTF8Sequence.shape(lead: 0xED)?.second == 0x80...0x9F)
        #expect(UTF8Sequence.shape(lead: 0xF4)?.second == 0x80...0x8F)
        #expect(UTF8Sequence.shape(lead: 0xF4)?.length == 4)
    }
}
