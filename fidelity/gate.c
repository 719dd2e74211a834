/* fidelity/gate.c: the fidelity gate (fidelity.h): the figures of a report
 * per source and overall (rows, MAPE and bias of iteration time, memory
 * MAPE, out-of-memory agreement, ranking), and their comparison with a
 * baseline's, figure by figure, each with its own tolerance. */
#include "fidelity/fidelity.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"

/* Which way is better: a lower value, a higher one, or a smaller |value|. */
enum rule { LOWER, HIGHER, ABS_LOWER };

static const struct {
    const char *key, *label;
    enum rule rule;
    bool count;                 /* an integer: rows or groups */
} figs[FIG_COUNT] = {
    [FIG_TIMED_ROWS]     = { "timed_rows", "timed rows", HIGHER, true },
    [FIG_MAPE]           = { "mape_pct", "MAPE", LOWER, false },
    [FIG_BIAS]           = { "bias_pct", "bias", ABS_LOWER, false },
    [FIG_PREDICTED_ROWS] = { "predicted_rows", "predicted rows", HIGHER, true },
    [FIG_OOM_AGREE]      = { "oom_agree_rows", "OOM agreeing rows", HIGHER, true },
    [FIG_MEM_ROWS]       = { "mem_rows", "memory rows", HIGHER, true },
    [FIG_MEM_MAPE]       = { "mem_mape_pct", "memory MAPE", LOWER, false },
    [FIG_GROUPS]         = { "groups", "ranking groups", HIGHER, true },
    [FIG_SPEARMAN]       = { "spearman", "Spearman", HIGHER, false },
    [FIG_REGRET]         = { "regret_pct", "top-1 regret", LOWER, false },
    [FIG_CV_MAPE]        = { "cv_mape_pct", "held-out MAPE", LOWER, false },
    [FIG_CV_BIAS]        = { "cv_bias_pct", "held-out bias", ABS_LOWER, false },
};

/* The values in fidelity.h's table; counts may not fall at all. */
const struct fid_tolerance fid_tolerance_default = { .x = {
    [FIG_MAPE] = 0.5, [FIG_BIAS] = 1.0, [FIG_MEM_MAPE] = 0.5,
    [FIG_CV_MAPE] = 0.5, [FIG_CV_BIAS] = 1.0,
    [FIG_SPEARMAN] = 0.02, [FIG_REGRET] = 0.5,
} };

/* A baseline stores 4 decimals: differences below this are rounding. */
#define ROUNDING 1e-4

const char *fid_fig_key(enum fid_fig f)
{
    return figs[f].key;
}

int fid_fig_find(const char *key)
{
    for (int k = 0; k < FIG_COUNT; k++)
        if (!strcmp(figs[k].key, key))
            return k;
    return -1;
}

bool fid_fig_is_count(enum fid_fig f)
{
    return figs[f].count;
}

/* ---- the figures of a report ---- */

static void put(struct fid_figures *f, enum fid_fig k, bool have, double x)
{
    f->have[k] = have;
    f->x[k] = have ? x : 0;
}

static void time_figures(struct fid_figures *f, struct fid_stats s)
{
    put(f, FIG_TIMED_ROWS, true, s.n);
    put(f, FIG_MAPE, s.n > 0, s.mape);
    put(f, FIG_BIAS, s.n > 0, s.bias);
}

static void memory_figures(struct fid_figures *f, struct fid_memory m)
{
    put(f, FIG_PREDICTED_ROWS, true, m.n);
    put(f, FIG_OOM_AGREE, true, m.agree);
    put(f, FIG_MEM_ROWS, true, m.n_mem);
    put(f, FIG_MEM_MAPE, m.n_mem > 0, m.mem_ape);
}

static void ranking_figures(struct fid_figures *f, struct fid_ranking k)
{
    put(f, FIG_GROUPS, true, k.groups);
    put(f, FIG_SPEARMAN, k.groups > 0, k.spearman);
    put(f, FIG_REGRET, k.groups > 0, k.regret_pct);
}

static struct fid_figures *new_set(struct fid_gate *g, const char *name)
{
    struct fid_figures *f = &g->sets[g->n++];
    snprintf(f->name, sizeof f->name, "%s", name);
    return f;
}

/* A source's set and, when only some of its rows span nodes, theirs. */
static void source_sets(const struct fid_report *v, const char *source,
                        struct fid_gate *g)
{
    struct fid_figures *f = new_set(g, source);
    struct fid_stats all = fid_stats_of(v, source, NULL), part;
    char multi[48];
    time_figures(f, all);
    memory_figures(f, fid_memory_of(v, source));
    ranking_figures(f, fid_ranking_of(v, source));
    snprintf(multi, sizeof multi, "%s:multi-node", source);
    part = fid_stats_of(v, multi, NULL);
    if (part.n && part.n < all.n)
        time_figures(new_set(g, multi), part);
}

void fid_gate_of(const struct fid_report *v, struct fid_gate *g)
{
    const char **names = xmalloc((v->n ? v->n : 1) * sizeof *names);
    int n = fid_distinct(v, false, names, (int)v->n);
    struct fid_figures *all;
    memset(g, 0, sizeof *g);
    g->sets = xcalloc(2 * (size_t)n + 1, sizeof *g->sets);
    all = new_set(g, "overall");
    time_figures(all, fid_stats_of(v, NULL, NULL));
    memory_figures(all, fid_memory_of(v, NULL));
    for (int i = 0; i < n; i++)
        source_sets(v, names[i], g);
    free(names);
}

static int set_index(const struct fid_gate *g, const char *name)
{
    for (int i = 0; i < g->n; i++)
        if (!strcmp(g->sets[i].name, name))
            return i;
    return -1;
}

static void cv_figures(struct fid_gate *g, const char *name, struct fid_stats s)
{
    int i = set_index(g, name);
    if (i < 0)
        return;
    put(&g->sets[i], FIG_CV_MAPE, s.n > 0, s.mape);
    put(&g->sets[i], FIG_CV_BIAS, s.n > 0, s.bias);
}

void fid_gate_add_cv(struct fid_gate *g, const struct fid_cv_row *rows, int n)
{
    struct fid_cv_row all;
    fid_cv_overall(rows, n, &all);
    cv_figures(g, "overall", all.held_out);
    for (int i = 0; i < n; i++)
        cv_figures(g, rows[i].source, rows[i].held_out);
}

void fid_gate_free(struct fid_gate *g)
{
    free(g->sets);
    g->sets = NULL;
    g->n = 0;
}

/* ---- the comparison ---- */

enum verdict { SAME, BETTER, WORSE, NEW, LOST };

/* How much worse 'now' is than 'base'; below 0: better. */
static double worsening(enum fid_fig k, double base, double now)
{
    switch (figs[k].rule) {
    case LOWER:  return now - base;
    case HIGHER: return base - now;
    default:     return fabs(now) - fabs(base);
    }
}

static enum verdict judge(const struct fid_figures *b, const struct fid_figures *n,
                          enum fid_fig k, double tol)
{
    double d;
    if (!b->have[k] || !n->have[k])
        return b->have[k] ? LOST : n->have[k] ? NEW : SAME;
    d = worsening(k, b->x[k], n->x[k]);
    return d > tol + ROUNDING ? WORSE : d < -tol - ROUNDING ? BETTER : SAME;
}

static void value(char *buf, size_t len, enum fid_fig k, double x)
{
    if (figs[k].count)
        snprintf(buf, len, "%.0f", x);
    else if (k == FIG_SPEARMAN)
        snprintf(buf, len, "%.3f", x);
    else
        snprintf(buf, len, "%.2f%%", x);
}

/* The line of a figure that is not the same; true when it fails. */
static bool report(FILE *msg, const struct fid_figures *b, const struct fid_figures *n,
                   enum fid_fig k, enum verdict what, double tol)
{
    char now[32], base[32];
    const char *name = n->name, *label = figs[k].label;
    value(now, sizeof now, k, n->x[k]);
    value(base, sizeof base, k, b->x[k]);
    if (what == NEW)
        fprintf(msg, "validate: %s: %s %s has no baseline: run `make "
                "validate-baseline`\n", name, label, now);
    else if (what == LOST)
        fprintf(msg, "validate: %s: %s no longer measured (baseline %s): LOST\n",
                name, label, base);
    else
        fprintf(msg, "validate: %s: %s %s, baseline %s (tolerance %g): %s\n", name,
                label, now, base, tol, what == WORSE ? "WORSE"
                : "better: `make validate-baseline` makes it the new bar");
    return what != BETTER;
}

/* One set against its baseline: the failures. */
static int compare_set(const struct fid_figures *b, const struct fid_figures *n,
                       const struct fid_tolerance *tol, FILE *msg)
{
    int failed = 0, checked = 0, other = 0;
    for (int k = 0; k < FIG_COUNT; k++) {
        enum verdict what = judge(b, n, k, tol->x[k]);
        checked += b->have[k] || n->have[k];
        if (what == SAME)
            continue;
        other++;
        failed += report(msg, b, n, k, what, tol->x[k]);
    }
    if (!other)
        fprintf(msg, "validate: %-28s ok (%d figures)\n", n->name, checked);
    return failed;
}

static const struct fid_figures *find_set(const struct fid_gate *g, const char *name)
{
    int i = set_index(g, name);
    return i < 0 ? NULL : &g->sets[i];
}

int fid_gate_compare(const struct fid_gate *base, const struct fid_gate *now,
                     const struct fid_tolerance *tol, FILE *msg)
{
    int failed = 0;
    for (int i = 0; i < now->n; i++) {
        const struct fid_figures *b = find_set(base, now->sets[i].name);
        if (b)
            failed += compare_set(b, &now->sets[i], tol, msg);
        else
            fprintf(msg, "validate: source %s has no baseline: run `make "
                    "validate-baseline`\n", now->sets[i].name);
        failed += !b;
    }
    for (int i = 0; i < base->n; i++)
        if (!find_set(now, base->sets[i].name)) {
            fprintf(msg, "validate: source %s of the baseline is not in the data "
                    "(another runs file? if it left the data, run `make "
                    "validate-baseline`)\n", base->sets[i].name);
            failed++;
        }
    fprintf(msg, "validate: %d sets of figures against the baseline: %s (%d failed)\n",
            now->n, failed ? "WORSE" : "ok", failed);
    return failed;
}
