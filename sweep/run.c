/* sweep/run.c: running a sweep: what the checkpoint already holds is kept,
 * the rest is computed over OpenMP threads (dynamic schedule: items differ
 * in cost by 100x) or handed to the ranks of an MPI job (mpi.c); each
 * finished item goes to the checkpoint and the progress line. */
#include "sweep/sweep.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/alloc.h"
#include "common/log.h"

/* ---- progress: items done, rate, ETA ---- */

struct local_sink {
    const struct sweep *sw;
    FILE *stream;                       /* NULL: none (cfg->stream) */
    struct sweep_result *r;
    struct sweep_ckpt *ck;              /* NULL: none */
    int rc;                             /* the first checkpoint failure */
    struct tpl_err err;
    bool progress;
    uint64_t todo, done;
    double t0, drawn;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void draw(struct local_sink *s)
{
    double t = now_s() - s->t0, rate = (double)s->done / t;
    char line[160];
    if (t < 1 || t - s->drawn < 0.1)
        return;
    s->drawn = t;
    snprintf(line, sizeof line, "sweep: %llu/%llu items, %.1f items/s, ETA %.0f s",
             (unsigned long long)s->done, (unsigned long long)s->todo, rate,
             (double)(s->todo - s->done) / rate);
    tpl_progress(line, (double)s->done / (double)s->todo);
}

/* An item is done: keep its rows, append them to the checkpoint. */
static void keep(void *arg, const struct sweep_row *rows, size_t n_gpus)
{
    struct local_sink *s = arg;
    struct sweep_result *r = s->r;
    uint64_t item = rows[0].item;
    memcpy(&r->rows[item * n_gpus], rows, n_gpus * sizeof *rows);
    r->done[item] = true;
    r->n_done++;
    s->done++;
    if (s->ck && rows[0].status >= 0 && s->rc == 0)
        s->rc = sweep_ckpt_append(s->ck, rows, n_gpus, &s->err);
    if (s->stream && rows[0].status >= 0)
        sweep_stream_rows(s->stream, s->sw, rows, n_gpus);
    if (s->progress)
        draw(s);
}

static int run_local(const struct sweep *sw, const uint64_t *todo, size_t n,
                     struct local_sink *s, const volatile sig_atomic_t *stop)
{
    size_t ng = s->r->n_gpus, block = 256 * (size_t)omp_get_max_threads();
    struct sweep_row *rows = xmalloc((block < n ? block : n ? n : 1) * ng *
                                     sizeof *rows);
    struct sweep_sink sink = { keep, s };
    for (size_t at = 0; at < n && s->rc == 0 && !(stop && *stop); at += block)
        sweep_items_compute(sw, todo + at, n - at < block ? n - at : block, ng,
                            rows, stop, &sink);
    free(rows);
    return 0;
}

/* ---- the run ---- */

static void result_init(struct sweep_result *r, uint64_t n, size_t n_gpus)
{
    memset(r, 0, sizeof *r);
    r->n_items = n;
    r->n_gpus = n_gpus;
    r->rows = xcalloc(n * n_gpus + 1, sizeof *r->rows);
    r->done = xcalloc(n ? n : 1, sizeof *r->done);
}

void sweep_result_release(struct sweep_result *r)
{
    free(r->rows);
    free(r->done);
    memset(r, 0, sizeof *r);
}

/* The items not done as ranges, "3-7, 12, 40-63", at most 8 ranges then
 * "(+N more)". */
static void undone_ranges(const struct sweep_result *r, char *buf, size_t n)
{
    size_t len = 0;
    int ranges = 0;
    buf[0] = '\0';
    for (uint64_t i = 0, j; i < r->n_items; i = j + 1) {
        for (j = i; j < r->n_items && r->done[j]; j++)
            ;
        if (j == r->n_items)
            break;
        for (i = j; j + 1 < r->n_items && !r->done[j + 1]; j++)
            ;
        if (ranges++ < 8 && len < n)
            len += (size_t)(j > i
                ? snprintf(buf + len, n - len, "%s%llu-%llu", len ? ", " : "",
                           (unsigned long long)i, (unsigned long long)j)
                : snprintf(buf + len, n - len, "%s%llu", len ? ", " : "",
                           (unsigned long long)i));
    }
    if (ranges > 8 && len < n)
        snprintf(buf + len, n - len, " (+%d more ranges)", ranges - 8);
}

/* The first item that failed, or whether all were done. */
static int outcome(const struct sweep_result *r, bool ckpt, struct tpl_err *err)
{
    char undone[256];
    for (uint64_t i = 0; i < r->n_items; i++) {
        const struct sweep_row *row = &r->rows[i * r->n_gpus];
        if (r->done[i] && row->status < 0)
            return tpl_errorf(err, TPL_ECONFIG, "item %llu: %s",
                              (unsigned long long)i, row->key);
    }
    if (r->n_done == r->n_items)
        return 0;
    undone_ranges(r, undone, sizeof undone);
    return tpl_errorf(err, TPL_EINTR, "%s%llu of %llu items done, not done: "
                      "items %s; %s", sweep_mpi_lost() ? "a rank stopped "
                      "answering (it died or was killed): " : "",
                      (unsigned long long)r->n_done,
                      (unsigned long long)r->n_items, undone, ckpt
                      ? "the checkpoint holds the rest: rerun with the same "
                        "arguments to finish them"
                      : "rerun with --checkpoint FILE to keep finished items");
}

static uint64_t *todo_list(const struct sweep_result *r, size_t *n)
{
    uint64_t *todo = xmalloc((r->n_items - r->n_done + 1) * sizeof *todo);
    *n = 0;
    for (uint64_t i = 0; i < r->n_items; i++)
        if (!r->done[i])
            todo[(*n)++] = i;
    return todo;
}

static int run_todo(const struct sweep *sw, const struct sweep_run_cfg *cfg,
                    struct sweep_result *r, struct sweep_ckpt *ck,
                    struct tpl_err *err)
{
    size_t n = 0;
    uint64_t *todo = sweep_mpi_rank() == 0 ? todo_list(r, &n) : NULL;
    struct local_sink s = { .sw = sw, .stream = cfg->stream, .r = r, .ck = ck,
                            .progress = cfg->progress, .todo = n, .t0 = now_s() };
    if (s.stream && sweep_mpi_rank() == 0) {  /* the checkpoint's first */
        sweep_stream_head(s.stream, sw);
        for (uint64_t i = 0; i < r->n_items; i++)
            if (r->done[i])
                sweep_stream_rows(s.stream, sw, &r->rows[i * r->n_gpus],
                                  r->n_gpus);
    }
    struct sweep_sink sink = { keep, &s };
    int rc = sweep_mpi_size() > 1
           ? sweep_mpi_run(sw, todo, n, r->n_gpus, &sink, cfg->stop, err)
           : run_local(sw, todo, n, &s, cfg->stop);
    free(todo);
    tpl_progress_end();
    if (rc == 0 && s.rc)
        *err = s.err;
    return rc ? rc : s.rc;
}

int sweep_run(const struct sweep *sw, const struct sweep_run_cfg *cfg,
              struct sweep_result *out, struct tpl_err *err)
{
    struct sweep_ckpt ck = { .fd = -1 };
    bool root = sweep_mpi_rank() == 0, use_ck = root && cfg->checkpoint;
    uint64_t n;
    size_t ng;
    int rc;
    memset(out, 0, sizeof *out);
    if ((rc = sweep_count(sw, &n, err)) || (rc = sweep_gpu_count(sw, &ng, err)))
        return rc;
    result_init(out, root ? n : 0, ng);
    if (use_ck && (rc = sweep_ckpt_open(&ck, cfg->checkpoint, sweep_hash(sw),
                                        out, err))) {
        if (sweep_mpi_size() > 1)       /* the other ranks wait for word */
            sweep_mpi_run(sw, NULL, 0, ng, NULL, NULL, NULL);
        return rc;
    }
    rc = run_todo(sw, cfg, out, use_ck ? &ck : NULL, err);
    if (use_ck)
        sweep_ckpt_close(&ck);
    return rc || !root ? rc : outcome(out, use_ck, err);
}
