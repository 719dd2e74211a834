/* tests/unit/test_fidelity.c: fidelity statistics (fidelity/) against
 * hand-computed values on a small synthetic runs file
 * (tests/data/runs/small.csv). */
#include "helpers.h"

#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "fidelity/fidelity.h"

Test(fidelity, spearman_hand_computed)
{
    static const double a[5] = { 1, 2, 3, 4, 5 }, b[5] = { 5, 6, 7, 8, 7 };
    static const double c[4] = { 4, 3, 2, 1 }, d[4] = { 1, 2, 3, 4 };
    static const double flat[3] = { 2, 2, 2 };
    /* ranks of b: 1 2 3.5 5 3.5; rho = 8 / sqrt(10 * 9.5) */
    assert_rel(fid_spearman(a, b, 5), 8 / sqrt(95.0), 1e-12);
    assert_rel(fid_spearman(c, d, 4), -1.0, 1e-12);
    cr_assert_eq(fid_spearman(a, flat, 3), 0.0);
}

static int cmp(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

Test(fidelity, statistics_of_a_small_file)
{
    struct runs runs;
    struct tpl_err err = { 0 };
    struct fid_report *v;
    const struct fid_row *rows;
    size_t n;
    double ape[8], sum = 0;
    int k = 0;
    struct fid_stats s;
    cr_assert_eq(runs_load(&runs, "tests/data/runs/small.csv", &err), 0, "%s", err.msg);
    v = fid_report_new(&runs, NULL);
    rows = v->rows;
    n = v->n;
    cr_assert_eq(n, 7);
    cr_assert(strstr(rows[4].reason, "unknown system 'h800'"), "%s", rows[4].reason);
    cr_assert(strstr(rows[5].reason, "mixture of experts"), "%s", rows[5].reason);
    cr_assert(!rows[4].predicted && !rows[5].predicted);
    cr_assert(rows[6].predicted && !rows[6].timed);     /* memory only */
    for (size_t i = 0; i < n; i++)
        if (rows[i].predicted && rows[i].timed) {
            assert_rel(rows[i].err_pct, 100 * (rows[i].pred_s / rows[i].run->measured_iter_s - 1), 1e-9);
            ape[k++] = fabs(rows[i].err_pct);
            sum += fabs(rows[i].err_pct);
        }
    cr_assert_eq(k, 4);
    qsort(ape, 4, sizeof *ape, cmp);
    s = fid_stats_of(v, NULL, NULL);
    cr_assert_eq(s.n, 4);
    assert_rel(s.mape, sum / 4, 1e-12);
    assert_rel(s.median, (ape[1] + ape[2]) / 2, 1e-12);
    assert_rel(s.p90, ape[3], 1e-12);                   /* nearest rank: ceil(3.6) */
    assert_rel(s.worst, ape[3], 1e-12);
    s = fid_stats_of(v, "alpha", NULL);
    cr_assert_eq(s.n, 3);
    s = fid_stats_of(v, "beta:multi-node", NULL);
    cr_assert_eq(s.n, 1);                               /* T-04: 16 GPUs, 8 a node */
    fid_report_free(v);
    runs_release(&runs);
}

/* The published runs, when ../shared/data is there: every row is reported,
 * and most are predicted. */
Test(fidelity, published_runs_when_present)
{
    const char *shared = getenv("TRAINPLAN_SHARED");
    char path[600];
    struct runs runs;
    struct tpl_err err = { 0 };
    struct fid_report *v;
    size_t n, predicted = 0;
    const struct fid_row *rows;
    snprintf(path, sizeof path, "%s/data/runs-dev.csv", shared ? shared : "../shared");
    if (access(path, R_OK) != 0)
        skip_without_shared("%s absent: published-run check skipped", path);
    cr_assert_eq(runs_load(&runs, path, &err), 0, "%s", err.msg);
    v = fid_report_new(&runs, NULL);
    rows = v->rows;
    n = v->n;
    cr_assert_eq(n, runs.n);
    for (size_t i = 0; i < n; i++) {
        predicted += rows[i].predicted;
        if (rows[i].predicted)
            cr_assert(isfinite(rows[i].pred_s) && rows[i].pred_s > 0);
        else
            cr_assert_neq(rows[i].reason[0], '\0');
    }
    cr_assert_gt(predicted, n * 9 / 10);
    fid_report_free(v);
    runs_release(&runs);
}
