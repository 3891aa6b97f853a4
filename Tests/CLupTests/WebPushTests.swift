import Crypto
import Foundation
import GRDB
import Logging
import Synchronization
import Testing

@testable import CLupData
@testable import CLupJobs
@testable import CLupSupport
@testable import CLupWeb

/// Web Push: the encryption against RFC 8291's worked example, the VAPID header, and delivery
/// — a gone subscription removed, a hanging push service delaying nobody else.
@Suite("Web Push")
struct WebPushTests {
    func bytes(_ base64url: String) throws -> [UInt8] { try require(Secrets.base64urlBytes(base64url)) }

    @Test("encryption gives RFC 8291's worked example (appendix A) byte for byte")
    func rfcExample() throws {
        let serverKey = try P256.KeyAgreement.PrivateKey(
            rawRepresentation: try bytes("yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"))
        let body = try WebPushEncryption.encrypt(
            Array("When I grow up, I want to be a watermelon".utf8),
            p256dh: try bytes("BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"),
            auth: try bytes("BTBZMqHH6r4Tts7J_aSIgg"), serverKey: serverKey, salt: try bytes("DGv6ra1nlYgDCS1FRnbzlw"))
        #expect(Secrets.base64url(body) == "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN")
    }

    @Test("each message has its own key and salt, and a key that is not P-256 is refused")
    func freshKeys() throws {
        let browser = P256.KeyAgreement.PrivateKey()
        let p256dh = Array(browser.publicKey.x963Representation)
        let auth = [UInt8](repeating: 9, count: 16)
        let first = try WebPushEncryption.encrypt(Array("hello".utf8), p256dh: p256dh, auth: auth)
        let second = try WebPushEncryption.encrypt(Array("hello".utf8), p256dh: p256dh, auth: auth)
        #expect(first.prefix(16) != second.prefix(16) && first.dropFirst(21).prefix(65) != second.dropFirst(21).prefix(65))
        #expect(throws: WebPushEncryption.Failure.self) {
            try WebPushEncryption.encrypt([1], p256dh: [4] + [UInt8](repeating: 0, count: 64), auth: auth)
        }
        #expect(throws: WebPushEncryption.Failure.self) {
            try WebPushEncryption.encrypt([UInt8](repeating: 0, count: 4000), p256dh: p256dh, auth: auth)
        }
    }

    @Test("the VAPID header is an ES256 JWT for the push service's origin that verifies with the public key")
    func vapid() throws {
        let key = try VAPIDKey(privateKey: VAPIDKey.generatePrivateKey(), subject: "mailto:ops@example.org")
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let header = try key.authorization(for: try require(URL(string: "https://push.example.net:8443/send/abc")), now: now)
        let match = try require(header.firstMatch(of: /^vapid t=([^.]+)\.([^.]+)\.([^,]+), k=(.+)$/))
        #expect(String(match.4) == key.publicKey)
        let claims = try JSONSerialization.jsonObject(with: Data(try bytes(String(match.2)))) as? [String: Any]
        #expect(claims?["aud"] as? String == "https://push.example.net:8443")
        #expect(claims?["exp"] as? Int == 1_800_000_000 + 12 * 3600)
        #expect(claims?["sub"] as? String == "mailto:ops@example.org")
        let publicKey = try P256.Signing.PublicKey(x963Representation: try bytes(key.publicKey))
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: try bytes(String(match.3)))
        #expect(publicKey.isValidSignature(signature, for: Data("\(match.1).\(match.2)".utf8)))
        #expect(throws: VAPIDKey.Failure.self) { try VAPIDKey(privateKey: "short", subject: "mailto:x@example.org") }
    }

    /// A push service: answers each endpoint as told, or hangs until released.
    final class FakeService: PushTransport {
        let answers: [String: Int]
        let hang = DispatchSemaphore(value: 0)
        let received = Mutex<[(url: String, headers: [(String, String)], body: [UInt8])]>([])

        init(answers: [String: Int]) { self.answers = answers }

        func post(to url: URL, headers: [(String, String)], body: [UInt8]) throws -> Int {
            received.withLock { $0.append((url.absoluteString, headers, body)) }
            guard let status = answers[url.absoluteString] else {
                hang.wait()
                throw MailError(description: "timed out")
            }
            return status
        }
    }

    /// A push message due at `now`, for `lifetime` seconds, as `dispatchNotices` queues one.
    static func queue(_ payload: String, to subscription: Int64, urgency: String, at now: Date, for lifetime: TimeInterval,
                      _ database: AppDatabase) throws
    {
        try database.execute(sql: """
            INSERT INTO pushMessage (pushSubscriptionId, payload, urgency, createdAt, expiresAt, nextAttemptAt)
            VALUES (?, ?, ?, ?, ?, ?)
            """, subscription, payload, urgency, now, now + lifetime, now)
    }

    @Test("security: an account at the subscription cap with every endpoint a black hole delays no one else's urgent push")
    func fairDelivery() throws {
        let database = try Fixture.database()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let attacker = try database.accounts.createUser(email: "mallory@example.org", displayName: "M", passwordHash: "x", now: now,
                                               confirmation: nil)
        let victim = try database.accounts.createUser(email: "ada@example.org", displayName: "Ada", passwordHash: "x", now: now,
                                             confirmation: nil)
        let key = Secrets.base64url(Array(P256.KeyAgreement.PrivateKey().publicKey.x963Representation))
        let auth = Secrets.base64url([UInt8](repeating: 3, count: 16))
        // Forty subscriptions asked for; five kept, the newest.
        for index in 1...40 {
            #expect(try database.notices.savePushSubscription(userId: attacker.id, endpoint: "https://hole.example/\(index)",
                                                      p256dh: key, auth: auth, now: now) == .saved)
        }
        let holes = try database.notices.pushSubscriptions(userId: attacker.id)
        #expect(holes.map(\.endpoint) == (36...40).map { "https://hole.example/\($0)" })
        // Nor can the attacker take over the victim's browser.
        #expect(try database.notices.savePushSubscription(userId: victim.id, endpoint: "https://ok.example/ada", p256dh: key,
                                                  auth: auth, now: now) == .saved)
        #expect(try database.notices.savePushSubscription(userId: attacker.id, endpoint: "https://ok.example/ada", p256dh: key,
                                                  auth: auth, now: now) == .anotherAccounts)
        let victimSubscription = try require(try database.notices.pushSubscriptions(userId: victim.id).first)
        // Twenty notices for the attacker (100 messages, all urgent), then the victim's "leave now".
        for _ in 1...20 {
            for hole in holes { try Self.queue("{}", to: hole.id, urgency: "high", at: now, for: 3600, database) }
        }
        try Self.queue(#"{"title":"Leave now"}"#, to: victimSubscription.id, urgency: "high", at: now, for: 600, database)
        let service = FakeService(answers: ["https://ok.example/ada": 201])
        let delivery = PushDelivery(database: database, vapid: try VAPIDKey(privateKey: VAPIDKey.generatePrivateKey(),
                                                                            subject: "mailto:ops@example.org"),
                                    transport: service, logger: Logger(label: "test"))
        // The first round already sends the victim's, beside two of the attacker's (which hang).
        #expect(try delivery.deliverDue(now: now) == 3)
        let deadline = Date() + 10
        while try database.notices.pushMessages(subscriptionId: victimSubscription.id).first?.sentAt == nil, Date() < deadline {
            usleep(10_000)
        }
        #expect(try database.notices.pushMessages(subscriptionId: victimSubscription.id).first?.sentAt == now)
        // Later rounds add nothing of the attacker's while two of theirs are on their way.
        #expect(try delivery.deliverDue(now: now + 1) == 0)
        service.hang.signal()
        service.hang.signal()
        while delivery.isBusy { usleep(10_000) }
    }

    @Test("security: a subscription failing five times in a row is dropped, with what it had pending")
    func failingSubscriptionDropped() throws {
        let database = try Fixture.database()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let user = try database.accounts.createUser(email: "ada@example.org", displayName: "Ada", passwordHash: "x", now: now,
                                           confirmation: nil)
        let key = Secrets.base64url(Array(P256.KeyAgreement.PrivateKey().publicKey.x963Representation))
        _ = try database.notices.savePushSubscription(userId: user.id, endpoint: "https://down.example/1", p256dh: key,
                                              auth: Secrets.base64url([UInt8](repeating: 3, count: 16)), now: now)
        let subscription = try require(try database.notices.pushSubscriptions(userId: user.id).first)
        try Self.queue("{}", to: subscription.id, urgency: "normal", at: now, for: 86400, database)
        let message = try require(try database.notices.pushMessages(subscriptionId: subscription.id).first)
        for attempt in 1...4 {
            #expect(try database.notices.markPushFailed(id: message.id, error: "HTTP 500", retryAt: now, now: now) == false, "\(attempt)")
        }
        #expect(try database.notices.markPushFailed(id: message.id, error: "HTTP 500", retryAt: now, now: now) == true)
        #expect(try database.notices.pushSubscriptions(userId: user.id).isEmpty)
        #expect(try database.notices.pushMessages(subscriptionId: subscription.id).isEmpty)
    }

    @Test("security: push endpoints are checked as the sender reads them, and kept in that form", arguments: [
        ("https://fcm.googleapis.com/fcm/send/abc:DEF-123_x", "https://fcm.googleapis.com/fcm/send/abc:DEF-123_x"),
        ("https://FCM.googleapis.com:443/fcm/send/x", "https://fcm.googleapis.com/fcm/send/x"),
        ("https://wns2-par02p.notify.windows.com/w/?token=BQY%2bAA", "https://wns2-par02p.notify.windows.com/w/?token=BQY%2bAA"),
        ("https://127.0.0.1%2F.fcm.googleapis.com/", nil),
        ("https://user@fcm.googleapis.com/x", nil),
        ("https://fcm.googleapis.com:8443/x", nil),
        ("https://fcm.googleapis.com.evil.example/x", nil),
        ("https://evilfcm.googleapis.com.example/x", nil),
        ("http://fcm.googleapis.com/x", nil),
        ("https://fcm.googleapis.com/x#frag", nil),
        ("https://fcm.googleapis.com/x%zz", nil),
        ("https://fcm.googleapis.com/a b", nil),
        ("https://-bad.fcm.googleapis.com/x", nil),
        ("https://fcm.googleapis.com", nil),
        ("http://127.0.0.1:9/push", nil),
    ] as [(String, String?)])
    func endpoints(endpoint: String, kept: String?) {
        let settings = SiteSettings()
        #expect(settings.pushEndpoint(endpoint) == kept)
    }

    @Test("delivery: 201 settles, 410 removes the subscription, and a push service that hangs delays nobody else")
    func delivery() throws {
        let database = try Fixture.database()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let user = try database.accounts.createUser(email: "ada@example.org", displayName: "Ada", passwordHash: "x", now: now,
                                           confirmation: nil)
        let browser = P256.KeyAgreement.PrivateKey()
        let p256dh = Secrets.base64url(Array(browser.publicKey.x963Representation))
        let auth = Secrets.base64url([UInt8](repeating: 3, count: 16))
        for endpoint in ["https://ok.example/1", "https://gone.example/2", "https://slow.example/3"] {
            try database.notices.savePushSubscription(userId: user.id, endpoint: endpoint, p256dh: p256dh, auth: auth, now: now)
        }
        let subscriptions = try database.notices.pushSubscriptions(userId: user.id)
        for subscription in subscriptions {
            try Self.queue(#"{"title":"It is your turn"}"#, to: subscription.id, urgency: "high", at: now, for: 600, database)
        }
        let service = FakeService(answers: ["https://ok.example/1": 201, "https://gone.example/2": 410])
        let delivery = PushDelivery(database: database, vapid: try VAPIDKey(privateKey: VAPIDKey.generatePrivateKey(),
                                                                            subject: "mailto:ops@example.org"),
                                    transport: service, logger: Logger(label: "test"), perAccount: 3)
        #expect(try delivery.deliverDue(now: now) == 3)
        // The two that answer are settled while the third still hangs.
        let deadline = Date() + 10
        while try database.notices.pushMessages(subscriptionId: subscriptions[0].id).first?.sentAt == nil
            || database.notices.pushSubscriptions(userId: user.id).count != 2
        {
            #expect(Date() < deadline)
            if Date() >= deadline { break }
            usleep(10_000)
        }
        #expect(delivery.isBusy)
        #expect(try database.notices.pushSubscriptions(userId: user.id).map(\.endpoint) == ["https://ok.example/1", "https://slow.example/3"])
        // The one in flight is not taken twice.
        #expect(try delivery.deliverDue(now: now + 1) == 0)
        service.hang.signal()
        while delivery.isBusy { usleep(10_000) }
        let retried = try require(try database.notices.pushMessages(subscriptionId: subscriptions[2].id).first)
        #expect(retried.sentAt == nil && retried.nextAttemptAt == now + 15 && retried.lastError?.contains("timed out") == true)

        // What went out is what RFC 8291 says: decrypted with the browser's key, the payload.
        let sent = try require(service.received.withLock { $0.first { $0.url == "https://ok.example/1" } })
        #expect(sent.headers.contains { $0 == ("Content-Encoding", "aes128gcm") })
        #expect(sent.headers.contains { $0 == ("Urgency", "high") } && sent.headers.contains { $0 == ("TTL", "600") })
        #expect(try Self.decrypt(sent.body, with: browser, auth: [UInt8](repeating: 3, count: 16))
            == Array(#"{"title":"It is your turn"}"#.utf8))
        // Settled messages are forgotten after a while; the one still to retry is kept.
        #expect(try database.notices.purgeSettledPush(before: now + 1) == 1)
        #expect(try database.notices.pushMessages(subscriptionId: subscriptions[2].id).count == 1)
    }

    /// What the browser does with a message (RFC 8291 from the receiving side).
    static func decrypt(_ body: [UInt8], with key: P256.KeyAgreement.PrivateKey, auth: [UInt8]) throws -> [UInt8] {
        let salt = Array(body[0..<16])
        let keyLength = Int(body[20])
        let serverPublic = Array(body[21..<(21 + keyLength)])
        let shared = try key.sharedSecretFromKeyAgreement(
            with: P256.KeyAgreement.PublicKey(x963Representation: serverPublic)).withUnsafeBytes { Array($0) }
        let ikm = WebPushEncryption.hkdf(
            salt: auth, inputKey: shared,
            info: Array("WebPush: info".utf8) + [0] + Array(key.publicKey.x963Representation) + serverPublic, count: 32)
        let cek = WebPushEncryption.hkdf(salt: salt, inputKey: ikm, info: Array("Content-Encoding: aes128gcm\0".utf8),
                                         count: 16)
        let nonce = WebPushEncryption.hkdf(salt: salt, inputKey: ikm, info: Array("Content-Encoding: nonce\0".utf8),
                                           count: 12)
        let sealed = Array(body[(21 + keyLength)...])
        let box = try AES.GCM.SealedBox(nonce: AES.GCM.Nonce(data: nonce), ciphertext: sealed.dropLast(16),
                                        tag: sealed.suffix(16))
        let padded = Array(try AES.GCM.open(box, using: SymmetricKey(data: cek)))
        #expect(padded.last == 2)
        return Array(padded.dropLast())
    }
}
