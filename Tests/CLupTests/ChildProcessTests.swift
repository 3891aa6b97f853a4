import Foundation
import Testing

@testable import CLupJobs
@testable import CLupSupport

#if canImport(Glibc)
import Glibc
#endif

/// The runner the worker hands mail, push messages and geocoding to curl with.
@Suite("Child processes", .enabled(if: Fixture.engineFreePass))
struct ChildProcessTests {
    @Test("input goes in and output comes back whole, even when the child writes before it has read it all")
    func roundTrip() throws {
        // Far more than a socket's buffers hold: a runner that sent everything before reading
        // would wait on cat, which waits on it.
        let input = (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let echoed = try ChildProcess.run("/bin/cat", [], input: input)
        #expect(echoed.status == 0)
        #expect(echoed.output == input)

        let empty = try ChildProcess.run("/bin/cat", [], input: [])
        #expect(empty.status == 0 && empty.output.isEmpty)
        let none = try ChildProcess.run("/bin/cat", [])
        #expect(none.status == 0 && none.output.isEmpty)
    }

    @Test("the exit status, a signal's, and the stream asked for")
    func statusAndStreams() throws {
        #expect(try ChildProcess.run("/bin/sh", ["-c", "exit 3"]).status == 3)
        #expect(try ChildProcess.run("/bin/sh", ["-c", "kill -9 $$"]).status == 128 + 9)
        let errors = try ChildProcess.run("/bin/sh", ["-c", "echo out; echo oops >&2; exit 1"], reading: .standardError)
        #expect(errors.status == 1 && errors.text == "oops\n")
        let output = try ChildProcess.run("/bin/sh", ["-c", "echo out; echo oops >&2"])
        #expect(output.text == "out\n")
        // A child that stops reading early ends the exchange without a SIGPIPE in this process.
        let early = try ChildProcess.run("/bin/sh", ["-c", "head -c 10"], input: [UInt8](repeating: 65, count: 1_000_000))
        #expect(early.status == 0 && early.output.count == 10)
        // One that closes its output and then reads all its input is not left waiting for more.
        let closesFirst = try ChildProcess.run("/bin/sh", ["-c", "exec >&-; cat > /dev/null; exit 4"],
                                               input: [UInt8](repeating: 66, count: 1_000_000))
        #expect(closesFirst.status == 4 && closesFirst.output.isEmpty)
    }

    @Test("both streams as one, in the order written; an environment and a directory of its own")
    func environmentAndDirectory() throws {
        let both = try ChildProcess.run("/bin/sh", ["-c", "echo one; echo two >&2; echo three"], reading: .both)
        #expect(both.text == "one\ntwo\nthree\n")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("clup-child-\(Secrets.token(bytes: 6))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let inside = try ChildProcess.run("/bin/sh", ["-c", "pwd; echo \"$GREETING\"; echo \"${HOME:-none}\""],
                                          environment: ["GREETING": "ciao"], directory: folder.path)
        // Only the environment given: nothing of this process's (HOME) comes through.
        #expect(inside.text == folder.resolvingSymlinksInPath().path + "\nciao\nnone\n")
        #expect(throws: ChildProcess.Failure.self) {
            try ChildProcess.run("/bin/true", [], directory: folder.path + "/missing")
        }
    }

    @Test("a program that is not there is an error naming it")
    func missing() {
        #expect(throws: ChildProcess.Failure.self) { try ChildProcess.run("/nonexistent/curl", []) }
    }

    @Test("the child inherits none of the parent's other descriptors, blocked signals or ignored ones")
    func cleanChild() throws {
        // Opened without close-on-exec, as a library might: the child must not get it.
        let leaked = open("/dev/null", O_RDONLY)
        #expect(leaked > 2)
        defer { close(leaked) }
        let descriptors = try ChildProcess.run("/bin/ls", ["/proc/self/fd"]).text.split(separator: "\n")
        #expect(!descriptors.contains(Substring(String(leaked))))
        #expect(descriptors.contains("0") && descriptors.contains("1") && descriptors.contains("2"))

        let previous = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, previous) }
        let status = try ChildProcess.run("/bin/cat", ["/proc/self/status"]).text.split(separator: "\n")
        // The standard signals, 1 to 31: glibc keeps two real-time ones of its own.
        func standard(_ field: String) -> UInt64? {
            status.first { $0.hasPrefix(field + ":\t") }.flatMap { UInt64($0.dropFirst(field.count + 2), radix: 16) }
                .map { $0 & 0x7fff_ffff }
        }
        #expect(standard("SigIgn") == 0)
        #expect(standard("SigBlk") == 0)
    }

    @Test("mail goes to curl on its standard input, its complaint comes back in the error")
    func smtpThroughCurl() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("clup-curl-\(Secrets.token(bytes: 6))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var transport = SMTPTransport(url: "smtp://relay.example.org:25", requireTLS: true, username: nil, password: nil)
        transport.curl = try fakeCurl(in: folder, """
            cat > "\(folder.path)/message"
            echo "$@" > "\(folder.path)/arguments"
            """)
        try transport.deliver(rfc822: "Subject: hi\r\n\r\nbody", from: "clup@example.org", to: "ada@example.org")
        #expect(try String(contentsOf: folder.appendingPathComponent("message"), encoding: .utf8) == "Subject: hi\r\n\r\nbody")
        let arguments = try String(contentsOf: folder.appendingPathComponent("arguments"), encoding: .utf8)
        #expect(arguments.contains("--mail-rcpt ada@example.org") && arguments.contains("--ssl-reqd"))

        transport.curl = try fakeCurl(in: folder, "echo 'curl: (67) Login denied' >&2; exit 67")
        #expect {
            try transport.deliver(rfc822: "x", from: "clup@example.org", to: "ada@example.org")
        } throws: { ($0 as? MailError)?.description == "curl exit 67: curl: (67) Login denied" }
    }

    @Test("a push message is posted through curl, which answers the HTTP status")
    func pushThroughCurl() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("clup-curl-\(Secrets.token(bytes: 6))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var transport = CurlPushTransport()
        transport.curl = try fakeCurl(in: folder, "cat > \"\(folder.path)/body\"; printf 201")
        let status = try transport.post(to: URL(string: "https://push.example.org/x")!, headers: [("TTL", "60")],
                                        body: [1, 2, 3, 0, 255])
        #expect(status == 201)
        #expect(try Data(contentsOf: folder.appendingPathComponent("body")) == Data([1, 2, 3, 0, 255]))
        transport.curl = try fakeCurl(in: folder, "exit 28")
        #expect(throws: MailError.self) { try transport.post(to: URL(string: "https://push.example.org/x")!, headers: [], body: []) }
    }

    /// A shell script standing in for curl.
    private func fakeCurl(in folder: URL, _ body: String) throws -> String {
        let path = folder.appendingPathComponent("curl-\(Secrets.token(bytes: 4))").path
        FileManager.default.createFile(atPath: path, contents: Data("#!/bin/sh\n\(body)\n".utf8),
                                       attributes: [.posixPermissions: 0o755])
        return path
    }
}
