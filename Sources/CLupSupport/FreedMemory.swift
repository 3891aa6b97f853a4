import CMalloc
import Foundation
import Synchronization

/// What the worker does with the memory it frees, through glibc's allocator.
///
/// Every page builds and frees buffers of tens of kilobytes on several threads; glibc's
/// default trims and unmaps such memory back to the kernel at once, and the madvise and TLB
/// shootdowns that follow cost more than rendering. The worker keeps it for reuse instead
/// (`keepForReuse`). Kept memory stays with the arena that freed it, and glibc gives each
/// thread its own (up to eight per core): two per core bound what the threads keep between
/// them, at no cost the read measure could see.
///
/// What the page threads keep is no use to a thread building something large: the board of a
/// hundred thousand stores is 35–40 MB, built on one thread, beside 30 MB the others kept. So
/// before it does, it gives the kept memory back (`giveBack`), which took 10–16 MB off the
/// worker's peak resident size under the benchmark (docs/benchmark.md).
public enum FreedMemory {
    private static let kept = Atomic<Bool>(false)

    /// Keeps freed memory for reuse, from now on in this process (the worker, and
    /// `measure-board`, which times what the worker does).
    public static func keepForReuse() {
        mallopt(M_TRIM_THRESHOLD, 64 << 20)
        mallopt(M_MMAP_THRESHOLD, 16 << 20)
        mallopt(M_ARENA_MAX, Int32(2 * max(1, ProcessInfo.processInfo.activeProcessorCount)))
        kept.store(true, ordering: .relaxed)
    }

    /// Before building something large: gives what every arena keeps back to the kernel, if
    /// this process keeps freed memory (otherwise glibc already gave it back). Takes a few
    /// milliseconds; call it for work that takes far longer.
    public static func giveBack() {
        if kept.load(ordering: .relaxed) { malloc_trim(0) }
    }
}
