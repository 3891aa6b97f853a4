import CLupData
import CLupDomain
import CLupJobs
import CLupSupport
import Foundation
import Mustache

struct SignUpPage {
    var email = ""
    var displayName = ""
    var emailError: String?
    var displayNameError: String?
    var passwordError: String?

    var hasErrors: Bool { emailError != nil || displayNameError != nil || passwordError != nil }
}

struct SignInPage {
    var email = ""
    var next = "/"
    var error: String?
}

struct ConfirmPage {
    var token: String
}

struct ForgotPage {
    var email = ""
    var error: String?
}

struct ResetPage {
    var token: String
    var error: String?
}

/// A short page that reports what happened and offers the next step.
struct MessagePage {
    var title: String
    var lines: [String]
    var link: (label: String, href: String)
}

struct AccountPage {
    struct ModeChoice {
        var key: String
        var label: String
        var selected: Bool
    }

    var email: String
    var displayName: String
    var confirmed: Bool
    var modes: [ModeChoice]
    var loyaltyOptIn: Bool
    var notice: String?
    var displayNameError: String?
    var passwordError: String?
    var deleteError: String?

    init(user: User) {
        email = user.email
        displayName = user.displayName
        confirmed = user.isConfirmed
        modes = TravelMode.allCases.map { ModeChoice(key: $0.rawValue, label: $0.label, selected: $0 == user.travelMode) }
        loyaltyOptIn = user.loyaltyOptIn
    }
}

// MARK: - Template fields

extension SignUpPage: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "email": email
        case "displayName": displayName
        case "emailError": emailError
        case "displayNameError": displayNameError
        case "passwordError": passwordError
        default: nil
        }
    }
}

extension SignInPage: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "email": email
        case "next": next
        case "error": error
        default: nil
        }
    }
}

extension ConfirmPage: MustacheParent {
    func child(named key: String) -> Any? {
        key == "token" ? token : nil
    }
}

extension ForgotPage: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "email": email
        case "error": error
        default: nil
        }
    }
}

extension ResetPage: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "token": token
        case "error": error
        default: nil
        }
    }
}

extension MessagePage: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "title": title
        case "lines": lines
        case "linkLabel": link.label
        case "linkHref": link.href
        default: nil
        }
    }
}

extension AccountPage: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "email": email
        case "displayName": displayName
        case "confirmed": confirmed
        case "modes": modes
        case "loyaltyOptIn": loyaltyOptIn
        case "notice": notice
        case "displayNameError": displayNameError
        case "passwordError": passwordError
        case "deleteError": deleteError
        default: nil
        }
    }
}

extension AccountPage.ModeChoice: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "key": self.key
        case "label": label
        case "selected": selected
        default: nil
        }
    }
}
