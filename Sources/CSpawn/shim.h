// posix_spawn's "close every descriptor from this one up" action (glibc 2.34), which glibc
// declares only under _GNU_SOURCE, which Swift's Glibc module does not set.
#include <spawn.h>

extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);

static inline int clup_spawn_close_from(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}

// posix_spawn's "change directory" action (glibc 2.29), declared only under _GNU_SOURCE too.
extern int posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *actions, const char *path);

static inline int clup_spawn_chdir(posix_spawn_file_actions_t *actions, const char *path) {
    return posix_spawn_file_actions_addchdir_np(actions, path);
}
