// The calling thread's kernel id, for setpriority on one thread, and its kernel name (glibc
// declares gettid and pthread_setname_np only under _GNU_SOURCE, which Swift's Glibc module
// does not set).
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

static inline pid_t clup_thread_id(void) {
    return (pid_t)syscall(SYS_gettid);
}

/// Names the calling thread as `top -H`, /proc and `perf` show it: the first 15 bytes.
static inline void clup_name_thread(const char *name) {
    prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0);
}
