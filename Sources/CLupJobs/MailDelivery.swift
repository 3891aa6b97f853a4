import CLupData
import CLupSupport
import Foundation
import Logging
import Synchronization

/// Where outgoing mail goes.
public protocol MailTransport: Sendable {
    /// Delivers one message (`rfc822` is the whole message, headers and body); throws with a
    /// reason if it was not accepted.
    func deliver(rfc822: String, from: String, to: String) throws
}

public struct MailError: Error, CustomStringConvertible {
    public var description: String
}

/// Writes each message to a folder as an `.eml` file: the demo's mail, readable without a
/// mail server.
public struct DirectoryTransport: MailTransport {
    public let directory: String

    public init(directory: String) {
        self.directory = directory
    }

    public func deliver(rfc822: String, from: String, to: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let name = "\(Int(Date().timeIntervalSince1970 * 1000))-\(Secrets.token(bytes: 6)).eml"
        try rfc822.write(toFile: "\(directory)/\(name)", atomically: true, encoding: .utf8)
    }
}

/// Sends through an SMTP server with curl, which already speaks SMTP, STARTTLS and AUTH:
/// `smtp://host:port` (with `requireTLS`, STARTTLS is mandatory) or `smtps://host:port`.
/// Credentials go to curl in a config file only it reads, never on its command line.
public struct SMTPTransport: MailTransport {
    public var url: String
    public var requireTLS: Bool
    public var username: String?
    public var password: String?
    public var curl = "/usr/bin/curl"

    public init(url: String, requireTLS: Bool, username: String?, password: String?) {
        self.url = url
        self.requireTLS = requireTLS
        self.username = username
        self.password = password
    }

    public func deliver(rfc822: String, from: String, to: String) throws {
        var arguments = ["--silent", "--show-error", "--max-time", "30", "--url", url, "--mail-from", from,
                         "--mail-rcpt", to, "--upload-file", "-"]
        if requireTLS { arguments.append("--ssl-reqd") }
        var configFile: String?
        if let username {
            let path = NSTemporaryDirectory() + "clup-smtp-" + Secrets.token(bytes: 8)
            let quoted = "\(username):\(password ?? "")".replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "\"", with: "\\\"")
            FileManager.default.createFile(atPath: path, contents: Data("user = \"\(quoted)\"\n".utf8),
                                           attributes: [.posixPermissions: 0o600])
            arguments += ["--config", path]
            configFile = path
        }
        defer { configFile.map { try? FileManager.default.removeItem(atPath: $0) } }

        let run = try ChildProcess.run(curl, arguments, input: Array(rfc822.utf8), reading: .standardError)
        guard run.status == 0 else {
            throw MailError(description: "curl exit \(run.status): \(run.text.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
    }
}

/// Sends what the outbox holds. Run every few seconds by `clup serve` (and once by
/// `clup send-mail`); failures are retried with a growing delay, up to an hour apart.
///
/// The most urgent mail is claimed first (`claimDueMail`), in batches, and each batch is
/// handed to the transport `parallelism` messages at a time: an SMTP relay takes several
/// connections, and one slow message no longer holds the rest.
public struct MailDelivery: Sendable {
    public let database: AppDatabase
    public let transport: any MailTransport
    public let from: String
    public let logger: Logger
    /// Messages handed to the transport at once.
    public var parallelism: Int

    /// What one call sent, failed to send, and whether due mail was left for the next call.
    public struct Delivered: Sendable, Equatable {
        public var sent = 0
        public var failed = 0
        public var more = false
    }

    public init(database: AppDatabase, transport: any MailTransport, from: String, logger: Logger, parallelism: Int = 4) {
        self.database = database
        self.transport = transport
        self.from = from
        self.logger = logger
        self.parallelism = max(1, parallelism)
    }

    /// Sends the mail due at `now`, batch after batch, until none is left or `budget` seconds
    /// have passed: then `more` says so, and the caller starts again with a fresh `now`, so
    /// urgent mail made meanwhile goes ahead of the rest of a backlog.
    @discardableResult
    public func deliverDue(now: Date, budget: TimeInterval = .infinity) throws -> Delivered {
        let start = ContinuousClock.now
        var delivered = Delivered()
        while true {
            let batch = try database.notices.claimDueMail(now: now, limit: 5 * parallelism)
            if batch.isEmpty { return delivered }
            let failed = try send(batch, now: now)
            delivered.sent += batch.count - failed
            delivered.failed += failed
            if ContinuousClock.now - start > .milliseconds(Int64(min(budget, 86400) * 1000)) {
                delivered.more = true
                return delivered
            }
        }
    }

    /// Sends `batch` on up to `parallelism` threads, each taking the next message in order;
    /// returns how many failed (each is marked for a retry). A database error marking a
    /// message is thrown once all threads are done: the message's lease makes it due again.
    private func send(_ batch: [OutboxMessage], now: Date) throws -> Int {
        let next = Atomic(0)
        let failures = Atomic(0)
        let errors = Mutex<[any Error]>([])
        let group = DispatchGroup()
        for _ in 0..<min(parallelism, batch.count) {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                while true {
                    let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
                    guard index < batch.count else { return }
                    do {
                        if try !deliver(batch[index], now: now) { failures.add(1, ordering: .relaxed) }
                    } catch {
                        errors.withLock { $0.append(error) }
                    }
                }
            }
            thread.name = "clup-mail"
            thread.start()
        }
        group.wait()
        if let error = errors.withLock({ $0.first }) { throw error }
        return failures.load(ordering: .relaxed)
    }

    /// Sends one message and marks it sent, or failed with the time of its next attempt;
    /// false if the transport refused it.
    private func deliver(_ message: OutboxMessage, now: Date) throws -> Bool {
        let id = message.id
        do {
            try transport.deliver(rfc822: Self.rfc822(message, from: from, now: now), from: from, to: message.recipient)
        } catch {
            let delay = min(3600, 60 * pow(2, Double(max(0, message.attempts - 1))))
            try database.notices.markMailFailed(id: id, error: String(describing: error), retryAt: now + delay)
            logger.warning("mail \(id) not sent (attempt \(message.attempts)), retrying in \(Int(delay)) s: \(error)")
            return false
        }
        try database.notices.markMailSent(id: id, now: now)
        return true
    }

    /// A header value as RFC 2047 carries text that is not ASCII: `=?UTF-8?B?…?=` words of at
    /// most 75 characters (45 bytes of whole characters each), folded onto lines of their own.
    /// Plain ASCII stays as it is.
    static func encodedWords(_ value: String) -> String {
        guard !value.unicodeScalars.allSatisfy({ $0.isASCII && $0.value >= 0x20 && $0.value < 0x7f }) else { return value }
        var words: [String] = []
        var chunk: [UInt8] = []
        for character in value {
            let bytes = Array(String(character).utf8)
            if chunk.count + bytes.count > 45, !chunk.isEmpty {
                words.append("=?UTF-8?B?" + Data(chunk).base64EncodedString() + "?=")
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty { words.append("=?UTF-8?B?" + Data(chunk).base64EncodedString() + "?=") }
        return words.joined(separator: "\r\n ")
    }

    /// The message as sent: plain text, UTF-8, CRLF line ends. Header values lose any CR or LF;
    /// the subject is encoded as RFC 2047 says when it is not ASCII.
    static func rfc822(_ message: OutboxMessage, from: String, now: Date) -> String {
        func clean(_ value: String) -> String {
            String(String.UnicodeScalarView(value.unicodeScalars.filter { $0 != "\r" && $0 != "\n" }))
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss Z"
        let domain = from.split(separator: "@").last.map(String.init) ?? "clup.invalid"
        let headers = [
            "From: CLup <\(clean(from))>",
            "To: \(clean(message.recipient))",
            "Subject: \(encodedWords(clean(message.subject)))",
            "Date: \(formatter.string(from: now))",
            "Message-ID: <outbox-\(message.id)-\(Int(message.createdAt.timeIntervalSince1970))@\(domain)>",
            "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=utf-8",
            "Content-Transfer-Encoding: 8bit",
        ]
        let body = message.body.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\r\n")
        return headers.joined(separator: "\r\n") + "\r\n\r\n" + body + "\r\n"
    }
}
