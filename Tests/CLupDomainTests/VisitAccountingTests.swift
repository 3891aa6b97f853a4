import Foundation
import Testing

@testable import CLupDomain

/// What each change of a reservation's status adds to its store's statistics and learned sums.
@Suite("Visit accounting")
struct VisitAccountingTests {
    /// 10:50 UTC: a ticket taken ten minutes before the hour's end.
    let taken = Date(timeIntervalSince1970: 490_000 * 3600 + 50 * 60)

    var ticket: VisitFacts {
        VisitFacts(kind: .lineUp, people: 2, residenceMinutes: 30, status: .waiting, createdAt: taken)
    }

    @Test("a called line-up that enters counts its waits, its peak and the call's outcome; its exit spreads over the hours it spans")
    func visit() {
        var called = ticket
        (called.status, called.calledAt) = (.called, taken + 300)
        let call = VisitAccounting.change(from: ticket, to: called, peopleInside: 0)
        #expect(call.hours.map(\.hour) == [490_000] && call.hours[0].calls == 1 && call.hours[0].callSeconds == 300)
        #expect(call.learned.isEmpty && call.entryHour == nil)

        var inside = called
        (inside.status, inside.enteredAt) = (.inside, taken + 720)  // 11:02
        let entry = VisitAccounting.change(from: called, to: inside, peopleInside: 7)
        let hour = entry.hours[0]
        #expect(entry.hours.count == 1 && hour.hour == 490_001 && entry.entryHour == 490_001)
        #expect(hour.entries == 1 && hour.entryPeople == 2 && hour.lineUps == 1 && hour.walkIns == 0)
        #expect(hour.waitSeconds == 720 && hour.waitCount == 1 && hour.doorSeconds == 420 && hour.doorCount == 1)
        #expect(hour.peakInside == 7)
        // A call answered by a customer who was at the store: the way to the door is learned.
        #expect(entry.learned.added.calls == 1 && entry.learned.added.atHandEntries == 1
            && entry.learned.added.callToDoorSeconds == 420 && entry.learned.added.noShows == 0)
        // No entry expected when it was made: no entry error.
        #expect(entry.learned.entryDecay == 1 && entry.learned.added.entries == 0)

        var done = inside
        (done.status, done.exitedAt, done.endedAt) = (.done, taken + 720 + 5400, taken + 720 + 5400)  // 12:32
        let exit = VisitAccounting.change(from: inside, to: done, peopleInside: 0)
        // Counted at the entry's hour; two people's 90 minutes over 11:00, 12:00.
        #expect(exit.hours.map(\.hour) == [490_001, 490_002])
        #expect(exit.hours[0].exits == 1 && exit.hours[0].actualSeconds == 5400 && exit.hours[0].declaredSeconds == 1800)
        #expect(abs(exit.hours[0].personSeconds - 2 * 3480) < 1e-6 && abs(exit.hours[1].personSeconds - 2 * 1920) < 1e-6)
        #expect(exit.learned.added.measuredVisits == 1 && abs(exit.learned.added.logRatioSum - log(3.0)) < 1e-9)
    }

    @Test("an entry with an expected time measures its error in minutes over the root of the wait, and older errors fade")
    func entryError() {
        var waiting = ticket
        waiting.expectedEntry = taken + 600
        var inside = waiting
        (inside.status, inside.enteredAt) = (.inside, taken + 1200)
        let change = VisitAccounting.change(from: waiting, to: inside, peopleInside: 2).learned
        // Ten minutes late on an expected ten-minute wait: 10 ÷ √(10 + 10).
        let error = 10 / 20.0.squareRoot()
        #expect(abs(VisitModel.entryError(expected: 600, real: 1200) - error) < 1e-12)
        #expect(change.entryDecay == VisitAccounting.entryErrorDecay && change.added.entries == 1)
        #expect(abs(change.added.entryErrorSum - error) < 1e-12 && abs(change.added.entryErrorSquares - error * error) < 1e-12)
        var sums = LearnedSums()
        (sums.entries, sums.entryErrorSum, sums.calls) = (10, 1, 4)
        sums.apply(change)
        #expect(abs(sums.entries - 10.9) < 1e-12 && abs(sums.entryErrorSum - (0.99 + error)) < 1e-12 && sums.calls == 4)
    }

    @Test("tickets that end unused count at the hour they end: a booking's no-show, a line-up's expiry, a cancellation")
    func endings() {
        var booking = ticket
        (booking.kind, booking.status) = (.booking, .booked)
        var missed = booking
        (missed.status, missed.endedAt) = (.expired, taken + 7200)
        let noShow = VisitAccounting.change(from: booking, to: missed, peopleInside: 0).hours
        #expect(noShow.map(\.hour) == [490_002] && noShow[0].noShows == 1 && noShow[0].expiries == 0)
        // A called ticket never scanned: an expiry, and a no-show for the estimate.
        var called = ticket
        (called.status, called.calledAt) = (.called, taken + 60)
        var lapsed = called
        (lapsed.status, lapsed.endedAt) = (.expired, taken + 660)
        let expiry = VisitAccounting.change(from: called, to: lapsed, peopleInside: 0)
        #expect(expiry.hours[0].expiries == 1 && expiry.learned.added.calls == 1 && expiry.learned.added.noShows == 1)
        var cancelled = ticket
        (cancelled.status, cancelled.endedAt) = (.cancelled, taken + 60)
        #expect(VisitAccounting.change(from: ticket, to: cancelled, peopleInside: 0).hours[0].cancellations == 1)
    }

    @Test("a reservation's history is the states it went through, each at its time")
    func steps() {
        var final = ticket
        (final.status, final.calledAt, final.enteredAt, final.exitedAt, final.endedAt) =
            (.done, taken + 60, taken + 120, taken + 1920, taken + 1920)
        let steps = VisitAccounting.steps(of: final)
        #expect(steps.map(\.facts.status) == [.waiting, .called, .inside, .done])
        #expect(steps.map(\.at) == [taken, taken + 60, taken + 120, taken + 1920])
        #expect(steps.last?.facts == final && steps[2].facts.exitedAt == nil)
        // Closed without a scan out; a booking cancelled; a line-up still waiting.
        var closed = final
        closed.exitedAt = nil
        #expect(VisitAccounting.steps(of: closed).map(\.facts.status) == [.waiting, .called, .inside, .done])
        var cancelled = ticket
        (cancelled.kind, cancelled.status, cancelled.endedAt) = (.booking, .cancelled, taken + 30)
        #expect(VisitAccounting.steps(of: cancelled).map(\.facts.status) == [.booked, .cancelled])
        #expect(VisitAccounting.steps(of: ticket).map(\.facts.status) == [.waiting])
    }
}
