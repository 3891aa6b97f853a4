import CThread

/// The calling thread's name as the kernel knows it — what `top -H`, /proc and `perf` show —
/// which Foundation's `Thread.name` does not set on Linux.
public enum ThreadName {
    /// Names the calling thread: the first 15 bytes of `name`.
    public static func set(_ name: String) {
        clup_name_thread(name)
    }
}
