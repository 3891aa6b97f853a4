import Foundation

@testable import CLupData
@testable import CLupDomain
@testable import CLupSupport
@testable import CLupWeb

/// What the entrance's suites share: a store of 10 keeping 2 places for walk-ins and 10
/// minutes to answer a call, another store, a kiosk key for each, and the app over an
/// in-memory SQLite with the clock pinned at Wednesday 10:00 in Milan.
struct EntranceFixture {
    let clock = TestClock()
    let database: AppDatabase
    let app: App
    let store: Store
    let other: Store
    let key = Secrets.token(bytes: 32)
    let otherKey = Secrets.token(bytes: 32)

    init() throws {
        database = try Fixture.database()
        store = try database.stores.createStore(
            NewStore(name: "Bottega Duomo", address: "Piazza Duomo 1", phone: "+39 02 1", position: Place.milan[0].position,
                  capacity: 10, timeZone: "Europe/Rome", settings: StoreSettings(capacity: 10, walkInPercent: 20)),
            hours: Fixture.weekdayHours, departments: [])
        other = try database.stores.createStore(
            Fixture.store("Mercato Brera", at: GeoPoint(latitude: 45.4705, longitude: 9.19), capacity: 30),
            hours: Fixture.weekdayHours, departments: [])
        _ = try database.accounts.enrolKiosk(storeId: store.id, label: "Front door", key: key, now: clock.now)
        _ = try database.accounts.enrolKiosk(storeId: other.id, label: "Brera door", key: otherKey, now: clock.now)
        let clock = self.clock
        app = try Fixture.app(clock: { clock.now }, database: database)
    }
}
