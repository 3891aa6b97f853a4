import CLupData
import CLupDomain
import CLupPaths
import CLupTemplates
import Foundation

/// An admin registers a store: its name, address, position, phone, time zone, capacity, the
/// reservation rules (walk-in share, slot length and capacity, entry window, time to reach the
/// door when called), and its departments with their usual shopping times. Every
/// field is checked with its reason; the store then has no opening hours — it shows as closed
/// — and the admin is taken to its hours.
extension ManageArea {

    func newStoreForm(_ context: ManagerContext) throws -> Response {
        registrationPage(context, values: StoreFields.registrationDefaults, errors: [:], status: 200)
    }

    func registerStore(_ context: ManagerContext) throws -> Response {
        // A field the form did not send (an older page) takes its usual value.
        var values = StoreFields.registrationDefaults
        for name in StoreFields.registrationFields {
            if let value = context.form[name] { values[name] = value.trimmingCharacters(in: .whitespacesAndNewlines) }
        }
        switch StoreFields.registration(values) {
        case .failure(let problems):
            return registrationPage(context, values: values, errors: problems.errors, status: 422)
        case .success(let (new, departments)):
            let store = try database.createStore(new, hours: [], departments: departments)
            try database.recordRegistration(storeId: store.id, userId: context.user.id, now: context.now)
            return .redirect(to: Paths.manageStoreHours(store.id, query: "registered=1"))
        }
    }

    static let departmentsHint = "One per line: its name, a comma and its usual shopping time in minutes "
        + "(\"Bakery, 10\"). Optional."

    /// "Bakery, 10" per line: a department and its usual shopping time in minutes.
    static func departments(_ text: String) -> ([(name: String, minutes: Int)], String?) {
        var departments: [(name: String, minutes: Int)] = []
        for (index, line) in text.split(whereSeparator: \.isNewline).enumerated() {
            let line = line.trimmingCharacters(in: .whitespaces)
            guard !line.isEmpty else { continue }
            // Checked before the rest: each line is compared with those before it.
            guard departments.count < 50 else { return ([], "List at most 50 departments.") }
            let parts = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, let minutes = Int(parts[1]), (1...240).contains(minutes), (1...60).contains(parts[0].count)
            else {
                return ([], "Line \(index + 1): write a department's name (at most 60 characters), a comma and its "
                    + "minutes (1 to 240), like \"Bakery, 10\".")
            }
            guard !departments.contains(where: { $0.name.lowercased() == parts[0].lowercased() }) else {
                return ([], "Line \(index + 1): \(parts[0]) is listed twice.")
            }
            departments.append((parts[0], minutes))
        }
        return (departments, nil)
    }

    private func registrationPage(_ context: ManagerContext, values: [String: String], errors: [String: String],
                                  status: Int) -> Response
    {
        func field(_ name: String, _ label: String, _ hint: String, numeric: Bool = false, required: Bool = true,
                   options: [Choice]? = nil, multiline: Bool = false) -> StoreEditPage.Field
        {
            StoreEditPage.Field(name: name, label: label, value: values[name] ?? "", hint: hint, numeric: numeric,
                                required: required, error: errors[name], options: options, multiline: multiline)
        }
        let fields = [
            field("name", "Name", "As shoppers see it."),
            field("address", "Address", "Street, number, postcode and city."),
            field("latitude", "Latitude", "Where the store is, in degrees (Milan's Duomo: 45.4642)."),
            field("longitude", "Longitude", "In degrees (Milan's Duomo: 9.1900)."),
            field("phone", "Phone", "Optional.", required: false),
            field("timeZone", "Time zone", "The zone its opening hours are written in.",
                  options: StoreFields.zoneChoices.map { Choice(value: $0, label: $0, checked: $0 == values["timeZone"]) }),
            field("capacity", "Capacity (people inside at once)", "1 to 10,000.", numeric: true),
            field("walkInPercent", "Share kept for walk-ins (%)", "0 to 90.", numeric: true),
            field("slotMinutes", "Booking slot length", "Can be changed later: bookings already made keep their time.",
                  options: StoreSettings.slotLengths.map {
                      Choice(value: String($0), label: "\($0) min", checked: String($0) == values["slotMinutes"])
                  }),
            field("slotCapacity", "People per booking slot",
                  "1 to 10,000; empty for about half of what the online places let in over a slot.", numeric: true,
                  required: false),
            field("entryBeforeMinutes", "Entry opens before a slot (minutes)", "0 to 60.", numeric: true),
            field("entryAfterMinutes", "Entry closes after a slot starts (minutes)", "0 to 60.", numeric: true),
            field("callGraceMinutes", "Time to reach the door when called (minutes)", "1 to 60.", numeric: true),
            field("departments", "Departments", Self.departmentsHint, required: false, multiline: true),
        ]
        return views.page(title: "Register a store", section: .manage, context,
                          StoreEditPage(storeId: 0, storeName: "", fields: fields, registering: true,
                                        map: (settings.tileURL, settings.tileAttribution)), status: status)
    }
}

extension StoreFields {
    /// The registration form's fields, as its names and `clup admin register-store`'s options
    /// (`walkInPercent` → `--walk-in-percent`) have them.
    public static let registrationFields = ["name", "address", "latitude", "longitude", "phone", "timeZone", "capacity",
                                            "walkInPercent", "slotMinutes", "slotCapacity", "entryBeforeMinutes",
                                            "entryAfterMinutes", "callGraceMinutes", "departments"]

    /// What a new store's form starts with (and the command's defaults): the rules' usual values.
    public static let registrationDefaults: [String: String] = {
        let usual = StoreSettings(capacity: 50)
        return ["timeZone": "Europe/Rome", "capacity": "50", "walkInPercent": String(usual.walkInPercent),
                "slotMinutes": String(usual.slotMinutes), "slotCapacity": "",
                "entryBeforeMinutes": String(usual.entryBeforeMinutes), "entryAfterMinutes": String(usual.entryAfterMinutes),
                "callGraceMinutes": String(usual.callGraceMinutes)]
    }()

    static let zoneChoices = TimeZone.knownTimeZoneIdentifiers.sorted()

    /// Each field's problem, by field name.
    public struct Problems: Error {
        public var errors: [String: String]
    }

    /// A store to register from its fields' text (trimmed), or each field's problem. Applies
    /// the edit form's checks to the fields they share.
    public static func registration(_ values: [String: String])
        -> Result<(NewStore, [(name: String, minutes: Int)]), Problems>
    {
        var errors: [String: String] = [:]
        // Fields left out take their usual value; an empty slot capacity is worked out.
        let values = registrationDefaults.merging(values.filter { $0.key != "slotCapacity" || !$0.value.isEmpty }) { $1 }
        for field in ManageArea.editFields where values[field.name].map({ field.name != "slotCapacity" || !$0.isEmpty }) ?? false {
            errors[field.name] = field.problem(values[field.name] ?? "")
        }
        if !zoneChoices.contains(values["timeZone"] ?? "") { errors["timeZone"] = "Choose a time zone from the list." }
        let (departments, departmentError) = ManageArea.departments(values["departments"] ?? "")
        errors["departments"] = departmentError
        guard errors.isEmpty, let latitude = Double(values["latitude"] ?? ""),
              let longitude = Double(values["longitude"] ?? ""),
              let position = GeoPoint(validLatitude: latitude, longitude: longitude)
        else { return .failure(Problems(errors: errors)) }
        func number(_ name: String) -> Int? { Int(values[name] ?? "") }
        let capacity = number("capacity") ?? 1
        let usual = StoreSettings(capacity: capacity)
        let settings = StoreSettings(
            capacity: capacity, walkInPercent: number("walkInPercent") ?? usual.walkInPercent,
            slotMinutes: number("slotMinutes") ?? usual.slotMinutes, slotCapacity: number("slotCapacity"),
            entryBeforeMinutes: number("entryBeforeMinutes") ?? usual.entryBeforeMinutes,
            entryAfterMinutes: number("entryAfterMinutes") ?? usual.entryAfterMinutes,
            callGraceMinutes: number("callGraceMinutes") ?? usual.callGraceMinutes)
        return .success((NewStore(name: values["name"] ?? "", address: values["address"] ?? "",
                                  phone: values["phone"] ?? "", position: position, capacity: capacity,
                                  timeZone: values["timeZone"] ?? "", settings: settings), departments))
    }

    /// `walkInPercent` → `walk-in-percent`: a field's command-line option.
    public static func option(_ field: String) -> String {
        field.reduce(into: "") { text, character in
            if character.isUppercase { text += "-" + character.lowercased() } else { text.append(character) }
        }
    }
}

extension StoreFields {
    /// Departments from "Bakery, 10" lines, or the problem with them.
    public static func departments(_ text: String) -> (departments: [(name: String, minutes: Int)], problem: String?) {
        let (departments, problem) = ManageArea.departments(text)
        return (departments, problem)
    }
}
