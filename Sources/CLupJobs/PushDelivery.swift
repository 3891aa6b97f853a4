import CLupData
import CLupSupport
import Foundation
import Logging
import Synchronization

/// Where push messages go: an HTTP POST to the subscription's endpoint, answering the status.
public protocol PushTransport: Sendable {
    /// Posts `body` with `headers`; returns the HTTP status, or throws if there was none
    /// (no connection, a timeout).
    func post(to url: URL, headers: [(String, String)], body: [UInt8]) throws -> Int
}

/// Posts with curl, as mail is sent: a slow or dead push service costs a curl process for at
/// most `timeout` seconds (`connectTimeout` to answer the connection), never a request's thread.
public struct CurlPushTransport: PushTransport {
    public var curl = "/usr/bin/curl"
    public var connectTimeout = 3
    public var timeout = 10

    public init() {}

    public func post(to url: URL, headers: [(String, String)], body: [UInt8]) throws -> Int {
        let arguments = ["--silent", "--show-error", "--connect-timeout", String(connectTimeout),
                         "--max-time", String(timeout), "--output", "/dev/null",
                         "--write-out", "%{http_code}", "--request", "POST", "--data-binary", "@-",
                         "--proto", "=https,http"]
            + headers.flatMap { ["--header", "\($0.0): \($0.1)"] } + ["--url", url.absoluteString]
        let run = try ChildProcess.run(curl, arguments, input: body)
        guard run.status == 0, let code = Int(run.text), code > 0 else {
            throw MailError(description: "no answer from the push service (curl exit \(run.status))")
        }
        return code
    }
}

/// Sends the push messages the outbox holds, each on a thread of its own so that a push
/// service that hangs delays nobody else's message. A 2xx answer settles a message; 404 or 410
/// means the browser unsubscribed, so the subscription (and what it had pending) is removed;
/// other failures are retried with a growing delay until the message's lifetime runs out, and
/// a subscription that fails `AppDatabase.pushFailuresAllowed` times in a row is dropped. When
/// the account's last subscription goes, what it had not delivered goes by email
/// (`AppDatabase.mailLostPush`).
///
/// Fair: urgent messages ("leave now", "your turn") go first, and one account has at most
/// `perAccount` messages on their way at once, so an account whose endpoints never answer
/// holds two of the slots, never all of them.
public final class PushDelivery: Sendable {
    public let database: AppDatabase
    public let vapid: VAPIDKey
    public let transport: any PushTransport
    public let logger: Logger
    /// At most this many messages on their way at once.
    public let concurrency: Int
    public let perAccount: Int
    /// Messages on their way, with the account each is for.
    private let inFlight = Mutex<[Int64: User.ID]>([:])

    public init(database: AppDatabase, vapid: VAPIDKey, transport: any PushTransport = CurlPushTransport(),
                logger: Logger, concurrency: Int = 16, perAccount: Int = 2)
    {
        self.database = database
        self.vapid = vapid
        self.transport = transport
        self.logger = logger
        self.concurrency = concurrency
        self.perAccount = perAccount
    }

    /// Starts sending every message due at `now` (returns how many were started). With `wait`,
    /// returns only once they are all answered (for `clup` commands and tests).
    @discardableResult
    public func deliverDue(now: Date, wait: Bool = false) throws -> Int {
        let (room, busy) = inFlight.withLock { flying in
            (concurrency - flying.count, flying.values.reduce(into: [User.ID: Int]()) { $0[$1, default: 0] += 1 })
        }
        guard room > 0 else { return 0 }
        let claimed = try database.notices.claimDuePush(now: now, limit: room, perAccount: perAccount, busy: busy)
        let group = DispatchGroup()
        for (message, subscription) in claimed {
            guard inFlight.withLock({ $0.updateValue(subscription.userId, forKey: message.id) == nil }) else { continue }
            group.enter()
            DispatchQueue.global().async {
                defer {
                    self.inFlight.withLock { _ = $0.removeValue(forKey: message.id) }
                    group.leave()
                }
                self.send(message, to: subscription, now: now)
            }
        }
        if wait { group.wait() }
        return claimed.count
    }

    /// Whether messages are still on their way.
    public var isBusy: Bool { inFlight.withLock { !$0.isEmpty } }

    private func send(_ message: PushMessage, to subscription: PushSubscription, now: Date) {
        do {
            guard let url = URL(string: subscription.endpoint), let p256dh = Secrets.base64urlBytes(subscription.p256dh),
                let auth = Secrets.base64urlBytes(subscription.auth)
            else {
                try database.notices.removePushSubscription(id: subscription.id, now: now)
                return
            }
            let body = try WebPushEncryption.encrypt(Array(message.payload.utf8), p256dh: p256dh, auth: auth)
            let ttl = max(0, Int(message.expiresAt.timeIntervalSince(now)))
            let status = try transport.post(to: url, headers: [
                ("Authorization", try vapid.authorization(for: url, now: now)),
                ("Content-Encoding", "aes128gcm"),
                ("Content-Type", "application/octet-stream"),
                ("TTL", String(ttl)),
                ("Urgency", message.urgency),
            ], body: body)
            switch status {
            case 200..<300:
                try database.notices.markPushSent(id: message.id, now: now)
            case 404, 410:
                logger.info("push subscription \(subscription.id) is gone (\(status)); removed")
                try database.notices.removePushSubscription(id: subscription.id, now: now)
            case 400, 413:
                // The service will never take this message; retrying would not change that.
                logger.warning("push message \(message.id) refused (\(status))")
                try database.notices.markPushFailed(id: message.id, error: "refused: HTTP \(status)", retryAt: message.expiresAt,
                                            now: now)
            default:
                try retry(message, error: "HTTP \(status)", now: now)
            }
        } catch {
            try? retry(message, error: String(describing: error), now: now)
        }
    }

    private func retry(_ message: PushMessage, error: String, now: Date) throws {
        let delay = min(600, 15 * pow(2, Double(max(0, message.attempts - 1))))
        if try database.notices.markPushFailed(id: message.id, error: error, retryAt: now + delay, now: now) {
            logger.warning("push subscription of message \(message.id) failed \(AppDatabase.pushFailuresAllowed) times in a row; dropped")
        } else {
            logger.warning("push message \(message.id) not sent (attempt \(message.attempts)), retrying in \(Int(delay)) s: \(error)")
        }
    }
}
