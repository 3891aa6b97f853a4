import CLupSupport
import Foundation
import Testing

/// `scripts/run` as a newcomer starts it: a worker that dies is replaced at once and one that
/// hangs within seconds, while nginx — never touched — keeps serving static files and says CLup
/// is restarting in between.
@Suite("The worker supervised under scripts/run")
struct SupervisionEndToEndTests {
    @Test("kill -9 replaced in about a second, SIGSTOP within seconds; nginx the same process throughout; logs 0640, mail kept apart")
    func supervised() throws {
        let folder = NSTemporaryDirectory() + "clup-run-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let port = try Stack.freePort()
        let base = "http://127.0.0.1:\(port)"
        let run = Process()
        // Through Python, which clears the signal mask this test process passes on to its
        // children: bash cannot unblock SIGTERM itself, and Ctrl-C must reach the script.
        run.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        run.arguments = ["-c", "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); "
                         + "os.execv(sys.argv[1], sys.argv[1:])", Stack.root + "/scripts/run"]
        run.currentDirectoryURL = URL(fileURLWithPath: Stack.root)
        run.environment = ProcessInfo.processInfo.environment.merging(
            ["CLUP_RUN_DIR": folder, "PORT": String(port), "CLUP_DATABASE": folder + "/clup.sqlite",
             "CLUP_BINARY": Stack.clupBinary]) { $1 }
        run.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        run.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try run.run()
        defer {
            run.terminate()
            run.waitUntilExit()
        }
        func status(_ path: String) -> Int {
            let text = try? ChildProcess.run("/usr/bin/curl", ["-s", "-o", "/dev/null", "-m", "2", "-w", "%{http_code}",
                                                               base + path]).text
            return text.flatMap { Int($0) } ?? 0
        }
        func workerPid() -> Int32 {
            Int32((try? String(contentsOfFile: folder + "/worker.pid", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
        }
        func nginxPid() -> Int32 {
            Int32((try? String(contentsOfFile: folder + "/nginx.pid", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
        }
        /// Seconds until the site answers /healthz from a worker other than `old`.
        func recovery(from old: Int32, within limit: Double) -> Double? {
            let started = Date()
            while Date().timeIntervalSince(started) < limit {
                if workerPid() != old, status("/healthz") == 200 { return Date().timeIntervalSince(started) }
                usleep(20_000)
            }
            return nil
        }

        let deadline = Date() + 120  // the demo's seeding
        while status("/healthz") != 200 {
            try #require(Date() < deadline, "scripts/run did not start")
            usleep(200_000)
        }
        let nginx = nginxPid()
        #expect(nginx > 0)
        // Its logs are 0640 from the first run on (nginx's check made them too), and its mail
        // goes to its own folder, not the checkout's.
        for log in ["access.log", "nginx-error.log"] {
            let mode = try FileManager.default.attributesOfItem(atPath: folder + "/" + log)[.posixPermissions] as? Int
            #expect(mode == 0o640, "\(log): \(String(mode ?? 0, radix: 8))")
        }
        let environment = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(workerPid())/environ"))
            .split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        #expect(environment.contains("CLUP_MAIL_DIR=" + folder + "/mail"))

        // Killed: replaced at once.
        let first = workerPid()
        kill(first, SIGKILL)
        let back = try #require(recovery(from: first, within: 5))
        #expect(back < 1.5, "back after \(back) s")
        print("supervision: a worker killed with SIGKILL was answering again after \(String(format: "%.2f", back)) s")

        // Hung: static files and the restarting page meanwhile, then replaced.
        let second = workerPid()
        kill(second, SIGSTOP)
        defer { kill(second, SIGKILL) }
        #expect(status("/assets/app.css") == 200)
        let replaced = try #require(recovery(from: second, within: 15))
        #expect(replaced < 10, "replaced after \(replaced) s")
        print("supervision: a worker stopped with SIGSTOP was replaced, and the site answering, after "
            + "\(String(format: "%.1f", replaced)) s")
        #expect(nginxPid() == nginx)  // nginx was never touched
        #expect(status("/") == 200)
    }
}
