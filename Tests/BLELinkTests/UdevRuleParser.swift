/// A small model of udev(7)'s rules syntax, to check the files in `udev/` where
/// `udevadm verify` is not available. Stricter than udev where this model is unsure: a rule
/// it accepts is meant to be one udev accepts without a warning.
///
/// A rule is one logical line (a trailing backslash continues it) of comma-separated
/// `KEY[{attribute}] OPERATOR "value"` tokens; `#` starts a comment line.
struct UdevRuleParser {
    enum Operator: String, CaseIterable {
        case match = "=="
        case notMatch = "!="
        case add = "+="
        case remove = "-="
        case assignFinal = ":="
        case assign = "="

        var isMatch: Bool { self == .match || self == .notMatch }
    }

    struct Token: Equatable {
        var key: String
        var attribute: String?
        var op: Operator
        var value: String
    }

    struct Rule: Equatable {
        /// The first physical line of the rule, counting from 1.
        var line: Int
        var tokens: [Token]
    }

    struct Failure: Error, Equatable, CustomStringConvertible {
        var line: Int
        var message: String
        var description: String { "line \(line): \(message)" }
    }

    /// What a key accepts: its operators and whether it takes `{attribute}`.
    struct KeySpec {
        enum Attribute { case none, required, optional }
        var operators: Set<Operator>
        var attribute: Attribute
        /// Allowed attribute values, when udev knows only a few.
        var attributeValues: Set<String>? = nil
    }

    static let matchOnly: Set<Operator> = [.match, .notMatch]
    static let keys: [String: KeySpec] = [
        "ACTION": KeySpec(operators: matchOnly, attribute: .none),
        "DEVPATH": KeySpec(operators: matchOnly, attribute: .none),
        "KERNEL": KeySpec(operators: matchOnly, attribute: .none),
        "KERNELS": KeySpec(operators: matchOnly, attribute: .none),
        "SUBSYSTEM": KeySpec(operators: matchOnly, attribute: .none),
        "SUBSYSTEMS": KeySpec(operators: matchOnly, attribute: .none),
        "DRIVER": KeySpec(operators: matchOnly, attribute: .none),
        "DRIVERS": KeySpec(operators: matchOnly, attribute: .none),
        "TAGS": KeySpec(operators: matchOnly, attribute: .none),
        "CURRENT_TAGS": KeySpec(operators: matchOnly, attribute: .none),
        "RESULT": KeySpec(operators: matchOnly, attribute: .none),
        "ATTRS": KeySpec(operators: matchOnly, attribute: .required),
        "TEST": KeySpec(operators: matchOnly, attribute: .optional),
        "CONST": KeySpec(operators: matchOnly, attribute: .required, attributeValues: ["arch", "virt"]),
        "PROGRAM": KeySpec(operators: [.match, .notMatch, .assign], attribute: .none),
        "IMPORT": KeySpec(
            operators: [.match, .notMatch, .assign], attribute: .required,
            attributeValues: ["program", "builtin", "file", "db", "cmdline", "parent"]),
        "ENV": KeySpec(operators: [.match, .notMatch, .assign, .add, .assignFinal], attribute: .required),
        "ATTR": KeySpec(operators: [.match, .notMatch, .assign], attribute: .required),
        "SYSCTL": KeySpec(operators: [.match, .notMatch, .assign], attribute: .required),
        "NAME": KeySpec(operators: [.match, .notMatch, .assign, .assignFinal], attribute: .none),
        "SYMLINK": KeySpec(
            operators: [.match, .notMatch, .assign, .add, .remove, .assignFinal], attribute: .none),
        "TAG": KeySpec(operators: [.assign, .add, .remove, .assignFinal], attribute: .none),
        "OWNER": KeySpec(operators: [.assign, .assignFinal], attribute: .none),
        "GROUP": KeySpec(operators: [.assign, .assignFinal], attribute: .none),
        "MODE": KeySpec(operators: [.assign, .assignFinal], attribute: .none),
        "SECLABEL": KeySpec(operators: [.assign, .add, .assignFinal], attribute: .required),
        "RUN": KeySpec(
            operators: [.assign, .add, .remove, .assignFinal], attribute: .optional,
            attributeValues: ["program", "builtin"]),
        "LABEL": KeySpec(operators: [.assign], attribute: .none),
        "GOTO": KeySpec(operators: [.assign], attribute: .none),
        "OPTIONS": KeySpec(operators: [.assign, .add, .assignFinal], attribute: .none),
    ]

    /// Parses a whole rules file, then checks that every GOTO has its LABEL further down.
    static func parse(file text: String) throws(Failure) -> [Rule] {
        var rules: [Rule] = []
        var pending: (line: Int, text: String)?
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for (index, physical) in lines.enumerated() {
            let number = index + 1
            if pending == nil {
                let trimmed = physical.drop { $0 == " " || $0 == "\t" }
                if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            }
            if physical.hasSuffix("\\") {
                let start = pending?.line ?? number
                pending = (start, (pending?.text ?? "") + String(physical.dropLast()))
                continue
            }
            let logical = (pending?.text ?? "") + physical
            let start = pending?.line ?? number
            pending = nil
            rules.append(Rule(line: start, tokens: try parse(rule: logical, line: start)))
        }
        if let pending { throw Failure(line: pending.line, message: "the file ends inside a continued line") }
        try checkLabels(rules)
        return rules
    }

    /// Parses one logical line into tokens.
    static func parse(rule text: String, line: Int) throws(Failure) -> [Token] {
        var scanner = Scanner(characters: Array(text), line: line)
        var tokens: [Token] = []
        scanner.skipBlanks()
        while !scanner.isAtEnd {
            if !tokens.isEmpty {
                guard scanner.take(",") else { throw scanner.failure("expected a comma before the next key") }
                scanner.skipBlanks()
                if scanner.isAtEnd { break }  // udev accepts a trailing comma
            }
            tokens.append(try scanner.token())
            scanner.skipBlanks()
        }
        guard !tokens.isEmpty else { throw Failure(line: line, message: "a rule with no keys") }
        return tokens
    }

    private static func checkLabels(_ rules: [Rule]) throws(Failure) {
        for (index, rule) in rules.enumerated() {
            for token in rule.tokens where token.key == "GOTO" {
                let later = rules[(index + 1)...].contains {
                    $0.tokens.contains { $0.key == "LABEL" && $0.value == token.value }
                }
                guard later else {
                    throw Failure(line: rule.line, message: "GOTO \"\(token.value)\" has no LABEL after it")
                }
            }
        }
    }

    private struct Scanner {
        let characters: [Character]
        let line: Int
        var index = 0

        var isAtEnd: Bool { index == characters.count }

        func failure(_ message: String) -> Failure {
            Failure(line: line, message: "\(message) at column \(index + 1)")
        }

        mutating func skipBlanks() {
            while !isAtEnd, characters[index] == " " || characters[index] == "\t" { index += 1 }
        }

        mutating func take(_ text: String) -> Bool {
            let wanted = Array(text)
            guard index + wanted.count <= characters.count, Array(characters[index..<(index + wanted.count)]) == wanted
            else { return false }
            index += wanted.count
            return true
        }

        mutating func token() throws(Failure) -> Token {
            let key = word { $0.isUppercase || $0 == "_" }
            guard !key.isEmpty else { throw failure("expected a key") }
            guard let spec = UdevRuleParser.keys[key] else { throw failure("unknown key \(key)") }
            var attribute: String?
            if take("{") {
                let name = word { $0 != "}" && $0 != "\"" && $0 != "," && $0 != " " }
                guard take("}") else { throw failure("unclosed { after \(key)") }
                guard !name.isEmpty else { throw failure("empty {} after \(key)") }
                attribute = name
            }
            switch (spec.attribute, attribute) {
            case (.none, .some): throw failure("\(key) takes no {attribute}")
            case (.required, .none): throw failure("\(key) needs an {attribute}")
            default: break
            }
            if let attribute, let allowed = spec.attributeValues, !allowed.contains(attribute) {
                throw failure("\(key){\(attribute)} is not one of \(allowed.sorted().joined(separator: ", "))")
            }
            skipBlanks()
            guard let op = UdevRuleParser.Operator.allCases.first(where: { take($0.rawValue) }) else {
                throw failure("expected an operator after \(key)")
            }
            guard spec.operators.contains(op) else {
                let kind = op.isMatch ? "a match operator" : "an assignment operator"
                throw failure("\(key) does not take \(kind) (\(op.rawValue))")
            }
            skipBlanks()
            let value = try quoted()
            return Token(key: key, attribute: attribute, op: op, value: value)
        }

        /// A double-quoted value. `\"` and `\\` are escapes; an `e` prefix (e"…") allows C escapes.
        mutating func quoted() throws(Failure) -> String {
            let escapes = take("e\"") ? true : take("\"") ? false : nil
            guard let escapes else { throw failure("expected a value in double quotes") }
            var value = ""
            while !isAtEnd {
                let character = characters[index]
                index += 1
                switch character {
                case "\"": return value
                case "\\":
                    guard !isAtEnd else { throw failure("a backslash ends the line inside a value") }
                    let next = characters[index]
                    index += 1
                    switch next {
                    case "\"", "\\": value.append(next)
                    case "n" where escapes: value.append("\n")
                    case "t" where escapes: value.append("\t")
                    default: value.append(contentsOf: [character, next])
                    }
                default: value.append(character)
                }
            }
            throw failure("unbalanced quote: the value never closes")
        }

        private mutating func word(_ allowed: (Character) -> Bool) -> String {
            let start = index
            while !isAtEnd, allowed(characters[index]) { index += 1 }
            return String(characters[start..<index])
        }
    }
}
