import DeepLinks
import Testing
import TuyaCore

/// Deep links arrive from alerts, webhooks, chat messages and QR codes: every class of
/// hostile text ends in its own `RouteError`, never a trap.
@Suite("Deep links: hostile input")
struct HostileInputTests {
    typealias Reason = RouteError.MalformedReason

    private func expect(
        _ url: String, _ reason: Reason, in context: RouteContext = Fixture.context,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(Fixture.error(url, in: context) == .malformed(reason), "\(url)", sourceLocation: sourceLocation)
    }

    @Test("links over 2 KiB are refused before they are read; 2 KiB exactly is read")
    func length() {
        let long = "youll://timer/sessions/" + String(repeating: "a", count: 2049 - 23)
        expect(long, .tooLong(bytes: 2049, limit: 2048))
        #expect(
            Fixture.error(String(long.dropLast()))
                == .validationFailed(
                    field: "session", reason: .badFormat(expected: "a session id: 1–64 letters, digits and '-'")))
        let huge = String(repeating: "%", count: 1 << 20)
        expect(huge, .tooLong(bytes: 1 << 20, limit: 2048))
    }

    @Test("user information is refused, even when it looks like a port")
    func userInfo() {
        expect("youll://user@tuya/pair", .userInfo(offset: 12))
        expect("youll://user:secret@tuya/pair", .userInfo(offset: 19))
        expect("https://links.youll.example@evil.example/tuya/pair", .userInfo(offset: 27))
    }

    @Test("a port is refused on both schemes")
    func port() {
        expect("youll://tuya:80/pair", .port(offset: 12))
        expect("https://links.youll.example:443/tuya/pair", .port(offset: 27))
        expect("youll://tuya:/pair", .port(offset: 12))
    }

    @Test("a fragment is refused, even an empty one")
    func fragment() {
        expect("youll://tuya/pair#x", .fragment(offset: 17))
        expect("youll://tuya/pair#", .fragment(offset: 17))
        expect("youll://timer?preset=calm&minutes=5#top", .fragment(offset: 35))
        expect("youll://tuya#/pair", .fragment(offset: 12))
    }

    @Test("unknown schemes are named; text without a scheme says so")
    func schemes() {
        expect("http://links.youll.example/tuya/pair", .unknownScheme("http"))
        expect("javascript:alert(1)", .unknownScheme("javascript"))
        expect("file:///etc/passwd", .unknownScheme("file"))
        expect("youllx://tuya/pair", .unknownScheme("youllx"))
        expect(String(repeating: "a", count: 100) + "://x", .unknownScheme(String(repeating: "a", count: 32)))
        for text in ["", "tuya/pair", "://tuya/pair", "1youll://tuya/pair", "you ll://tuya/pair", "youll"] {
            expect(text, .missingScheme)
        }
        expect("youll:tuya/pair", .missingAuthority)
        expect("youll:/tuya/pair", .missingAuthority)
        expect("youll:", .missingAuthority)
        expect("youll:///tuya/pair", .missingHost)
        expect("youll://?preset=calm", .missingHost)
    }

    @Test("an https link on a host that is not configured is refused, naming the host")
    func foreignHost() {
        expect("https://evil.example/tuya/pair", .unknownHost("evil.example"))
        expect("https://links.youll.example.evil.example/tuya/pair", .unknownHost("links.youll.example.evil.example"))
        expect("https://links.youll.example/tuya/pair", .unknownHost("links.youll.example"), in: RouteContext())
        expect("https://links%2Eyoull.example/tuya/pair", .invalidCharacter(offset: 13))
    }

    @Test("bad percent-encoding is refused wherever it is")
    func percentEncoding() {
        expect("youll://tuya/pa%", .badPercentEncoding(offset: 15))
        expect("youll://tuya/pa%7", .badPercentEncoding(offset: 15))
        expect("youll://tuya/pa%GGir", .badPercentEncoding(offset: 15))
        expect("youll://tuya/devices/%%41", .badPercentEncoding(offset: 21))
        expect("youll://timer?preset=ca%lm&minutes=5", .badPercentEncoding(offset: 23))
        expect("youll://timer?preset=calm&minutes=5%", .badPercentEncoding(offset: 35))
    }

    @Test("duplicate, unknown and valueless query items are refused")
    func queryItems() {
        expect("youll://timer?preset=calm&preset=calm&minutes=5", .duplicateQueryItem(name: "preset"))
        expect("youll://timer?preset=calm&minutes=5&minutes=6", .duplicateQueryItem(name: "minutes"))
        expect(
            "youll://timer?preset=calm&minutes=5&utm_source=mail",
            .unexpectedParameter(name: "utm_source", route: .timer))
        expect("youll://tuya/pair?device=abc", .unexpectedParameter(name: "device", route: .tuyaPair))
        expect("youll://timer?Preset=calm&minutes=5", .unexpectedParameter(name: "Preset", route: .timer))
        expect("youll://timer?%70reset=calm&minutes=5", .unexpectedParameter(name: "%70reset", route: .timer))
        expect("youll://timer?preset&minutes=5", .queryItemWithoutValue(name: "preset"))
        expect("youll://timer?preset=calm&&minutes=5", .emptyQueryItem(offset: 26))
        expect("youll://timer?preset=calm&minutes=5&", .emptyQueryItem(offset: 36))
        expect("youll://tuya/pair?", .emptyQueryItem(offset: 18))
        expect("youll://timer?preset=a=b&minutes=5", .invalidCharacter(offset: 22))
    }

    @Test("raw and percent-encoded control characters are refused")
    func controlCharacters() {
        expect("youll://tuya/pair\n", .controlCharacter(offset: 17))
        expect("youll://tuya/\tpair", .controlCharacter(offset: 13))
        expect("\0youll://tuya/pair", .controlCharacter(offset: 0))
        expect("youll://tuya/pair\u{7F}", .controlCharacter(offset: 17))
        expect("youll://timer?preset=calm%00&minutes=5", .controlCharacter(offset: 25))
        expect("youll://timer?preset=calm%0D%0A&minutes=5", .controlCharacter(offset: 25))
        expect("youll://timer?preset=calm%7f&minutes=5", .controlCharacter(offset: 25))
        expect("youll://timer?preset=calm%C2%85&minutes=5", .controlCharacter(offset: 21))  // NEL, a C1 control
        expect("youll://tuya/devices/%1B%5B2J", .controlCharacter(offset: 21))  // a terminal escape
    }

    @Test("raw non-ASCII is refused; bytes that are not UTF-8 are named as such, raw or percent-encoded")
    func encodings() throws {
        expect("youll://timer?preset=café&minutes=5", .nonASCII(offset: 24))
        expect("youll://tuya/pair\u{202E}", .nonASCII(offset: 17))
        let raw: [UInt8] = Array("youll://tuya/pair".utf8) + [0xFF]
        #expect(throws: RouteError.malformed(.notUTF8(offset: 17))) {
            try Fixture.engine.resolve(utf8: raw, context: Fixture.context)
        }
        for bad: [UInt8] in [[0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82]] {
            #expect(throws: RouteError.malformed(.notUTF8(offset: 8))) {
                try Fixture.engine.resolve(utf8: Array("youll://".utf8) + bad, context: Fixture.context)
            }
        }
        expect("youll://timer?preset=%FF&minutes=5", .notUTF8(offset: 21))
        expect("youll://timer?preset=%C0%AF&minutes=5", .notUTF8(offset: 21))  // overlong '/'
        expect("youll://timer?preset=%ED%A0%80&minutes=5", .notUTF8(offset: 21))  // a surrogate
        expect("youll://timer?preset=%E6%97&minutes=5", .notUTF8(offset: 21))  // truncated
        // Valid UTF-8 through resolve(utf8:) is read like the same String.
        #expect(
            try Fixture.engine.resolve(utf8: Array("youll://tuya/pair".utf8), context: Fixture.context)
                == .proceed(.tuyaPair))
    }

    @Test("characters that must be percent-encoded are refused raw")
    func invalidCharacters() {
        expect("youll://tuya/pa ir", .invalidCharacter(offset: 15))
        expect("youll://tuya/devices/<script>", .invalidCharacter(offset: 21))
        expect("youll://timer?preset=\"calm\"&minutes=5", .invalidCharacter(offset: 21))
        expect("youll://tuya/devices/a\\b", .invalidCharacter(offset: 22))
        expect("youll://[::1]/tuya/pair", .invalidCharacter(offset: 8))
        expect("youll://tu_ya/pair", .invalidCharacter(offset: 10))
        expect("youll://tuya/pair{}", .invalidCharacter(offset: 17))
    }

    @Test("empty and dot path segments are refused; an unknown path is an unknown route")
    func paths() {
        expect("youll://tuya//pair", .emptyPathSegment(offset: 13))
        expect("youll://tuya/pair/", .emptyPathSegment(offset: 18))
        expect("youll://tuya/./pair", .dotSegment(offset: 13))
        expect("youll://tuya/../timer", .dotSegment(offset: 13))
        #expect(Fixture.error("youll://tuya/pair/now") == .unknownRoute(path: "tuya/pair/now"))
        #expect(Fixture.error("youll://settings") == .unknownRoute(path: "settings"))
        #expect(Fixture.error("youll://tuya") == .unknownRoute(path: "tuya"))
        #expect(Fixture.error("https://links.youll.example/") == .unknownRoute(path: ""))
        #expect(Fixture.error("https://links.youll.example/pair") == .unknownRoute(path: "/pair"))
        #expect(Fixture.error("youll://tuya/devices") == .unknownRoute(path: "tuya/devices"))
        // The host of a universal link is not a route segment.
        #expect(Fixture.error("https://links.youll.example/pair?x") == .unknownRoute(path: "/pair"))
    }
}
