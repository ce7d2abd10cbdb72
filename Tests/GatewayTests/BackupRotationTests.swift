import Testing

@testable import Gateway

// Pure unit tests of the backup rules: times and sizes passed by hand.
@Suite("BackupRotation")
struct BackupRotationTests {
    @Test("a second backup within a minute is refused, saying when to try again")
    func rateLimited() {
        let rules = BackupRotation()
        #expect(rules.refusal(sinceLastBackup: nil, databaseBytes: 1 << 20, freeBytes: 1 << 30) == nil)
        let refusal = rules.refusal(sinceLastBackup: .seconds(20), databaseBytes: 1 << 20, freeBytes: 1 << 30)
        #expect(refusal == "a backup was written 20 s ago; one per 60 s, try again in 41 s")
        #expect(rules.refusal(sinceLastBackup: .seconds(60), databaseBytes: 1 << 20, freeBytes: 1 << 30) == nil)
    }

    @Test("a backup that would leave the disk nearly full is refused, with the room there is")
    func lowSpace() {
        let rules = BackupRotation()
        let refusal = rules.refusal(sinceLastBackup: nil, databaseBytes: 4 << 20, freeBytes: 10 << 20)
        #expect(refusal == "only 10 MiB free in the state directory; a copy of 4 MiB needs 20 MiB")
        #expect(rules.refusal(sinceLastBackup: nil, databaseBytes: 4 << 20, freeBytes: 20 << 20) == nil)
    }

    @Test("only the newest five of the gateway's own copies are kept; other files are never deleted")
    func keepsNewestFive() {
        let copies = (1...7).map { "youll-devices-2026110\($0)T120000Z.sqlite" }
        let names = copies.shuffled() + ["notes.txt", "youll-devices-keep.db"]
        #expect(BackupRotation().expired(names, written: copies[6]) == Array(copies.prefix(2)))
        #expect(BackupRotation().expired(Array(copies.prefix(5)), written: copies[4]).isEmpty)
    }

    @Test("the copy just written is kept even when its name sorts first (the clock was set back)")
    func keepsTheNewCopy() {
        let earlier = (3...7).map { "youll-devices-2026110\($0)T120000Z.sqlite" }
        let written = "youll-devices-20261101T120000Z.sqlite"
        let expired = BackupRotation().expired(earlier + [written], written: written)
        #expect(expired == [earlier[0]], "the oldest of the others goes; the new one stays")
    }
}
