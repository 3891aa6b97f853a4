import CSpawn
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A program run to its end with `posix_spawn`: what the worker uses to hand mail, push
/// messages and geocoding to curl.
///
/// Not Foundation's `Process`: to close the parent's descriptors in the child, it reads
/// `/proc/self/fd` and copies 256 bytes of each entry, past the end of glibc's buffer, and
/// faults when the page after that buffer is unmapped, which giving freed memory back to the
/// kernel (`malloc_trim`) makes likely. Here the child closes them with one `closefrom`
/// action, and starts with every signal at its default and none blocked (the worker ignores
/// SIGPIPE and handles SIGTERM; curl must not inherit that).
public enum ChildProcess {
    /// Which of the child's streams is read back (the other goes to /dev/null), or both as
    /// one, in the order written.
    public enum Stream: Sendable {
        case standardOutput, standardError, both
    }

    public struct Outcome: Sendable {
        /// The exit status, or 128 + the signal's number if a signal ended it (as shells say).
        public var status: Int32
        /// What the child wrote to the stream read back.
        public var output: [UInt8]

        public var text: String { String(decoding: output, as: UTF8.self) }
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Runs `executable` with `arguments`, gives it `input` on its standard input (nothing, and
    /// an end of file, if nil) and waits for it, reading back `reading`. It runs in
    /// `environment` (nil: this process's) and in `directory` (nil: this process's).
    public static func run(_ executable: String, _ arguments: [String], input: [UInt8]? = nil,
                           reading: Stream = .standardOutput, environment: [String: String]? = nil,
                           directory: String? = nil) throws -> Outcome
    {
        let devNull = open("/dev/null", O_RDWR | O_CLOEXEC)
        guard devNull >= 0 else { throw Failure(description: "cannot open /dev/null") }
        defer { close(devNull) }
        // Sockets, not pipes (glibc declares pipe2, for close-on-exec, only under _GNU_SOURCE):
        // and `send` with MSG_NOSIGNAL answers EPIPE, without a SIGPIPE, if the child exits
        // before reading all its input, in processes that do not ignore SIGPIPE.
        var output = try socketPair()
        defer { closeIfOpen(&output[0]) }
        defer { closeIfOpen(&output[1]) }
        var inputPair = input == nil ? [-1, -1] : try socketPair()
        defer { closeIfOpen(&inputPair[0]) }
        defer { closeIfOpen(&inputPair[1]) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input == nil ? devNull : inputPair[1], 0)
        posix_spawn_file_actions_adddup2(&actions, reading == .standardError ? devNull : output[1], 1)
        posix_spawn_file_actions_adddup2(&actions, reading == .standardOutput ? devNull : output[1], 2)
        guard clup_spawn_close_from(&actions, 3) == 0 else { throw Failure(description: "cannot prepare the child's descriptors") }
        if let directory, clup_spawn_chdir(&actions, directory) != 0 {
            throw Failure(description: "cannot prepare the child's directory")
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { envp?.forEach { free($0) } }
        var pid: pid_t = 0
        func spawn() -> Int32 {
            guard let envp else { return posix_spawn(&pid, executable, &actions, &attributes, argv, environ) }
            return envp.withUnsafeBufferPointer { posix_spawn(&pid, executable, &actions, &attributes, argv, $0.baseAddress) }
        }
        var spawned = spawn()
        // A program written a moment ago is "busy" while the child of another thread, made
        // while its writer's descriptor was open, has not yet reached its exec: soon over.
        for _ in 0..<50 where spawned == ETXTBSY {
            usleep(20_000)
            spawned = spawn()
        }
        guard spawned == 0 else { throw Failure(description: "cannot run \(executable): \(String(cString: strerror(spawned)))") }

        closeIfOpen(&output[1])
        closeIfOpen(&inputPair[1])
        let read = exchange(input ?? [], through: &inputPair[0], reading: output[0])
        // Closed before waiting: a child that closed its output and still reads its input gets
        // the end of it, and one that still writes ends on a broken pipe, rather than both of us
        // waiting.
        closeIfOpen(&inputPair[0])
        closeIfOpen(&output[0])
        return Outcome(status: wait(for: pid), output: read)
    }

    /// Sends `input` while reading the output, so that a child that writes before it has read
    /// all its input (as `cat` does) never waits on a parent that waits on it. Ends when the
    /// output does; what the child did not read is dropped, and its exit status says why.
    private static func exchange(_ input: [UInt8], through inputSocket: inout Int32, reading outputSocket: Int32)
        -> [UInt8]
    {
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        var sent = 0
        if sent == input.count { closeIfOpen(&inputSocket) }
        while true {
            var watched = [pollfd(fd: outputSocket, events: Int16(POLLIN), revents: 0)]
            if inputSocket >= 0 { watched.append(pollfd(fd: inputSocket, events: Int16(POLLOUT), revents: 0)) }
            guard poll(&watched, nfds_t(watched.count), -1) >= 0 || errno == EINTR else { return output }
            if inputSocket >= 0, watched[1].revents != 0 {
                let result = input.withUnsafeBytes {
                    send(inputSocket, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                }
                if result > 0 { sent += result }
                if sent == input.count || (result < 0 && errno != EAGAIN && errno != EINTR) { closeIfOpen(&inputSocket) }
            }
            if watched[0].revents != 0 {
                let count = chunk.withUnsafeMutableBytes { read(outputSocket, $0.baseAddress, $0.count) }
                if count > 0 {
                    output += chunk[..<count]
                } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                    return output
                }
            }
        }
    }

    private static func wait(for pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return -1 }
        }
        // WIFEXITED and WEXITSTATUS are macros Swift does not import.
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    /// Two connected stream sockets, closed in the child on exec (but where duplicated onto
    /// its standard streams).
    private static func socketPair() throws -> [Int32] {
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw Failure(description: "cannot make a socket pair: \(String(cString: strerror(errno)))")
        }
        return pair
    }

    private static func closeIfOpen(_ descriptor: inout Int32) {
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
    }
}
