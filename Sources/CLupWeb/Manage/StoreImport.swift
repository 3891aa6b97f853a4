import CLupData
import CLupDomain
import CLupPaths
import CLupTemplates
import CLupText
import Foundation

/// An administrator imports stores from a CSV file: sent to be checked, every problem comes
/// back by line and nothing is registered; a file that passes lists its stores with a button
/// that imports them; sent to be imported, a file without problems registers every store in
/// one transaction, recorded as registered by the administrator.
extension ManageArea {
    func importForm(_ context: ManagerContext) throws -> Response {
        views.page(title: tr("import.title"), section: .manage, context, StoreImportPage(columns: Self.importColumns))
    }

    func importStores(_ context: ManagerContext) throws -> Response {
        var page = StoreImportPage(columns: Self.importColumns)
        let upload = context.form["file"] ?? ""
        let text = upload.isEmpty ? context.form["csv"] ?? "" : upload
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            page.error = tr("import.noFile")
            return views.page(title: tr("import.title"), section: .manage, context, page, status: 422)
        }
        switch StoreImport.check(text, existing: try database.stores.namesAndAddresses()) {
        case .refused(let problems):
            page.problems = problems.map(\.description)
            return views.page(title: tr("import.title"), section: .manage, context, page, status: 422)
        case .ready(let rows) where context.form["action"] == "import":
            let stores = try database.stores.importStores(rows.map(\.registration), regions: rows.map(\.region),
                                                          userId: context.user.id, now: context.now)
            let closed = rows.filter(\.hours.isEmpty).count
            return .redirect(to: Paths.manage(query: "imported=\(stores.count)&closed=\(closed)"))
        case .ready(let rows):
            page.ready = rows.map { StoreImportPage.Ready(line: $0.line, name: $0.store.name, address: $0.store.address,
                                                          capacity: $0.store.capacity, hasHours: !$0.hours.isEmpty) }
            page.checkedText = text
            return views.page(title: tr("import.title"), section: .manage, context, page)
        }
    }

    /// The columns a file may have, with what each holds, in the visitor's language.
    static var importColumns: [StoreImportPage.Column] {
        StoreImport.columns.map { column in
            let text = switch column {
            case "departments": tr("import.departmentsColumn")
            case "region": tr("import.regionColumn")
            case _ where StoreImport.weekdays.contains(column):
                tr("import.dayColumn", ["day": Formatting.weekday((StoreImport.weekdays.firstIndex(of: column) ?? 0) + 1)])
            case "slotCapacity": tr("storeField.slotCapacity") + ". " + tr("registration.slotCapacityHint")
            case "timeZone", "walkInPercent", "slotMinutes", "entryBeforeMinutes", "entryAfterMinutes",
                 "callGraceMinutes", "largestParty":
                tr("storeField.\(column)") + ". " + tr("import.usual", ["value": StoreFields.registrationDefaults[column] ?? ""])
            default: tr("storeField.\(column)") + ". " + tr("storeField.\(column).hint")
            }
            return StoreImportPage.Column(name: column, text: text, required: StoreImport.requiredColumns.contains(column))
        }
    }
}

/// A chain's stores from a CSV file: a first line naming the columns (the registration form's
/// fields, in any order, and the weekdays' hours), then one store a line, each checked as the
/// registration form checks it. A file imports whole or not at all: every problem is listed
/// with its line, so one pass over the file mends them all.
public enum StoreImport {
    /// A store ready to register and the line it came from.
    public struct Row: Sendable {
        public var line: Int
        public var store: NewStore
        public var hours: [OpeningInterval]
        public var departments: [(name: String, minutes: Int)]
        /// The region it goes in (made if the chain has none of that name), if any.
        public var region: String?

        public var registration: AppDatabase.StoreRegistration { (store, hours, departments) }
    }

    /// What is wrong on one line of the file (line 1 is the columns' names).
    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        public var line: Int
        public var text: String

        public var description: String { tr("import.problemLine", ["line": String(line), "problem": text]) }
    }

    /// The most stores one file may hold: a large chain's, checked in about a second.
    public static let maxStores = 5_000

    static let weekdays = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
    /// Every column a file may have, by the registration form's names, and the store's region.
    public static let columns = StoreFields.registrationFields + weekdays + ["region"]
    /// The columns a file must have: the registration form's required fields without a usual value.
    public static let requiredColumns = ["name", "address", "latitude", "longitude", "capacity"]

    /// The stores in `text`, checked line by line and against `existing` stores (a store is
    /// known by its name and address, so a file imported twice is refused the second time),
    /// or every problem found.
    public static func check(_ text: String, existing: [(id: StoreID, name: String, address: String)]) -> Checked {
        let records: [CSV.Record]
        do {
            records = try CSV.records(text)
        } catch {
            return .refused([Problem(line: error.line, text: tr("import.unclosedQuote"))])
        }
        guard let header = records.first else { return .refused([Problem(line: 1, text: tr("import.empty"))]) }
        let (columns, headerProblems) = columnNames(header.fields)
        guard headerProblems.isEmpty else { return .refused(headerProblems) }
        let lines = records.dropFirst().filter { !$0.fields.allSatisfy(\.isEmpty) }
        guard !lines.isEmpty else { return .refused([Problem(line: 1, text: tr("import.noStores"))]) }
        guard lines.count <= maxStores else {
            return .refused([Problem(line: lines[lines.startIndex + maxStores].line,
                                     text: tr("import.tooMany", ["n": String(maxStores)]))])
        }
        var known: [String: String] = [:]
        for store in existing { known[key(store.name, store.address)] = tr("import.registered", ["id": String(store.id.rawValue)]) }
        var rows: [Row] = []
        var problems: [Problem] = []
        for record in lines {
            guard record.fields.count == columns.count else {
                problems.append(Problem(line: record.line, text: tr("import.fieldCount", [
                    "n": String(record.fields.count), "columns": String(columns.count)])))
                continue
            }
            let values = Dictionary(zip(columns, record.fields)) { first, _ in first }
            let (row, found) = Self.row(values, line: record.line)
            problems += found.map { Problem(line: record.line, text: $0) }
            if let row {
                let storeKey = key(row.store.name, row.store.address)
                if let earlier = known[storeKey] {
                    problems.append(Problem(line: record.line, text: earlier))
                } else {
                    known[storeKey] = tr("import.twice", ["line": String(record.line)])
                    rows.append(row)
                }
            }
        }
        return problems.isEmpty ? .ready(rows) : .refused(problems)
    }

    /// What a file holds: stores ready to register, or every problem found.
    public enum Checked {
        case ready([Row])
        case refused([Problem])
    }

    /// The registration field each header names, in order, or what is wrong with the header.
    /// A column is named by its field ("walkInPercent"), its option ("walk-in-percent") or either
    /// in any case and with spaces ("Walk in percent").
    static func columnNames(_ header: [String]) -> (columns: [String], problems: [Problem]) {
        let byName = Dictionary(uniqueKeysWithValues: columns.map { (normalized($0), $0) })
        var named: [String] = []
        var problems: [Problem] = []
        for title in header {
            guard let column = byName[normalized(title)] else {
                problems.append(Problem(line: 1, text: tr("import.unknownColumn", [
                    "column": title, "columns": columns.joined(separator: ", ")])))
                continue
            }
            if named.contains(column) { problems.append(Problem(line: 1, text: tr("import.columnTwice", ["column": title]))) }
            named.append(column)
        }
        let missing = requiredColumns.filter { !named.contains($0) }
        if !missing.isEmpty {
            problems.append(Problem(line: 1, text: tr("import.missingColumns", ["columns": missing.joined(separator: ", ")])))
        }
        return (named, problems)
    }

    /// One line's store, or each of its problems as "Capacity: Enter a number from 1 to 10000."
    static func row(_ values: [String: String], line: Int) -> (Row?, [String]) {
        var fields = values.filter { StoreFields.registrationFields.contains($0.key) }
        // Departments are separated by semicolons on one line, as on the command line.
        fields["departments"] = fields["departments"].map { $0.split(separator: ";").joined(separator: "\n") }
        // Spreadsheets set to Italian write a decimal comma ("45,4642").
        for field in ["latitude", "longitude"] {
            if let value = fields[field], !value.contains("."), value.filter({ $0 == "," }).count == 1 {
                fields[field] = value.replacingOccurrences(of: ",", with: ".")
            }
        }
        // An empty cell of a column with a usual value takes it; a store's capacity must be given.
        fields = fields.filter { !$0.value.isEmpty || $0.key == "capacity" || StoreFields.registrationDefaults[$0.key] == nil }
        var problems: [String] = []
        var registered: (NewStore, [(name: String, minutes: Int)])?
        switch StoreFields.registration(fields) {
        case .failure(let found):
            problems += StoreFields.registrationFields.compactMap { field in
                found.errors[field].map { "\(tr("storeField.\(field)")): \($0)" }
            }
        case .success(let store):
            registered = store
        }
        let (hours, dayErrors) = StoreFields.week(text: weekdays.map { values[$0] ?? "" })
        for (index, error) in dayErrors.enumerated() {
            if let error { problems.append("\(Formatting.weekday(index + 1)): \(error)") }
        }
        let region = (values["region"] ?? "").trimmingCharacters(in: .whitespaces)
        if let problem = ManageArea.textProblem(region, maxLength: 60) { problems.append("\(tr("change.region")): \(problem)") }
        guard problems.isEmpty, let (store, departments) = registered else { return (nil, problems) }
        return (Row(line: line, store: store, hours: hours, departments: departments, region: region.isEmpty ? nil : region), [])
    }

    /// "walk-in percent" → "walkinpercent": how a header is matched to a column.
    static func normalized(_ title: String) -> String {
        String(title.lowercased().unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) }.map(Character.init))
    }

    /// A store's name and address as compared: case and runs of spaces do not count.
    static func key(_ name: String, _ address: String) -> String {
        [name, address].map { $0.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ") }
            .joined(separator: "\n")
    }
}

extension CSV {
    /// A record of a CSV file and the line it starts on (a quoted field may span lines).
    struct Record: Equatable {
        var line: Int
        var fields: [String]
    }

    /// A quoted field still open at the end of the file, from `line`.
    struct UnclosedQuote: Error, Equatable {
        var line: Int
    }

    /// The records of `text` (RFC 4180, as spreadsheets write it): fields separated by the
    /// separator the first line uses most — a comma, a semicolon (Italian spreadsheets) or a
    /// tab — a field in double quotes holding separators, line breaks and `""` for a quote;
    /// lines ending in CRLF, LF or CR; each field trimmed of spaces.
    static func records(_ text: String) throws(UnclosedQuote) -> [Record] {
        let scalars = Array(text.unicodeScalars.drop { $0 == "\u{FEFF}" })
        let separator = Self.separator(scalars)
        var records: [Record] = []
        var fields: [String] = []
        var field = String.UnicodeScalarView()
        var line = 1
        var recordLine = 1
        var quoted = false
        var quoteLine = 1
        var index = 0
        func endField() {
            fields.append(String(field).trimmingCharacters(in: .whitespaces))
            field = String.UnicodeScalarView()
        }
        func endRecord() {
            endField()
            records.append(Record(line: recordLine, fields: fields))
            fields = []
        }
        while index < scalars.count {
            let scalar = scalars[index]
            index += 1
            if quoted {
                if scalar == "\"" {
                    if index < scalars.count, scalars[index] == "\"" {
                        field.append("\"")
                        index += 1
                    } else {
                        quoted = false
                    }
                } else {
                    if scalar == "\n" || (scalar == "\r" && (index == scalars.count || scalars[index] != "\n")) { line += 1 }
                    field.append(scalar)
                }
                continue
            }
            switch scalar {
            case "\"" where String(field).allSatisfy(\.isWhitespace):
                field = String.UnicodeScalarView()
                quoted = true
                quoteLine = line
            case separator:
                endField()
            case "\r", "\n":
                if scalar == "\r", index < scalars.count, scalars[index] == "\n" { index += 1 }
                endRecord()
                line += 1
                recordLine = line
            default:
                field.append(scalar)
            }
        }
        if quoted { throw UnclosedQuote(line: quoteLine) }
        if !fields.isEmpty || !String(field).isEmpty { endRecord() }
        return records
    }

    /// The separator the first line uses most, outside quotes: `,`, `;` or a tab (`,` if none).
    private static func separator(_ scalars: [Unicode.Scalar]) -> Unicode.Scalar {
        var counts: [Unicode.Scalar: Int] = [",": 0, ";": 0, "\t": 0]
        var quoted = false
        for scalar in scalars {
            if scalar == "\"" { quoted.toggle() }
            if !quoted, scalar == "\n" || scalar == "\r" { break }
            if !quoted, counts[scalar] != nil { counts[scalar]! += 1 }
        }
        return [",", ";", "\t"].max { counts[$0]! < counts[$1]! }!
    }
}
