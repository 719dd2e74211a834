/* sweep/mpi.c: a sweep over the ranks of an MPI job (Open MPI's mpirun, or
 * Slurm's srun). Rank 0 hands out items in chunks on request (items differ
 * in cost by 100x, so static splitting would leave ranks idle), computes a
 * few itself between requests, and receives every row; the rows travel as
 * bytes (one binary on a homogeneous job). Without TRAINPLAN_MPI (no mpicc
 * at build time) or without a launcher, there is one rank and this file
 * does nothing.
 *
 * A rank that dies: MPI cannot go on without it (Open MPI's mpirun then
 * sends SIGTERM to the others and SIGKILL a little later). Rank 0 therefore
 * never blocks in MPI: it polls, sees the stop flag the SIGTERM sets,
 * waits SWEEP_MPI_GRACE_S for the live ranks' last rows, and returns so the
 * caller can name the items not done (the checkpoint has the rest); it then
 * skips MPI_Finalize, which would wait for the dead rank.
 *
 * Fault injection for the tests: TRAINPLAN_SWEEP_KILL=R:K makes rank R
 * (R >= 1) kill itself with SIGKILL when its K-th chunk of work arrives. */
#include "sweep/sweep.h"

#include <stdlib.h>

#ifdef TRAINPLAN_MPI
#include <mpi.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>

#include "common/alloc.h"

enum { TAG_WORK = 1, TAG_ROWS = 2 };

#define SWEEP_MPI_GRACE_S 0.3   /* after a stop, for the live ranks' rows (mpirun sends SIGKILL about 1 s after SIGTERM) */
#define SWEEP_MPI_POLL_NS 200000L   /* 0.2 ms between polls of rank 0 */

static int size = 1, rank;
static bool started, lost;          /* lost: a rank did not answer a stop */

/* Launched by mpirun or srun: the launchers' environment says so. */
static bool launched(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") ||
           getenv("PMI_RANK");
}

void sweep_mpi_init(int *argc, char ***argv)
{
    int provided;
    if (started || !launched())
        return;
    MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    started = true;
}

bool sweep_mpi_built(void) { return true; }
bool sweep_mpi_lost(void) { return lost; }
int sweep_mpi_size(void) { return size; }
int sweep_mpi_rank(void) { return rank; }

void sweep_mpi_finalize(void)
{
    if (started && !lost)
        MPI_Finalize();
    started = false;
}

/* TRAINPLAN_SWEEP_KILL=R:K: whether this rank dies at its chunk 'k'. */
static bool fault_due(int k)
{
    const char *s = getenv("TRAINPLAN_SWEEP_KILL");
    int r, at;
    return s && sscanf(s, "%d:%d", &r, &at) == 2 && r == rank && at == k;
}

/* ---- the ranks that compute ---- */

static void worker(const struct sweep *sw, size_t ng,
                   const volatile sig_atomic_t *stop)
{
    uint64_t *items = NULL;
    struct sweep_row *rows = NULL;
    int n = 0, done = 0;
    MPI_Status st;
    MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_ROWS, MPI_COMM_WORLD);
    for (int chunk = 1;; chunk++) {
        MPI_Probe(0, TAG_WORK, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_UINT64_T, &n);
        items = xrealloc(items, ((size_t)n + 1) * sizeof *items);
        MPI_Recv(items, n, MPI_UINT64_T, 0, TAG_WORK, MPI_COMM_WORLD, &st);
        if (n == 0)
            break;
        if (fault_due(chunk))
            raise(SIGKILL);
        rows = xrealloc(rows, (size_t)n * ng * sizeof *rows);
        sweep_items_compute(sw, items, (size_t)n, ng, rows, stop, NULL);
        for (done = 0; done < n && rows[(size_t)done * ng].item != UINT64_MAX;)
            done++;                     /* a stop skips the rest of a chunk */
        MPI_Send(rows, (int)((size_t)done * ng * sizeof *rows), MPI_BYTE, 0,
                 TAG_ROWS, MPI_COMM_WORLD);
    }
    free(items);
    free(rows);
}

/* ---- rank 0 ---- */

struct master {
    const struct sweep *sw;
    const uint64_t *todo;
    size_t n, next, ng;
    int active;                         /* workers not yet told to stop */
    int *given;                         /* items handed to each rank */
    bool stopped;
    double stop_seen;                   /* when rank 0 saw the stop; 0 not yet */
    const struct sweep_sink *sink;
    const volatile sig_atomic_t *stop;
    struct sweep_row *buf;
};

static void give(struct master *m, int src)
{
    size_t left = m->n - m->next, chunk = left / (4 * (size_t)size);
    if (m->stopped || (m->stop && *m->stop))
        left = 0;
    chunk = chunk < 1 ? 1 : chunk > 64 ? 64 : chunk;
    chunk = left < chunk ? left : chunk;
    MPI_Send(m->todo + m->next, (int)chunk, MPI_UINT64_T, src, TAG_WORK,
             MPI_COMM_WORLD);
    m->next += chunk;
    m->given[src] = (int)chunk;
    m->active -= chunk == 0;
}

/* Take one rank's rows, then give it more (or tell it to stop). */
static void serve(struct master *m, const MPI_Status *probed)
{
    int bytes, src = probed->MPI_SOURCE;
    size_t n_rows;
    MPI_Get_count(probed, MPI_BYTE, &bytes);
    n_rows = (size_t)bytes / sizeof *m->buf;
    m->buf = xrealloc(m->buf, (n_rows + 1) * sizeof *m->buf);
    MPI_Recv(m->buf, bytes, MPI_BYTE, src, TAG_ROWS, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    for (size_t i = 0; i < n_rows; i += m->ng)
        m->sink->fn(m->sink->arg, &m->buf[i], m->ng);
    if (n_rows < (size_t)m->given[src] * m->ng)
        m->stopped = true;              /* that rank was stopped */
    give(m, src);
}

/* Whether rank 0 gives up on the ranks still out: a stop was seen
 * SWEEP_MPI_GRACE_S ago and they have not answered (one of them died). */
static bool given_up(struct master *m)
{
    double now = MPI_Wtime();
    if (!*m->stop)
        return false;
    if (m->stop_seen == 0)
        m->stop_seen = now;
    return now - m->stop_seen > SWEEP_MPI_GRACE_S;
}

/* Take every rank's rows that have come; with 'block', wait (polling, so a
 * stop is seen) until some came or rank 0 gives up. */
static void serve_pending(struct master *m, bool block)
{
    const struct timespec pause = { 0, SWEEP_MPI_POLL_NS };
    MPI_Status st;
    int flag = 0;
    MPI_Iprobe(MPI_ANY_SOURCE, TAG_ROWS, MPI_COMM_WORLD, &flag, &st);
    while (block && !flag && !(lost = given_up(m))) {
        nanosleep(&pause, NULL);
        MPI_Iprobe(MPI_ANY_SOURCE, TAG_ROWS, MPI_COMM_WORLD, &flag, &st);
    }
    while (flag) {
        serve(m, &st);
        MPI_Iprobe(MPI_ANY_SOURCE, TAG_ROWS, MPI_COMM_WORLD, &flag, &st);
    }
}

/* Between requests rank 0 computes one item per thread itself. */
static void master(struct master *m)
{
    size_t own = (size_t)omp_get_max_threads();
    struct sweep_row *rows = xmalloc(own * m->ng * sizeof *rows);
    while (!lost &&
           (m->active > 0 || (m->next < m->n && !m->stopped && !*m->stop))) {
        serve_pending(m, false);
        if (m->next < m->n && !m->stopped && !*m->stop) {
            size_t k = m->n - m->next < own ? m->n - m->next : own;
            sweep_items_compute(m->sw, m->todo + m->next, k, m->ng, rows,
                                m->stop, m->sink);
            m->next += k;
        } else if (m->active > 0)
            serve_pending(m, true);
    }
    free(rows);
}

int sweep_mpi_run(const struct sweep *sw, const uint64_t *todo, size_t n_todo,
                  size_t n_gpus, const struct sweep_sink *sink,
                  const volatile sig_atomic_t *stop, struct tpl_err *err)
{
    static const volatile sig_atomic_t never;
    struct master m = { .sw = sw, .todo = todo, .n = n_todo, .ng = n_gpus,
                        .active = size - 1, .sink = sink,
                        .stop = stop ? stop : &never };
    (void)err;
    if (rank != 0) {
        worker(sw, n_gpus, stop);
        return 0;
    }
    m.given = xcalloc((size_t)size, sizeof *m.given);
    master(&m);
    free(m.given);
    free(m.buf);
    return 0;
}

#else /* !TRAINPLAN_MPI: one rank */

void sweep_mpi_init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
}

bool sweep_mpi_built(void) { return false; }
bool sweep_mpi_lost(void) { return false; }
int sweep_mpi_size(void) { return 1; }
int sweep_mpi_rank(void) { return 0; }
void sweep_mpi_finalize(void) {}

int sweep_mpi_run(const struct sweep *sw, const uint64_t *todo, size_t n_todo,
                  size_t n_gpus, const struct sweep_sink *sink,
                  const volatile sig_atomic_t *stop, struct tpl_err *err)
{
    (void)sw, (void)todo, (void)n_todo, (void)n_gpus, (void)sink, (void)stop;
    return tpl_errorf(err, TPL_EUSAGE, "built without MPI");
}

#endif
