import DeepLinks
import Testing
import TuyaCore
import DeviceSimulator
import YoullTestSupport

/// Generated links and mutations of them, as raw bytes (not always UTF-8) and as
/// Strings. Nothing may trap, and whatever resolves must survive the round trip.
@Suite("Deep links: generated and mutated links")
struct MutatedLinkTests {
    /// Bytes that matter to the parser, to splice in.
    private static let interesting: [[UInt8]] =
        [
            "%", "%2", "%25", "%00", "%FF", "%C2%85", "%E6%97", "/", "//", "/..", "?", "&", "&&", "=", "#", "@", ":",
            ":80", "+", " ", "\u{7F}", "\n", "é", "youll://", "https://", "https://links.youll.example/", "tuya/",
            "timer", "device=", "type=refill", "preset=calm", "minutes=240", "minutes=0", "sessions/", "[", "\\",
        ].map { Array($0.utf8) } + [[0xFF], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0x00]]

    @Test("100,000 generated and mutated links: no trap, and every resolved link round-trips")
    func mutations() throws {
        var random = SeededGenerator(seed: 0xDEE9_11_4C)
        var generator = DestinationGenerator(random: SeededGenerator(seed: 7))
        let engine = Fixture.engine
        let context = Fixture.context
        // A pool of valid links of every kind and door, mutated afresh each round.
        let bases: [[UInt8]] = (0..<2_000).map { index in
            let destination = generator.destination(RouteName.allCases[index % RouteName.allCases.count])
            let url =
                index % 3 == 0
                ? engine.universalLink(for: destination, host: "links.youll.example") : engine.url(for: destination)
            return Array(url.utf8)
        }
        var tally = (proceeded: 0, gated: 0, rejected: 0)
        var kindsOfError = Set<String>()
        var brokenRoundTrips: [String] = []
        for round in 0..<100_000 {
            var bytes = bases[round % bases.count]
            for _ in 0..<Int.random(in: 0...3, using: &random) { mutate(&bytes, &random) }

            let outcome: RouteResolution
            do throws(RouteError) {
                outcome =
                    try round % 2 == 0
                    ? engine.resolve(utf8: bytes, context: context)
                    : engine.resolve(url: String(decoding: bytes, as: UTF8.self), context: context)
            } catch {
                tally.rejected += 1
                if round % 16 == 0 { kindsOfError.insert(label(error)) }
                continue
            }
            switch outcome {
            case .proceed(let reached):
                tally.proceeded += 1
                if (try? engine.resolve(url: engine.url(for: reached), context: context)) != .proceed(reached) {
                    brokenRoundTrips.append(String(decoding: bytes, as: UTF8.self))
                }
            case .gated(_, let resume):
                tally.gated += 1
                if (try? engine.resolve(request: resume, context: context)) != outcome {
                    brokenRoundTrips.append(String(decoding: bytes, as: UTF8.self))
                }
            }
        }
        #expect(brokenRoundTrips.isEmpty, "\(brokenRoundTrips.prefix(5))")
        // The mix exercised every way out, and most malformation classes.
        #expect(tally.proceeded > 5_000 && tally.gated > 5_000 && tally.rejected > 30_000, "\(tally)")
        #expect(kindsOfError.count >= 15, "\(kindsOfError.sorted())")
    }

    private func mutate(_ bytes: inout [UInt8], _ random: inout SeededGenerator) {
        let position = Int.random(in: 0...bytes.count, using: &random)
        switch Int.random(in: 0..<6, using: &random) {
        case 0:  // replace a byte with any byte
            if position < bytes.count { bytes[position] = UInt8.random(in: 0...255, using: &random) }
        case 1:  // splice in something the parser cares about
            bytes.insert(contentsOf: Self.interesting.randomElement(using: &random)!, at: position)
        case 2:  // delete a run
            let end = min(bytes.count, position + Int.random(in: 1...6, using: &random))
            bytes.removeSubrange(position..<end)
        case 3:  // duplicate a run (repeated query items, segments)
            let end = min(bytes.count, position + Int.random(in: 1...24, using: &random))
            bytes.insert(contentsOf: Array(bytes[position..<end]), at: position)
        case 4:  // flip the case of a letter
            if position < bytes.count, (bytes[position] | 0x20) >= 0x61, (bytes[position] | 0x20) <= 0x7A {
                bytes[position] ^= 0x20
            }
        default:  // grow towards and past the size limit
            bytes += [UInt8](repeating: UInt8(ascii: "a"), count: Int.random(in: 0...1200, using: &random))
        }
    }

    private func label(_ error: RouteError) -> String {
        switch error {
        case .malformed(let reason): "malformed." + (Mirror(reflecting: reason).children.first?.label ?? "\(reason)")
        case .unknownRoute: "unknownRoute"
        case .validationFailed(let field, _): "validationFailed." + field
        }
    }
}
