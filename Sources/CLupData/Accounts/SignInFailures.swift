import CLupDomain
import CLupSupport
import Foundation

/// Failed sign-ins, remembered for an hour to throttle guessing.
extension Accounts {
    /// Seconds `clientAddress` must wait before trying `account` again (`SignInThrottle`, over
    /// the failures it remembers), or nil if it may try now. Accounts' sign-ins and staff PINs
    /// at a kiosk are throttled alike.
    public func signInWait(account: String, clientAddress: String, now: Date) throws -> TimeInterval? {
        let history = try signInFailures(account: account, clientAddress: clientAddress, since: now - SignInThrottle.memory)
        return SignInThrottle.wait(history: history, now: now)
    }

    /// Failed sign-ins since `since`: for the address typed from this client, for that address
    /// from anywhere, and from this client for any address.
    public func signInFailures(account typed: String, clientAddress: String, since: Date) throws -> SignInHistory {
        let account = LookupKey.account(typed)
        return try database.reading { transaction in
            var history = SignInHistory(pair: [], account: [], client: [])
            for row in try transaction.rows("""
                SELECT account = \(account), clientAddress = \(clientAddress), at FROM signInFailure
                WHERE at >= \(since) AND (account = \(account) OR clientAddress = \(clientAddress)) ORDER BY at
                """)
            {
                let (sameAccount, sameClient, at) = try (row.decode(0, as: Bool.self), row.decode(1, as: Bool.self),
                                                         row.decode(2, as: Date.self))
                if sameAccount && sameClient { history.pair.append(at) }
                if sameAccount { history.account.append(at) }
                if sameClient { history.client.append(at) }
            }
            return history
        }
    }

    /// Records a failure and forgets those older than an hour. The account typed is kept as
    /// its keyed hash: what a stranger typed is nobody's business, and never shown.
    public func recordSignInFailure(account typed: String, clientAddress: String, now: Date) throws {
        let account = LookupKey.account(typed)
        try database.transaction { transaction in
            // A client's address (IPv6 with a zone) is well under 64 characters, whatever the caller passes.
            try transaction.execute("""
                INSERT INTO signInFailure (account, clientAddress, at)
                VALUES (\(account), \(String(clientAddress.prefix(64))), \(now))
                """)
            try transaction.execute("DELETE FROM signInFailure WHERE at < \(now - SignInThrottle.memory)")
        }
    }

    /// A successful sign-in forgives the failures of that address from that client.
    public func clearSignInFailures(account typed: String, clientAddress: String) throws {
        let account = LookupKey.account(typed)
        try database.transaction { transaction in
            try transaction.execute("""
                DELETE FROM signInFailure WHERE account = \(account) AND clientAddress = \(clientAddress)
                """)
        }
    }
}
