/* fidelity/runs.h: a runs file (../shared/data/RUNS.md schema): published
 * training runs, one per row, with model, cluster, plan and what was
 * measured. Read strictly: every column of the schema must be in the
 * header (any order; other columns are ignored) but the optional last one,
 * 'stack' (RUNS.md "Stacks"), every row must have as
 * many fields as the header, and every value is checked, with errors
 * naming file, line and column. */
#ifndef FID_RUNS_H
#define FID_RUNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "spaces/plan.h"

enum run_kind { RUN_MEASURED, RUN_DERIVED, RUN_NONE, RUN_KIND_COUNT };

struct run_row {                /* a plain value */
    int line;                   /* 1-based line in the file */
    char id[64], source[32], confidence[4], system[32], gpu[32], model[96];
    int64_t num_gpus, gpus_per_node;
    int64_t layers, hidden, heads, kv_heads, ffn_hidden, vocab, seq;
    bool glu;
    int64_t moe_experts, moe_topk;
    int64_t tp, pp, dp, cp, ep, vpp;
    bool sp;
    enum plan_recompute recompute;
    int64_t zero;               /* 0, 1 or 3 */
    int64_t mbs, gbs;
    enum job_precision precision;
    double measured_iter_s;     /* 0 when blank */
    enum run_kind kind;
    double measured_mem_gib;    /* < 0 when blank */
    bool oom;
    char assumed[160];
    char stack[24];             /* RUNS.md "Stacks"; "" without the column */
};

struct runs {                   /* caller-owned: runs_release */
    struct run_row *rows;
    size_t n;
    bool has_stack;             /* the file has the optional 'stack' column */
};

/* Read a runs file. TPL_EIO when unreadable; TPL_ECONFIG for a bad header
 * ("FILE:1: missing column 'tp'") or row ("FILE:17: column 'tp': must be an
 * integer >= 1, not 'x'"; "FILE:17: 36 fields, the header has 35"). */
int runs_load(struct runs *out, const char *path, struct tpl_err *err);
/* The same from text in memory ('name' stands for the file in messages). */
int runs_parse(struct runs *out, const char *name, const char *text,
               struct tpl_err *err);
void runs_release(struct runs *r);

const char *run_kind_name(enum run_kind k);

#endif /* FID_RUNS_H */
