import Foundation
import Testing

@testable import CLupDomain

@Suite("Waiting lists for full slots")
struct WaitingListTests {
    typealias Entry = WaitingList.Entry

    @Test("a freed place goes to the first waiting whose party fits, and is held while offered")
    func offersInOrder() {
        let list = [Entry(id: 1, people: 2, status: .waiting), Entry(id: 2, people: 1, status: .waiting),
                    Entry(id: 3, people: 1, status: .waiting)]
        // One place: the pair cannot use it, the single behind them can.
        #expect(WaitingList.offers(capacity: 4, booked: 3, entries: list) == [2])
        // Two places: the pair first, nobody else.
        #expect(WaitingList.offers(capacity: 4, booked: 2, entries: list) == [1])
        // A place held by an open offer is not offered again.
        let offered = [Entry(id: 1, people: 1, status: .offered), Entry(id: 2, people: 1, status: .waiting)]
        #expect(WaitingList.offers(capacity: 4, booked: 3, entries: offered) == [])
        #expect(WaitingList.offers(capacity: 4, booked: 2, entries: offered) == [2])
        #expect(WaitingList.free(capacity: 4, booked: 2, entries: offered) == 1)
    }

    @Test("newcomers may book only places nobody on the list could take")
    func newcomers() {
        let pair = [Entry(id: 1, people: 2, status: .waiting)]
        #expect(WaitingList.canBook(people: 1, capacity: 4, booked: 3, entries: pair))
        #expect(!WaitingList.canBook(people: 1, capacity: 4, booked: 2, entries: pair))
        #expect(!WaitingList.canBook(people: 1, capacity: 4, booked: 3, entries: [Entry(id: 1, people: 1, status: .offered)]))
        #expect(WaitingList.canBook(people: 2, capacity: 4, booked: 2, entries: []))
        #expect(!WaitingList.canBook(people: 2, capacity: 4, booked: 3, entries: []))
    }

    @Test("joining is for a slot without room for the party, on a list not at its longest")
    func joining() {
        #expect(WaitingList.joining(people: 1, capacity: 2, booked: 1, entries: []) == .notFull)
        #expect(WaitingList.joining(people: 2, capacity: 2, booked: 1, entries: []) == nil)
        let long = (1...Int64(WaitingList.longestList)).map { Entry(id: $0, people: 1, status: .waiting) }
        #expect(WaitingList.joining(people: 1, capacity: 2, booked: 2, entries: long) == .listFull)
    }

    @Test("an offer lasts half an hour, never past the slot's start, and is not made with under five minutes left")
    func deadlines() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(WaitingList.offerDeadline(now: now, slotStart: now + 7200) == now + 1800)
        #expect(WaitingList.offerDeadline(now: now, slotStart: now + 600) == now + 600)
        #expect(WaitingList.offerDeadline(now: now, slotStart: now + 299) == nil)
        #expect(WaitingList.isOver(slotStart: now + 299, now: now))
        #expect(!WaitingList.isOver(slotStart: now + 300, now: now))
    }
}
