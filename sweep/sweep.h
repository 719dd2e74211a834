/* sweep/sweep.h: co-design sweeps. A sweep is the cartesian product of
 * models x base systems x varied fields (each value applied as a --set);
 * one work item is (model, system variant, job) searched over all the GPU
 * counts, on one thread. Items are numbered in mixed radix (model
 * outermost, the last varied field fastest) and every output is ordered by
 * that number, so it is the same for any number of threads and ranks. */
#ifndef SWEEP_H
#define SWEEP_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/conf.h"
#include "common/err.h"
#include "results/writer.h"

#define SWEEP_MAX_NAMES  32             /* models, systems */
#define SWEEP_MAX_AXES   12             /* varied fields */
#define SWEEP_MAX_LINKS  12
#define SWEEP_MAX_VALUES 512            /* values of one field */
#define SWEEP_MAX_SETS   32             /* fixed --set assignments */
#define SWEEP_VALUE_LEN  24
#define SWEEP_FIELD_LEN  64
#define SWEEP_DEFAULT_MAX_ITEMS 10000000ULL

struct sweep_axis {                     /* a varied field, or a linked one */
    char field[SWEEP_FIELD_LEN];        /* "gpu.hbm_gib" */
    char where[SWEEP_FIELD_LEN];        /* "sweep.cfg:7", "--vary": for messages */
    int axis;                           /* links: the axis it follows */
    int n;
    char v[SWEEP_MAX_VALUES][SWEEP_VALUE_LEN];
};

struct sweep {                          /* caller-owned: sweep_init / sweep_release */
    char scenario[256];                 /* job and search space */
    int n_models, n_systems, n_axes, n_links, n_sets;
    char models[SWEEP_MAX_NAMES][256];
    char systems[SWEEP_MAX_NAMES][256];
    struct sweep_axis *axes;            /* SWEEP_MAX_AXES of them */
    struct sweep_axis *links;           /* SWEEP_MAX_LINKS */
    char sets[SWEEP_MAX_SETS][128];     /* applied to every item */
    char gpus[256];                     /* "" : the scenario's */
    double tokens;                      /* 0: the scenario's job.tokens */
    double price;                       /* < 0: each system's own */
    uint64_t max_items;
};

/* One row of the output: an item at one GPU count (a plain value, sent as
 * bytes between ranks and kept in the checkpoint). */
struct sweep_row {
    uint64_t item;
    int64_t gpus;
    int32_t status;                     /* 1 feasible, 0 no plan fits, < 0 error */
    bool calibrated;                    /* the item's system: false when its
                                           efficiencies are modelling defaults */
    char key[96];                       /* plan key; the message when status < 0 */
    double iteration_s, days, gpu_hours, cost_usd, energy_kwh, mfu, margin_gib;
};

/* What a sweep returns: n_items x n_gpus rows, by item then GPU count. */
struct sweep_result {                   /* caller-owned: sweep_result_release */
    uint64_t n_items;
    size_t n_gpus;
    struct sweep_row *rows;
    bool *done;                         /* per item */
    uint64_t n_done, n_resumed;         /* done in all; of them from the checkpoint */
};

/* ---- the grid (grid.c) ---- */
/* An empty sweep (max_items the default, price < 0); sweep_release frees. */
void sweep_init(struct sweep *sw);
void sweep_release(struct sweep *sw);
/* Add a varied field "section.field=V1,V2,..." where a value may be a range
 * LO:HI:xF (geometric) or LO:HI:+S (arithmetic); 'where' names the place
 * for messages ("--vary", "sweep.cfg:7"). TPL_ECONFIG when malformed. */
int sweep_add_vary(struct sweep *sw, const char *spec, const char *where,
                   struct tpl_err *err);
/* Add a linked field "FOLLOWED:section.field=V1,..." with one value per
 * value of the varied field FOLLOWED. */
int sweep_add_link(struct sweep *sw, const char *spec, const char *where,
                   struct tpl_err *err);
/* Items in the grid; TPL_ECONFIG naming the size when it exceeds max_items. */
int sweep_count(const struct sweep *sw, uint64_t *n, struct tpl_err *err);
/* The indices of item 'item': model, system, then one per axis. */
void sweep_decode(const struct sweep *sw, uint64_t item, int *model,
                  int *system, int axis_idx[SWEEP_MAX_AXES]);
/* The --set assignments of an item (fixed sets, axes, links) into 'buf'
 * (SWEEP_MAX_SETS + SWEEP_MAX_AXES + SWEEP_MAX_LINKS of them); returns n. */
#define SWEEP_SET_LEN 160
#define SWEEP_MAX_ITEM_SETS (SWEEP_MAX_SETS + SWEEP_MAX_AXES + SWEEP_MAX_LINKS)
int sweep_item_sets(const struct sweep *sw, uint64_t item,
                    char (*buf)[SWEEP_SET_LEN], const char **sets);
/* A canonical text of everything that decides the rows, hashed (FNV-1a):
 * a checkpoint belongs to one sweep. */
uint64_t sweep_hash(const struct sweep *sw);

/* ---- the sweep file (load.c) ---- */
extern const char sweep_default_text[];        /* the embedded default */
/* Load a sweep file ("default": the embedded one) into sw: every field
 * checked, "FILE:LINE: 'field' ..." errors (TPL_ECONFIG), TPL_EIO when
 * unreadable. */
int sweep_load(struct sweep *sw, const char *path, struct tpl_err *err);
/* Validate an already parsed tree into sw (sweep_init'ed). */
int sweep_read(struct sweep *sw, const struct conf *c, struct tpl_err *err);
/* Load every varied and linked value once on the first model and system so
 * a bad value is reported before any work (TPL_ECONFIG). */
int sweep_check(const struct sweep *sw, struct tpl_err *err);

/* ---- one item (item.c) ---- */
/* The number of GPU counts every item is searched on. */
int sweep_gpu_count(const struct sweep *sw, size_t *n, struct tpl_err *err);
/* Search item 'item' on the calling thread and fill its n_gpus rows; an
 * error is written into rows[0] (status < 0), never returned. */
void sweep_item_run(const struct sweep *sw, uint64_t item, size_t n_gpus,
                    struct sweep_row *rows);

/* ---- running (run.c) ---- */
struct sweep_run_cfg {
    const char *checkpoint;             /* NULL: none */
    const volatile sig_atomic_t *stop;  /* set by a signal: stop early */
    bool progress;                      /* a progress line on stderr */
    FILE *stream;                       /* non-NULL: each finished item's
                                           rows there at once, as CSV in the
                                           order they finish (sweep_stream_*) */
};
/* Run every item not already in the checkpoint, over OpenMP threads, or
 * over the ranks of an MPI job (mpi.c) where there is one. 0, TPL_EINTR
 * when stopped (the checkpoint holds what was done), TPL_ECONFIG when an
 * item failed, TPL_EIO when the checkpoint cannot be read or written. On
 * ranks other than 0 of an MPI job, 0 with an empty result. */
int sweep_run(const struct sweep *sw, const struct sweep_run_cfg *cfg,
              struct sweep_result *out, struct tpl_err *err);
void sweep_result_release(struct sweep_result *r);
/* Called once per finished item, one thread at a time, with its rows. */
struct sweep_sink {
    void (*fn)(void *arg, const struct sweep_row *rows, size_t n_gpus);
    void *arg;
};
/* Compute items 'items' (n of them) into 'rows' (n x n_gpus) over the
 * threads, dynamic schedule, each item's search on its thread; skips what
 * is left once *stop is set (those rows keep item UINT64_MAX). */
void sweep_items_compute(const struct sweep *sw, const uint64_t *items,
                         size_t n, size_t n_gpus, struct sweep_row *rows,
                         const volatile sig_atomic_t *stop,
                         const struct sweep_sink *sink);

/* ---- the checkpoint (ckpt.c) ---- */
struct sweep_ckpt {                     /* caller-owned */
    int fd;
    char *path;
};
/* Open (creating) the checkpoint of sweep hash 'hash', read the items it
 * holds into r (done, rows), drop a torn last record. TPL_ECONFIG when it
 * belongs to another sweep, TPL_EIO when unreadable. */
int sweep_ckpt_open(struct sweep_ckpt *c, const char *path, uint64_t hash,
                    struct sweep_result *r, struct tpl_err *err);
/* Append one item's rows as one record in one write. */
int sweep_ckpt_append(struct sweep_ckpt *c, const struct sweep_row *rows,
                      size_t n_gpus, struct tpl_err *err);
void sweep_ckpt_close(struct sweep_ckpt *c);

/* ---- MPI (mpi.c; stubs unless built with TRAINPLAN_MPI) ---- */
/* Start MPI when launched by mpirun or srun (else nothing); ranks then. */
void sweep_mpi_init(int *argc, char ***argv);
bool sweep_mpi_built(void);            /* built with TRAINPLAN_MPI */
bool sweep_mpi_lost(void);             /* rank 0 gave up on a rank that did
                                          not answer a stop (it died) */
int sweep_mpi_size(void);
int sweep_mpi_rank(void);
void sweep_mpi_finalize(void);
/* Rank 0 hands out the items of 'todo' in chunks, computes some itself
 * and gives every finished item's rows to 'sink' (on rank 0, one at a
 * time); the other ranks compute what they are given. A rank that returns
 * fewer rows than it was given (it was stopped) stops the handing out.
 * 0, or TPL_EIO when MPI fails. */
int sweep_mpi_run(const struct sweep *sw, const uint64_t *todo, size_t n_todo,
                  size_t n_gpus, const struct sweep_sink *sink,
                  const volatile sig_atomic_t *stop, struct tpl_err *err);

/* ---- output (report.c) ---- */
/* Write the rows in 'fmt' with the Pareto summary (days vs cost). */
/* Streamed rows (sweep --stream): the CSV header, then each finished
 * item's rows as they come, pareto left empty (it needs every row); each
 * call flushes. The ordered output is written at the end as usual. */
void sweep_stream_head(FILE *fp, const struct sweep *sw);
void sweep_stream_rows(FILE *fp, const struct sweep *sw,
                       const struct sweep_row *rows, size_t n_gpus);
int sweep_report_write(FILE *fp, enum res_format fmt, const struct sweep *sw,
                       const struct sweep_result *r, struct tpl_err *err);
/* Mark the rows (n_items x n_gpus) on their model's frontier. */
void sweep_frontier(const struct sweep *sw, const struct sweep_result *r,
                    bool *frontier);
/* ---- charts (charts.c): ".svg" or ".png"; TPL_EUSAGE, TPL_EIO ---- */
/* Days against cost, a colour per GPU count (the first 8), Pareto filled. */
int sweep_chart_pareto(const char *path, int w, int h, const struct sweep *sw,
                       const struct sweep_result *r, struct tpl_err *err);
/* Days over the first two varied fields (model 0, system 0, the other
 * fields at their first value, the largest GPU count). */
int sweep_chart_heat(const char *path, int w, int h, const struct sweep *sw,
                     const struct sweep_result *r, struct tpl_err *err);
/* Mark the rows on the time-vs-cost frontier of their group (feasible rows
 * only; group NULL: one group): no row of the group is as fast and as
 * cheap and better in one. Ties: the lower row index. */
void sweep_pareto(const struct sweep_row *rows, const int *group, size_t n,
                  bool *frontier);

#endif /* SWEEP_H */
