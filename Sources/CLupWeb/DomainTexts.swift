import CLupDomain
import CLupText

// The words for the domain's values, in the current language: the domain names things, the
// pages say them.

extension TrafficLight.Reason {
    /// Why the light shows what it shows, read at a glance: "No wait", "Closing soon".
    var text: String {
        switch self {
        case .shortWait: tr("light.shortWait")
        case .mediumWait: tr("light.mediumWait")
        case .longWait: tr("light.longWait")
        case .closed: tr("hours.closed")
        case .closingSoon: tr("light.closingSoon")
        case .full: tr("wait.notTaking")
        }
    }
}

extension TravelMode {
    /// "On foot", "Car", "Public transport".
    var label: String { tr("mode.\(rawValue)") }

    /// "on foot", "by car": completes "12 min …".
    var phrase: String { tr("mode.\(rawValue).phrase") }
}

extension Place {
    /// The place's name in the current language where it has one ("Duomo (city centre)").
    var localizedName: String { Catalogue.text("place.\(key)") ?? name }
}
