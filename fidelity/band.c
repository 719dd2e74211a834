/* fidelity/band.c: the error band of each stack (fidelity.h): the 10th and
 * 90th percentiles of the signed error its rows show when predicted by a
 * fit that never saw their source. A stack with few such rows borrows the
 * quantiles of all rows, widened by FID_BAND_WIDEN about their centre: the
 * band of an unvalidated stack should be no narrower than the predictor's
 * overall error, and wider because nothing checks it. */
#include "fidelity/fidelity.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double fid_quantile(double *x, int n, double q)
{
    double h = (n - 1) * q;
    int i = (int)floor(h);
    qsort(x, (size_t)n, sizeof *x, cmp_double);
    if (i >= n - 1)
        return x[n - 1];
    return x[i] + (h - i) * (x[i + 1] - x[i]);
}

/* Append the held-out errors of one source's report; returns the new count. */
static int source_errors(const struct fid_report *v, struct fid_cv_err *out,
                         int n, int cap)
{
    for (size_t i = 0; i < v->n && n < cap; i++) {
        const struct fid_row *r = &v->rows[i];
        if (!r->predicted || !r->timed)
            continue;
        out[n] = (struct fid_cv_err){ r->err_pct, r->stack,
                                      (double)r->run->num_gpus, r->params_b, "" };
        memcpy(out[n++].arch, r->arch, sizeof r->arch);
    }
    return n;
}

int fid_cv_errors(const struct runs *runs, struct fid_cv_err *out, int cap)
{
    struct fid_cv_iter it = { .runs = runs };
    struct fid_report *v;
    int n = 0;
    while ((v = fid_cv_next(&it))) {
        n = source_errors(v, out, n, cap);
        fid_report_free(v);
    }
    return n;
}

/* Add a row's architecture to the region's, kept sorted (a row of a system
 * that names none, or beyond STACK_MAX_ARCHS, adds nothing). */
static void add_arch(struct stack_region *r, const char *arch)
{
    int i = 0;
    if (!*arch || r->n_archs >= STACK_MAX_ARCHS || stack_region_lists(r, arch))
        return;
    while (i < r->n_archs && strcmp(r->archs[i], arch) < 0)
        i++;
    memmove(r->archs[i + 1], r->archs[i], (size_t)(r->n_archs - i) * STACK_ARCH_LEN);
    snprintf(r->archs[i], STACK_ARCH_LEN, "%s", arch);
    r->n_archs++;
}

/* The errors of one stack (every stack: NULL) gathered at the front of
 * 'buf', the range of their GPU counts and sizes and their architectures
 * into *r; returns how many. */
static int stack_errors(const struct fid_cv_err *e, int n, const char *name,
                        double *buf, struct stack_region *r)
{
    int k = 0;
    *r = (struct stack_region){ INFINITY, 0, INFINITY, 0, 0, { "" } };
    for (int i = 0; i < n; i++) {
        if (name && strcmp(e[i].stack, name))
            continue;
        buf[k++] = e[i].err_pct;
        add_arch(r, e[i].arch);
        r->gpus_lo = fmin(r->gpus_lo, e[i].gpus);
        r->gpus_hi = fmax(r->gpus_hi, e[i].gpus);
        r->params_b_lo = fmin(r->params_b_lo, e[i].params_b);
        r->params_b_hi = fmax(r->params_b_hi, e[i].params_b);
    }
    return k;
}

int fid_bands_of(const struct fid_cv_err *e, int n, const char *const *stacks,
                 int n_stacks, struct fid_band *out)
{
    double *buf, all_lo, all_hi, mid;
    struct stack_region all;
    if (n <= 0 || !(buf = malloc((size_t)n * sizeof *buf)))
        return -1;
    stack_errors(e, n, NULL, buf, &all);
    all_lo = fid_quantile(buf, n, FID_BAND_LOW_Q);
    all_hi = fid_quantile(buf, n, FID_BAND_HIGH_Q);
    mid = (all_lo + all_hi) / 2;
    for (int s = 0; s < n_stacks; s++) {
        struct fid_band *b = &out[s];
        b->stack = stacks[s];
        b->n = stack_errors(e, n, stacks[s], buf, &b->region);
        b->pooled = b->n < FID_BAND_MIN_ROWS;
        if (b->pooled)
            b->region = all;
        b->low_pct = b->pooled ? mid - FID_BAND_WIDEN * (mid - all_lo)
                               : fid_quantile(buf, b->n, FID_BAND_LOW_Q);
        b->high_pct = b->pooled ? mid + FID_BAND_WIDEN * (all_hi - mid)
                                : fid_quantile(buf, b->n, FID_BAND_HIGH_Q);
    }
    free(buf);
    return 0;
}
