import CLupTemplates
import CLupText
import Foundation
import Testing

@testable import CLupData
@testable import CLupDomain
@testable import CLupWeb

/// The home page's kept list of nearby stores is used only while a list made afresh would be
/// the same.
@Suite("Kept lists of nearby stores")
struct NearbyCardsTests {
    let now = Fixture.date(2026, 11, 18, 10)

    @Test("kept until the board changes or its oldest standing would be computed again; never for an earlier clock")
    func keptWhileTheSame() throws {
        let database = try AppDatabase.inMemory()
        let board = database.board
        let nearby = NearbyCards()
        let key = NearbyCards.Key(language: .en, position: "place=duomo", mode: .walking, shown: 30)
        var made = 0
        func list(at instant: Date, oldest: Date?) -> Int {
            nearby.list(key, board: board, now: instant) {
                made += 1
                return (NearbyCards.List(stores: StoreList([]), total: made, modes: [], more: nil), oldest)
            }.total
        }
        #expect(list(at: now, oldest: now - 0.4) == 1)
        #expect(list(at: now + 0.5, oldest: nil) == 1, "kept: nothing changed, standings still fresh")
        #expect(list(at: now + 0.7, oldest: nil) == 2, "its oldest standing was 1.1 s old")
        #expect(list(at: now + 0.7, oldest: now + 0.7) == 2)
        #expect(list(at: now + 0.6, oldest: now + 0.6) == 3, "a clock before the list was made")
        #expect(list(at: now + 0.6, oldest: now + 0.6) == 3)
        #expect(list(at: now + 0.6, oldest: now + 0.6) == 3)
        _ = try database.stores.createStore(Fixture.store("Bottega", at: GeoPoint(latitude: 45.46, longitude: 9.19)),
                                     hours: Fixture.weekdayHours, departments: [])
        #expect(list(at: now + 0.6, oldest: now + 0.6) == 4, "a store was added")
        let other = NearbyCards.Key(language: .it, position: "place=duomo", mode: .walking, shown: 30)
        #expect(nearby.list(other, board: board, now: now + 0.6) {
            (NearbyCards.List(stores: StoreList([]), total: 99, modes: [], more: nil), nil)
        }.total
            == 99, "another language, another list")
    }

    @Test("the home page shows a store's change at once, and its closing as time passes, for the same place")
    func homePageFollowsChanges() throws {
        let (clock, database, app) = try Fixture.start()
        let store = try database.stores.createStore(Fixture.store("Bottega", at: GeoPoint(latitude: 45.4642, longitude: 9.19)),
                                             hours: Fixture.weekdayHours, departments: [])
        let home = "/?lat=45.46420&lon=9.19000"
        #expect(app.get(home).bodyText.contains("Open until 21:00"))
        var edit = StoreEdit(store)
        edit.name = "Bottega Nuova"
        _ = try database.stores.editStore(store.id, to: edit, userId: nil, now: clock.now)
        let renamed = app.get(home).bodyText
        #expect(renamed.contains("Bottega Nuova") && renamed.contains("Open until 21:00"))
        clock.advance(11 * 3600 + 1)
        let closed = app.get(home).bodyText
        #expect(closed.contains("Closed · opens") && !closed.contains("Open until"))
    }
}
