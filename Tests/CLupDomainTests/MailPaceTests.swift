import Foundation
import Testing

@testable import CLupDomain

/// One client's pace for mail to addresses it may not own (`MailPace`).
@Suite("Mail pace")
struct MailPaceTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// Admits `count` mails asked for at `at`, from `mark`; their send times and the last mark.
    func admit(_ count: Int, at: Date, from mark: Date?) -> (sends: [Date?], mark: Date?) {
        var mark = mark
        var sends: [Date?] = []
        for _ in 0..<count {
            switch MailPace.admit(mark: mark, now: at) {
            case .accepted(let sendAt, let next):
                sends.append(sendAt)
                mark = next
            case .refused:
                sends.append(nil)
            }
        }
        return (sends, mark)
    }

    @Test("a burst leaves at once, then one every interval, and past the longest delay nothing is accepted")
    func burstThenPace() {
        let (sends, mark) = admit(MailPace.burst + 241, at: now, from: nil)
        #expect(sends.prefix(MailPace.burst).allSatisfy { $0 == now })
        #expect(sends[MailPace.burst] == now + MailPace.interval)
        #expect(sends[MailPace.burst + 239] == now + MailPace.longestDelay)
        #expect(sends.suffix(1) == [nil])
        // The refusal says when the same mail would be accepted, and it is then.
        guard case .refused(let retryAt) = MailPace.admit(mark: mark, now: now) else { Issue.record("accepted"); return }
        #expect(retryAt == now + MailPace.interval)
        #expect(MailPace.admit(mark: mark, now: retryAt) == .accepted(sendAt: retryAt + MailPace.longestDelay,
                                                                        mark: mark! + MailPace.interval))
    }

    @Test("a client that has kept within the pace has its burst again; a mark in the past counts as none")
    func paceRecovers() {
        let (_, mark) = admit(MailPace.burst, at: now, from: nil)
        let later = now + Double(MailPace.burst) * MailPace.interval
        #expect(admit(MailPace.burst, at: later, from: mark).sends.allSatisfy { $0 == later })
        #expect(MailPace.admit(mark: now - 3600, now: now) == MailPace.admit(mark: nil, now: now))
    }
}
