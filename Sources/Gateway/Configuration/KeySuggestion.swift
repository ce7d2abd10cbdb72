/// "Did you mean …?" for misspelt keys and choices: the closest candidate by edit distance,
/// offered only when it is close enough to be the likely intent.
enum KeySuggestion {
    /// The closest of `candidates`, or nil when none is within a third of the word's length (at least 2 edits).
    /// A short form that only one candidate starts with (`warn`, `max_conn`) counts as close.
    static func closest(to word: String, among candidates: [String]) -> String? {
        let word = word.lowercased()
        guard word.count <= 64 else { return nil }
        let extended = candidates.filter { $0.lowercased().hasPrefix(word) }
        if word.count >= 3, extended.count == 1 { return extended[0] }
        let limit = max(2, word.count / 3)
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(Array(word), Array(candidate.lowercased()))
            if distance <= limit, distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.candidate
    }

    /// `; did you mean 'x'?`, or nothing.
    static func hint(for word: String, among candidates: [String]) -> String {
        closest(to: word, among: candidates).map { "; did you mean '\($0)'?" } ?? ""
    }

    /// Optimal string alignment distance: a transposition (`prot` for `port`) counts as one edit.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], before[j - 2] + 1)
                }
            }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count]
    }
}
