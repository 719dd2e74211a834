/* fidelity/cv.c: the constant fitted on published runs, and its
 * cross-validation by source (see fidelity.h).
 *
 * What is fitted: the host time per modelled kernel of the eager stacks
 * (spaces/stacks/megatron-lm-2021.cfg, megatron-deepspeed.cfg, host_us),
 * and of megatron-core's MoE layers outside CUDA graphs (megatron-core.cfg
 * moe_host_us: predictor/host.c; their rows are host_bound too, so
 * leaving mlm_moe_recipes out predicts it from vTrain's fit and leaving
 * vTrain out predicts it from the MoE rows').
 * It only matters where the host, not the GPU, sets the pace: small layers
 * issued one Python-level operation at a time. The objective is the MAPE of
 * the timed, predicted rows of those stacks; the time of a row grows with
 * the host time where it binds and not elsewhere, so the objective is
 * unimodal in practice and a golden-section search finds its minimum
 * (Kiefer 1953; Press et al., Numerical Recipes, 3rd ed., sec. 10.2).
 * Rows run with CUDA_LAUNCH_BLOCKING=1 (BLOOM's: fidelity/predict.c
 * row_launch) expose all their host time, so they would move the fit too,
 * but with it whatever else their prediction lacks: fitted without vTrain
 * on them, host_us runs to the bracket's end (200 us) and vTrain's held-out
 * MAPE to 122 %. The fit reads the asynchronous rows only; the blocking
 * rows are predicted with its value.
 * The other constants fitted on runs are the FP8 factor of the systems
 * without kernel samples, the share of a fabric no source measures and
 * the clock of a power limit no source measures (fidelity/tune.c).
 * Cross-validation leaves one source out at a time, refits every constant
 * fitted on runs on the others and predicts the source left out, so the
 * figure quoted for a source is one its own rows never tuned. */
#include "fidelity/fidelity.h"

#include <math.h>
#include <string.h>

#define GOLDEN_STEPS 40         /* bracket shrinks to 0.618^40 of 200 us */

/* MAPE of the host-bound, timed, predicted rows other than 'exclude', with
 * the eager host time set to host_us; *n gets how many. */
static double eager_mape(const struct runs *runs, const char *exclude,
                         double host_us, int *n)
{
    struct fid_report *v = fid_report_new_host(runs, NULL, host_us);
    double sum = 0;
    *n = 0;
    for (size_t i = 0; i < v->n; i++) {
        const struct fid_row *r = &v->rows[i];
        if (!r->predicted || !r->timed || !r->host_bound || r->launch_blocking ||
            (exclude && !strcmp(r->run->source, exclude)))
            continue;
        sum += fabs(r->err_pct);
        (*n)++;
    }
    fid_report_free(v);
    return *n ? sum / *n : 0;
}

struct host_fit { const struct runs *runs; const char *exclude; int n; };

static double host_objective(double host_us, void *arg)
{
    struct host_fit *h = arg;
    return eager_mape(h->runs, h->exclude, host_us, &h->n);
}

double fid_fit_host_us(const struct runs *runs, const char *exclude, int *n_rows)
{
    struct host_fit h = { runs, exclude, 0 };
    double x = fid_golden(host_objective, &h, 0, FID_HOST_MAX_US, GOLDEN_STEPS);
    *n_rows = h.n;
    return h.n ? x : -1;
}

/* What a source's rows feed: the host fit (asynchronous host-bound rows)
 * and the tune fit (rows of uncalibrated systems, on a fabric or a GPU
 * clock fitted on runs). */
static void source_feeds(const struct fid_report *all, const char *source,
                         bool *host, bool *tune)
{
    *host = *tune = false;
    for (size_t i = 0; i < all->n; i++) {
        const struct fid_row *r = &all->rows[i];
        if (!r->predicted || !r->timed || strcmp(r->run->source, source))
            continue;
        *host |= r->host_bound && !r->launch_blocking;
        *tune |= r->uncalibrated || r->net_tuned || r->clock_tuned;
    }
}

void fid_fit_runs(const struct runs *runs, const char *exclude,
                  struct fid_fit *f)
{
    f->host_us = fid_fit_host_us(runs, exclude, &f->host_rows);
    fid_fit_tune(runs, exclude, &f->tune, &f->tune_rows);  /* -1 parts: none */
}

/* The fit without 'source': the full fit where the source fed neither
 * part (leaving it out changes no objective), else refitted. The parts
 * are fitted apart: no eager stack runs on an uncalibrated system, and the
 * rows on a fabric fitted on runs (BLOOM's, run with CUDA_LAUNCH_BLOCKING)
 * are not the host fit's, nor are those on a GPU whose clock is (torchtitan's:
 * host_us 0), so no row feeds two. */
static void fit_without(const struct runs *runs, const struct fid_report *all,
                        const char *source, const struct fid_fit *full,
                        struct fid_fit *f)
{
    bool host, tune;
    source_feeds(all, source, &host, &tune);
    *f = *full;
    if (host)
        f->host_us = fid_fit_host_us(runs, source, &f->host_rows);
    if (tune)
        fid_fit_tune(runs, source, &f->tune, &f->tune_rows);
}

struct fid_report *fid_report_fitted(const struct runs *runs, const char *source,
                                     const struct fid_fit *f)
{
    return fid_report_new_tuned(runs, source, f->host_us, &f->tune);
}

struct fid_report *fid_cv_next(struct fid_cv_iter *it)
{
    if (!it->all) {
        it->all = fid_report_new(it->runs, NULL);
        it->n_src = fid_distinct(it->all, false, it->sources, FID_CV_SOURCES);
        fid_fit_runs(it->runs, NULL, &it->full);
        it->i = 0;
    }
    if (it->i >= it->n_src) {
        fid_report_free(it->all);
        it->all = NULL;
        return NULL;
    }
    it->source = it->sources[it->i++];
    fit_without(it->runs, it->all, it->source, &it->full, &it->fit);
    return fid_report_fitted(it->runs, it->source, &it->fit);
}

int fid_cv(const struct runs *runs, struct fid_cv_row *out, int cap)
{
    struct fid_cv_iter it = { .runs = runs };
    struct fid_report *v;
    int n = 0;
    while ((v = fid_cv_next(&it))) {
        struct fid_cv_row c = { .source = it.source, .fit = it.fit };
        c.in_sample = fid_stats_of(it.all, it.source, NULL);
        c.held_out = fid_stats_of(v, it.source, NULL);
        fid_report_free(v);
        if (c.in_sample.n > 0 && n < cap)
            out[n++] = c;
    }
    return n;
}

/* Pooled over sources: a mean weighted by each source's rows is the mean
 * over all their rows. Only n, mape and bias are filled. */
static struct fid_stats pooled(const struct fid_cv_row *rows, int n, bool held)
{
    struct fid_stats s = { 0 };
    for (int i = 0; i < n; i++) {
        const struct fid_stats *x = held ? &rows[i].held_out : &rows[i].in_sample;
        s.n += x->n;
        s.mape += x->n * x->mape;
        s.bias += x->n * x->bias;
    }
    if (s.n)
        s.mape /= s.n, s.bias /= s.n;
    return s;
}

void fid_cv_overall(const struct fid_cv_row *rows, int n, struct fid_cv_row *all)
{
    memset(all, 0, sizeof *all);
    all->source = "all";
    all->in_sample = pooled(rows, n, false);
    all->held_out = pooled(rows, n, true);
    all->fit.host_us = all->fit.tune.gemm_fp8_cs = all->fit.tune.network = -1;
    all->fit.tune.clock = -1;
}
