/* proc.h — adapter processes: spawn with an environment, read stdout lines
 * as they come, keep a bounded tail of stderr, stop and always reap.
 *
 * A stdout line is delivered only once the stderr the child wrote before it
 * has been read (stderr is drained after stdout at every wake), so a line
 * that ends a cell is judged with the error lines printed ahead of it.
 *
 * Owns: the cdch_proc (pid, pipes, buffers). The child runs in its own
 * process group, so stopping it (SIGTERM to the group, SIGKILL to the group
 * after the grace period) also ends grandchildren (a JVM or node started by
 * a shell script). The group is killed, too, when the adapter exits on its
 * own. The child's stdin is /dev/null, or a pipe the caller writes lines to
 * (stdin_pipe; session-mode adapters). cdch_proc_free stops a running
 * child and reaps it: no zombies, no orphans left in the group. Every child
 * gets CDCH_PROC_TOKEN=<harness pid>.<n> in its environment; when it ends,
 * every process still holding that entry (a descendant that left the group
 * with setsid and outlived it) is killed too.
 *
 * A descendant that outlives its parent is adopted by the harness, not by
 * init: the first spawn makes this process a child subreaper
 * (PR_SET_CHILD_SUBREAPER). Such an orphan is a child of this process that
 * cdch_proc_spawn did not make; cdch_proc_reap_orphans reaps those that
 * ended (each stop and each exit of a child calls it) or kills them all:
 * a daemon that also left the adapter's environment behind (a scrubbed
 * environment, nothing names its adapter) is still found, by its parentage.
 * A program that forks children of its own outside cdch_proc must not call
 * cdch_proc_reap_orphans while they run.
 *
 * Spawning is fork + execve with everything prepared before the fork (only
 * async-signal-safe calls in the child), so it is safe in a threaded
 * process. A program that cannot be executed is reported by
 * cdch_proc_spawn ("cannot run 'x': No such file or directory").
 */
#ifndef CDCH_PROC_H
#define CDCH_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "activity.h"
#include "err.h"

#define CDCH_PROC_STDERR_TAIL (64 * 1024)
/* stderr written to a stderr_copy stops after this many bytes (per copy set) */
#define CDCH_PROC_STDERR_COPY_MAX (16 << 20)

typedef struct cdch_proc cdch_proc;

typedef struct cdch_proc_opts {
    char *const *argv;      /* argv[0]: a path, or a name looked up in PATH */
    const char *cwd;        /* NULL: the harness's */
    char *const *env;       /* "NAME=value" entries set on top of the harness's environment (NULL-terminated) */
    FILE *stderr_copy;      /* NULL, or every stderr byte is also written here (the caller's) */
    bool stdin_pipe;        /* stdin is a pipe for cdch_proc_send (else /dev/null) */
    const char *private_tmp; /* NULL, or an empty directory made for this child alone: the child gets
                              * TMPDIR=<it> (over any other), and cdch_proc_free removes its tree once
                              * the child, its group and its descendants are gone: what a library
                              * leaves in its temporary directory (Flink's mini-cluster directories,
                              * its extracted RPC jar) goes with the process. The caller passes the
                              * same directory to programs that do not read TMPDIR (a JVM's
                              * -Djava.io.tmpdir). */
} cdch_proc_opts;

cdch_proc *cdch_proc_spawn(const cdch_proc_opts *o, cdch_err *err);

/* Called with each complete stdout line (no newline; line[len] == '\0'). */
typedef void (*cdch_proc_line_fn)(void *ud, const char *line, size_t len);

/* Wait up to timeout_ms for output or exit, delivering complete lines;
 * returns as soon as a line was delivered (the caller looks at it at once).
 * Returns true while the child runs; false once it has exited and its
 * output was drained (the child is then reaped and its group killed). */
bool cdch_proc_pump(cdch_proc *p, int timeout_ms, cdch_proc_line_fn fn, void *ud);

/* SIGTERM to the group, keep delivering output until the child exits or
 * grace_ms pass, then SIGKILL to the group; reap. No-op after exit. */
void cdch_proc_stop(cdch_proc *p, int grace_ms, cdch_proc_line_fn fn, void *ud);

/* After cdch_proc_stop: whether the process outlived its grace (the
 * SIGKILL did the stopping), and its own seconds (activity.h: wall less the
 * run-queue delay) from the SIGTERM to its exit or the SIGKILL. */
bool cdch_proc_stop_forced(const cdch_proc *p, double *own_seconds);

bool cdch_proc_exited(const cdch_proc *p);
/* The adapter's pid (its process group's id); a reaped one's stays. */
pid_t cdch_proc_pid(const cdch_proc *p);
/* Its process tree as activity.h looks at it (the /proc files kept open,
 * owned by p); NULL once it was reaped (its pid may be another's then):
 * activity.h's functions take NULL as a process gone. */
cdch_activity *cdch_proc_activity(cdch_proc *p);
/* CPU seconds (user + system) the adapter has used: while it runs, its
 * threads and the children it reaped (/proc/PID/stat, clock-tick
 * resolution); once reaped, wait4's figure. -1 when unreadable. */
double cdch_proc_cpu_seconds(const cdch_proc *p);
/* Whether the adapter's stdout or stderr pipe holds bytes not read yet (an
 * adapter blocked writing to a full pipe is waiting on us, not idle). */
bool cdch_proc_output_pending(const cdch_proc *p);
/* After exit: exit status (-1 if killed by a signal) and signal (0 if none). */
void cdch_proc_status(const cdch_proc *p, int *status, int *signal);
/* The last CDCH_PROC_STDERR_TAIL bytes of stderr, NUL-terminated (valid
 * until the next pump/stop/free). */
const char *cdch_proc_stderr_tail(cdch_proc *p);

/* stdin_pipe only: write line + '\n' (waits up to timeout_ms for a full
 * pipe); close stdin (the adapter sees EOF). */
int cdch_proc_send(cdch_proc *p, const char *line, int timeout_ms, cdch_err *err);
void cdch_proc_close_stdin(cdch_proc *p);
/* Change where stderr is copied from now on (NULL: nowhere). */
void cdch_proc_set_stderr_copy(cdch_proc *p, FILE *f);
/* At most `limit` bytes of stdout from now on (0: no limit); past it the
 * output is a flood: stdout is no longer read (the adapter gets EPIPE) and
 * cdch_proc_flooded is true; the caller stops the adapter. */
void cdch_proc_set_stdout_limit(cdch_proc *p, uint64_t limit);
bool cdch_proc_flooded(const cdch_proc *p);
/* Bytes of stdout read since the limit was set, complete lines or not. */
uint64_t cdch_proc_stdout_bytes(const cdch_proc *p);
/* A mark in the stderr stream (bytes so far), and the part of the tail
 * written since a mark (valid until the next pump/stop/free): one
 * session process, one stderr cut per cell. */
uint64_t cdch_proc_stderr_mark(const cdch_proc *p);
const char *cdch_proc_stderr_since(cdch_proc *p, uint64_t mark);

/* Stops (grace 0) and reaps if running, removes the private_tmp tree;
 * accepts NULL. */
void cdch_proc_free(cdch_proc *p);

/* The orphans this process adopted (proc.h: its children that cdch_proc_spawn
 * did not make): reaps those that ended; with kill_them, SIGKILLs every one
 * (and the orphans that makes, in rounds) and reaps them. For the end of a
 * run, once no adapter of it runs. Returns how many were reaped. */
size_t cdch_proc_reap_orphans(bool kill_them);

/* Interruption (SIGINT/SIGTERM of the harness): children live in their own
 * process groups, so a terminal's ^C does not reach them. A signal handler
 * calls cdch_proc_interrupt() (async-signal-safe); loops that wait on
 * children check cdch_proc_interrupted() and stop them. */
void cdch_proc_interrupt(void);
bool cdch_proc_interrupted(void);

#endif
