/* fidelity/stats.c: the statistics of a fidelity report (fidelity.h):
 * absolute percentage error (APE) per row; MAPE, median, 90th percentile
 * (nearest rank) and worst per source, per system and overall; Spearman's
 * rank correlation (average ranks for ties) inside groups of runs with the
 * same source, model, GPU count and global batch; the top-1 regret
 * (measured time of the predicted-fastest run over the fastest); memory
 * and out-of-memory agreement. */
#include "fidelity/fidelity.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A source name may end in ":multi-node": only its rows of more than one
 * node (the vTrain multi-node set, 64 GPUs and up). */
static bool row_in(const struct fid_row *o, const char *source, const char *system)
{
    size_t len = source ? strcspn(source, ":") : 0;
    bool multi = source && !strcmp(source + len, ":multi-node");
    return o->predicted && o->timed &&
           (!source || (strlen(o->run->source) == len &&
                        !strncmp(o->run->source, source, len))) &&
           (!multi || o->run->num_gpus > o->run->gpus_per_node) &&
           (!system || !strcmp(o->run->system, system));
}

struct fid_stats fid_stats_of(const struct fid_report *v, const char *source,
                              const char *system)
{
    struct fid_stats s = { 0 };
    double *ape = xmalloc((v->n ? v->n : 1) * sizeof *ape), sum = 0, bias = 0;
    for (size_t i = 0; i < v->n; i++) {
        const struct fid_row *o = &v->rows[i];
        if (!row_in(o, source, system))
            continue;
        ape[s.n++] = fabs(o->err_pct);
        sum += fabs(o->err_pct);
        bias += o->err_pct;
        if (fabs(o->err_pct) > s.worst || !s.worst_id) {
            s.worst = fabs(o->err_pct);
            s.worst_id = o->run->id;
        }
    }
    if (s.n) {
        qsort(ape, (size_t)s.n, sizeof *ape, cmp_double);
        s.mape = sum / s.n;
        s.bias = bias / s.n;
        s.median = s.n % 2 ? ape[s.n / 2] : (ape[s.n / 2 - 1] + ape[s.n / 2]) / 2;
        s.p90 = ape[(int)ceil(0.9 * s.n) - 1];
    }
    free(ape);
    return s;
}

/* ---- ranking ---- */

/* Ranks 1..n with ties sharing their average rank. */
static void ranks(const double *x, int n, double *rank)
{
    for (int i = 0; i < n; i++) {
        int less = 0, equal = 0;
        for (int k = 0; k < n; k++) {
            less += x[k] < x[i];
            equal += x[k] == x[i];
        }
        rank[i] = less + (equal + 1) / 2.0;
    }
}

/* Pearson correlation of the ranks; 0 when either side has no spread. */
double fid_spearman(const double *a, const double *b, int n)
{
    double *ra = xmalloc((size_t)n * sizeof *ra), *rb = xmalloc((size_t)n * sizeof *rb);
    double ma = 0, mb = 0, sab = 0, saa = 0, sbb = 0;
    ranks(a, n, ra);
    ranks(b, n, rb);
    for (int i = 0; i < n; i++) {
        ma += ra[i] / n;
        mb += rb[i] / n;
    }
    for (int i = 0; i < n; i++) {
        sab += (ra[i] - ma) * (rb[i] - mb);
        saa += (ra[i] - ma) * (ra[i] - ma);
        sbb += (rb[i] - mb) * (rb[i] - mb);
    }
    free(ra);
    free(rb);
    return saa > 0 && sbb > 0 ? sab / sqrt(saa * sbb) : 0.0;
}

static bool same_group(const struct run_row *a, const struct run_row *b)
{
    return !strcmp(a->source, b->source) && !strcmp(a->model, b->model) &&
           a->num_gpus == b->num_gpus && a->gbs == b->gbs;
}

/* The group of row i (its rows marked used) into 'pred' and 'meas'; its
 * size, with the predicted-fastest row and the fastest measured time. */
static int group_of(const struct fid_report *v, size_t i, bool *used,
                    double *pred, double *meas, int *best, double *min_meas)
{
    int n = 0;
    *best = 0;
    *min_meas = INFINITY;
    for (size_t k = i; k < v->n; k++)
        if (!used[k] && row_in(&v->rows[k], NULL, NULL) &&
            same_group(v->rows[i].run, v->rows[k].run)) {
            used[k] = true;
            pred[n] = v->rows[k].pred_s;
            meas[n] = v->rows[k].run->measured_iter_s;
            if (pred[n] < pred[*best])
                *best = n;
            *min_meas = fmin(*min_meas, meas[n]);
            n++;
        }
    return n;
}

void fid_groups_build(struct fid_report *v)
{
    double *pred = xmalloc((v->n ? v->n : 1) * sizeof *pred);
    double *meas = xmalloc((v->n ? v->n : 1) * sizeof *meas);
    bool *used = xcalloc(v->n ? v->n : 1, sizeof *used);
    v->groups = xcalloc(v->n ? v->n : 1, sizeof *v->groups);
    for (size_t i = 0; i < v->n; i++) {
        const struct run_row *r = v->rows[i].run;
        int n, best;
        double min_meas;
        if (used[i] || !row_in(&v->rows[i], NULL, NULL))
            continue;
        n = group_of(v, i, used, pred, meas, &best, &min_meas);
        if (n < 3)
            continue;
        v->groups[v->n_groups++] = (struct fid_group){
            .source = r->source, .model = r->model,
            .gpus = r->num_gpus, .gbs = r->gbs, .n = n,
            .spearman = fid_spearman(pred, meas, n),
            .regret_pct = 100.0 * (meas[best] / min_meas - 1.0) };
    }
    free(pred);
    free(meas);
    free(used);
}

struct fid_ranking fid_ranking_of(const struct fid_report *v, const char *source)
{
    struct fid_ranking k = { 0 };
    for (size_t g = 0; g < v->n_groups; g++)
        if (!strcmp(v->groups[g].source, source)) {
            k.groups++;
            k.spearman += v->groups[g].spearman;
            k.regret_pct += v->groups[g].regret_pct;
        }
    if (k.groups) {
        k.spearman /= k.groups;
        k.regret_pct /= k.groups;
    }
    return k;
}

/* ---- memory, names ---- */

struct fid_memory fid_memory_of(const struct fid_report *v, const char *source)
{
    struct fid_memory m = { 0 };
    for (size_t i = 0; i < v->n; i++) {
        const struct fid_row *o = &v->rows[i];
        if (!o->predicted || (source && strcmp(o->run->source, source)))
            continue;
        m.n++;
        m.agree += o->pred_fits == !o->run->oom;
        if (o->run->measured_mem_gib > 0) {
            m.n_mem++;
            m.mem_ape += 100 * fabs(o->pred_mem_gib - o->run->measured_mem_gib) /
                         o->run->measured_mem_gib;
        }
    }
    if (m.n_mem)
        m.mem_ape /= m.n_mem;
    return m;
}

int fid_distinct(const struct fid_report *v, bool systems, const char **out,
                 int cap)
{
    int n = 0;
    for (size_t i = 0; i < v->n; i++) {
        const char *s = systems ? v->rows[i].run->system : v->rows[i].run->source;
        bool seen = false;
        for (int k = 0; k < n && !seen; k++)
            seen = !strcmp(out[k], s);
        if (!seen && n < cap)
            out[n++] = s;
    }
    return n;
}

double fid_golden(fid_objective *f, void *arg, double a, double b, int steps)
{
    const double g = (sqrt(5.0) - 1) / 2;
    double x1 = b - g * (b - a), x2 = a + g * (b - a);
    double f1 = f(x1, arg), f2 = f(x2, arg);
    for (int k = 0; k < steps; k++) {
        if (f1 <= f2) {                 /* the minimum is in [a, x2] */
            b = x2, x2 = x1, f2 = f1;
            x1 = b - g * (b - a);
            f1 = f(x1, arg);
        } else {                        /* in [x1, b] */
            a = x1, x1 = x2, f1 = f2;
            x2 = a + g * (b - a);
            f2 = f(x2, arg);
        }
    }
    return (a + b) / 2;
}
