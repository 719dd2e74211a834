/* fidelity/cv.c: the constant fitted on published runs, and its
 * cross-validation by source (see fidelity.h).
 *
 * What is fitted: the host time per modelled kernel of the eager stacks
 * (spaces/stacks/megatron-lm-2021.cfg, megatron-deepspeed.cfg, host_us).
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
 * Cross-validation leaves one source out at a time, fits on the others and
 * predicts the source left out, so the figure quoted for a source is one
 * its own rows never tuned. */
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

double fid_fit_host_us(const struct runs *runs, const char *exclude, int *n_rows)
{
    const double g = (sqrt(5.0) - 1) / 2;
    double a = 0, b = FID_HOST_MAX_US, x1 = b - g * (b - a), x2 = a + g * (b - a);
    double f1 = eager_mape(runs, exclude, x1, n_rows);
    double f2 = eager_mape(runs, exclude, x2, n_rows);
    if (*n_rows == 0)
        return -1;
    for (int k = 0; k < GOLDEN_STEPS; k++) {
        if (f1 <= f2) {                 /* the minimum is in [a, x2] */
            b = x2, x2 = x1, f2 = f1;
            x1 = b - g * (b - a);
            f1 = eager_mape(runs, exclude, x1, n_rows);
        } else {                        /* in [x1, b] */
            a = x1, x1 = x2, f1 = f2;
            x2 = a + g * (b - a);
            f2 = eager_mape(runs, exclude, x2, n_rows);
        }
    }
    return (a + b) / 2;
}

/* Source i's statistics with the eager host time host_us (< 0: presets). */
static struct fid_stats source_stats(const struct runs *runs, const char *source,
                                     double host_us)
{
    struct fid_report *v = fid_report_new_host(runs, source, host_us);
    struct fid_stats s = fid_stats_of(v, source, NULL);
    fid_report_free(v);
    return s;
}

int fid_cv(const struct runs *runs, struct fid_cv_row *out, int cap)
{
    const char *sources[64];
    struct fid_report *all = fid_report_new(runs, NULL);
    int n_src = fid_distinct(all, false, sources, 64), n = 0;
    for (int i = 0; i < n_src && n < cap; i++) {
        struct fid_cv_row *c = &out[n];
        int seen;
        c->source = sources[i];
        c->in_sample = fid_stats_of(all, sources[i], NULL);
        if (c->in_sample.n == 0)
            continue;
        c->host_us = fid_fit_host_us(runs, sources[i], &seen);
        c->held_out = source_stats(runs, sources[i], c->host_us);
        n++;
    }
    fid_report_free(all);
    return n;
}
