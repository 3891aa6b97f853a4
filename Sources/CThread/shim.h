// The calling thread's kernel id, for setpriority on one thread (glibc declares gettid only
// under _GNU_SOURCE, which Swift's Glibc module does not set).
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

static inline pid_t clup_thread_id(void) {
    return (pid_t)syscall(SYS_gettid);
}
