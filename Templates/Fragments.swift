import CLupText

/// A label and its value, for recaps, tickets and receipts.
public struct Fact: Sendable, Equatable {
    public var label: String
    public var value: String

    public init(_ label: String, _ value: String) {
        self.label = label
        self.value = value
    }
}

/// One option of a radio group, checkbox list or select.
public struct Choice: Sendable, Equatable {
    public var value: String
    public var label: String
    public var checked: Bool
    /// Shown, but not possible to choose (its label says why).
    public var disabled: Bool

    public init(value: String, label: String, checked: Bool, disabled: Bool = false) {
        self.value = value
        self.label = label
        self.checked = checked
        self.disabled = disabled
    }
}

/// A form field the person does not see, carried from step to step.
public struct HiddenField: Sendable, Equatable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// Another store or slot to offer, ready to show.
public struct SuggestionRow: Sendable, Equatable {
    public var name: String
    public var detail: String
    public var href: String

    public init(name: String, detail: String, href: String) {
        self.name = name
        self.detail = detail
        self.href = href
    }
}

/// A QR code as an SVG path of its dark modules, `side` modules square with the quiet zone.
public struct QRDrawing: Sendable, Equatable {
    public var side: Int
    public var path: String

    public init(side: Int, path: String) {
        self.side = side
        self.path = path
    }
}

/// Pieces several pages share.
enum Fragments {
    static func hidden(_ fields: [HiddenField]) -> HTML {
        HTML.joined(fields.map { "<input type=\"hidden\" name=\"\($0.name)\" value=\"\($0.value)\">" })
    }

    /// `<dl>` rows of label and value.
    static func facts(_ facts: [Fact]) -> HTML {
        HTML.joined(facts.map { "<div><dt>\($0.label)</dt><dd>\($0.value)</dd></div>" })
    }

    /// Radio buttons (or checkboxes) of `name`, each in its own label of class `style`.
    static func options(_ choices: [Choice], name: String, type: String = "radio", style: String = "check",
                        required: Bool = false) -> HTML
    {
        """
        \(choices.map { choice in
            "<label class=\"\(style)\"><input type=\"\(type)\" name=\"\(name)\" value=\"\(choice.value)\"\(if: choice.checked, " checked")\(if: choice.disabled, " disabled")\(if: required, " required")> \(choice.label)</label>"
        })
        """
    }

    /// `<option>`s of a select.
    static func selectOptions(_ choices: [Choice]) -> HTML {
        HTML.joined(choices.map { "<option value=\"\($0.value)\"\(if: $0.checked, " selected")>\($0.label)</option>" })
    }

    static func suggestions(_ rows: [SuggestionRow]) -> HTML {
        """
        <ul class="suggestions">
          \(rows.map { "<li><a href=\"\($0.href)\"><strong>\($0.name)</strong> <span class=\"fine\">\($0.detail)</span></a></li>" })
        </ul>
        """
    }

    static func qr(_ code: QRDrawing, label: String) -> HTML {
        """
        <svg viewBox="0 0 \(code.side) \(code.side)" role="img" aria-label="\(label)" shape-rendering="crispEdges"><rect width="\(code.side)" height="\(code.side)" fill="#fff"/><path d="\(code.path)" fill="#000"/></svg>
        """
    }

    /// `aria-invalid` and `aria-describedby` for a field with an error message.
    static func invalid(_ error: String?, describedBy id: String) -> HTML {
        error == nil ? .empty : " aria-invalid=\"true\" aria-describedby=\"\(id)\""
    }

    static func fieldError(_ error: String?, id: String) -> HTML {
        error.map { "<p class=\"field-error\" id=\"\(id)\">\($0)</p>" } ?? .empty
    }

    /// One labelled input of a form, `prefix-name` its id: its value, a hint under it if any,
    /// and its error (described by the error when there is one, else by the hint).
    static func inputField(_ name: String, prefix: String, type: String, label: String, value: String, required: Bool,
                           hint: String? = nil, error: String?, extra: HTML = .empty) -> HTML
    {
        let id = "\(prefix)-\(name)"
        let described = error != nil ? "\(id)-error" : hint == nil ? nil : "\(id)-hint"
        let describedBy: HTML = described.map { " aria-describedby=\"\($0)\"" } ?? .empty
        let hintLine: HTML = hint.map { "<p class=\"fine\" id=\"\(id)-hint\">\($0)</p>" } ?? .empty
        return """
            <div class="field">
              <label for="\(id)">\(label)</label>
              <input id="\(id)" name="\(name)" type="\(type)" value="\(value)"\(extra)\(if: required, " required")\(describedBy)\(if: error != nil, " aria-invalid=\"true\"")>
              \(hintLine)
              \(fieldError(error, id: "\(id)-error"))
            </div>
            """
    }

    /// A closure or special-hours form's field (prefix "closure" or "special"): a date within
    /// `range` (min, max), or a reason of at most 100 characters.
    static func dayFormField(_ name: String, prefix: String, type: String, label: String, required: Bool,
                             hint: String? = nil, values: [String: String], errors: [String: String],
                             range: (String, String)) -> HTML
    {
        let limits: HTML = type == "date" ? " min=\"\(range.0)\" max=\"\(range.1)\"" : " maxlength=\"100\""
        return inputField(name, prefix: prefix, type: type, label: label, value: values[name] ?? "", required: required,
                          hint: hint, error: errors[name], extra: limits)
    }

    /// A special day's one or two openings: four time fields (`opens-a`, `closes-a`,
    /// `opens-b`, `closes-b`) in a fieldset, with the day's problem under them.
    static func openingFields(prefix: String, values: [String: String], error: String?) -> HTML {
        let id = "\(prefix)-hours"
        let invalid: HTML = error == nil ? .empty : " aria-invalid=\"true\" aria-describedby=\"\(id)-error\""
        func time(_ name: String, _ label: String) -> HTML {
            """
            <div class="field"><label for="\(prefix)-\(name)">\(label)</label><input type="time" id="\(prefix)-\(name)" name="\(name)" value="\(values[name] ?? "")"\(invalid)></div>
            """
        }
        return """
            <fieldset class="openings">
              <legend>\(tr("special.hoursThatDay"))</legend>
              <div class="opening">\(time("opens-a", tr("hours.opens")))\(time("closes-a", tr("hours.closes")))</div>
              <div class="opening">\(time("opens-b", tr("hours.opensAgain")))\(time("closes-b", tr("hours.closes")))</div>
              <p class="fine">\(tr("special.hoursHint"))</p>
              \(fieldError(error, id: "\(id)-error"))
            </fieldset>
            """
    }

    static func formError(_ error: String?, role: String = "alert") -> HTML {
        error.map { "<p class=\"form-error\" role=\"\(role)\">\($0)</p>" } ?? .empty
    }

    static func notice(_ notice: String?) -> HTML {
        notice.map { "<p class=\"notice\" role=\"status\">\($0)</p>" } ?? .empty
    }
}
