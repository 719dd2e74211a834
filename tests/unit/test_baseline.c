/* tests/unit/test_baseline.c: the fidelity gate (fidelity/gate.c and
 * baseline.c) on hand-made figures: each figure worse beyond its tolerance
 * fails, within it passes; a source without baseline, or a baseline source
 * not in the data, fails; a figure measured on one side only fails; the
 * baseline file round-trips and malformed ones are refused. The expected
 * outcomes follow from the tolerances the README documents, not from the
 * code: MAPE 0.5 points, |bias| 1 point, memory MAPE 0.5, OOM agreeing rows
 * 0, Spearman 0.02, top-1 regret 0.5, row and group counts 0, held-out
 * MAPE 0.5 and |held-out bias| 1. */
#include "helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fidelity/fidelity.h"

/* A source with every figure measured. */
static struct fid_figures sample(const char *name)
{
    struct fid_figures f = { .x = {
        [FIG_TIMED_ROWS] = 20, [FIG_MAPE] = 10, [FIG_BIAS] = -8,
        [FIG_PREDICTED_ROWS] = 24, [FIG_OOM_AGREE] = 22, [FIG_MEM_ROWS] = 6,
        [FIG_MEM_MAPE] = 12, [FIG_GROUPS] = 3, [FIG_SPEARMAN] = 0.8,
        [FIG_REGRET] = 4, [FIG_CV_MAPE] = 15, [FIG_CV_BIAS] = -12 } };
    for (int k = 0; k < FIG_COUNT; k++)
        f.have[k] = true;
    snprintf(f.name, sizeof f.name, "%s", name);
    return f;
}

static char text[4096];         /* the gate's messages of the last compare */

static int compare(struct fid_figures *b, int nb, struct fid_figures *n, int nn)
{
    struct fid_gate base = { .sets = b, .n = nb }, now = { .sets = n, .n = nn };
    FILE *msg = fmemopen(text, sizeof text, "w");
    int failed;
    cr_assert(msg);
    failed = fid_gate_compare(&base, &now, &fid_tolerance_default, msg);
    fclose(msg);
    return failed;
}

/* Failures when source "src" has figure k moved by d. */
static int moved(enum fid_fig k, double d)
{
    struct fid_figures b[2] = { sample("overall"), sample("src") };
    struct fid_figures n[2] = { b[0], b[1] };
    n[1].x[k] += d;
    return compare(b, 2, n, 2);
}

Test(gate, same_figures_pass)
{
    cr_assert_eq(moved(FIG_MAPE, 0), 0, "%s", text);
    cr_assert(strstr(text, "src ") && strstr(text, "ok (12 figures)"), "%s", text);
}

Test(gate, mape_beyond_tolerance_fails_within_passes)
{
    cr_assert_eq(moved(FIG_MAPE, 0.6), 1, "%s", text);
    cr_assert(strstr(text, "src: MAPE 10.60%, baseline 10.00% (tolerance 0.5): "
                     "WORSE"), "%s", text);
    cr_assert_eq(moved(FIG_MAPE, 0.4), 0, "%s", text);
    cr_assert_eq(moved(FIG_MAPE, -0.6), 0, "%s", text);    /* better */
    cr_assert(strstr(text, "better"), "%s", text);
}

Test(gate, bias_is_judged_by_its_size)
{
    cr_assert_eq(moved(FIG_BIAS, -1.5), 1, "%s", text);    /* -8 -> -9.5 */
    cr_assert_eq(moved(FIG_BIAS, -0.9), 0, "%s", text);    /* -8 -> -8.9 */
    cr_assert_eq(moved(FIG_BIAS, 4), 0, "%s", text);       /* -8 -> -4 */
    cr_assert_eq(moved(FIG_BIAS, 17.5), 1, "%s", text);    /* -8 -> +9.5 */
}

Test(gate, held_out_figures_are_gated)
{
    cr_assert_eq(moved(FIG_CV_MAPE, 0.6), 1, "%s", text);
    cr_assert(strstr(text, "src: held-out MAPE 15.60%, baseline 15.00% "
                     "(tolerance 0.5): WORSE"), "%s", text);
    cr_assert_eq(moved(FIG_CV_MAPE, 0.4), 0, "%s", text);
    cr_assert_eq(moved(FIG_CV_BIAS, -1.5), 1, "%s", text);    /* -12 -> -13.5 */
    cr_assert_eq(moved(FIG_CV_BIAS, 3), 0, "%s", text);       /* -12 -> -9 */
}

/* fid_gate_add_cv: each source's held-out figures into its set, the pooled
 * ones into "overall": rows 10 at MAPE 4 / bias -2 and 30 at 8 / +2 pool
 * to (10*4 + 30*8) / 40 = 7 and (10*-2 + 30*2) / 40 = +1; a source
 * without a set is skipped, one without held-out rows gets none. */
Test(gate, held_out_figures_pooled_by_rows)
{
    struct fid_figures sets[3] = { sample("overall"), sample("a"), sample("b") };
    struct fid_gate g = { .sets = sets, .n = 3 };
    struct fid_cv_row rows[3] = {
        { .source = "a", .held_out = { .n = 10, .mape = 4, .bias = -2 } },
        { .source = "b", .held_out = { .n = 0 } },
        { .source = "c", .held_out = { .n = 30, .mape = 8, .bias = 2 } },
    };
    fid_gate_add_cv(&g, rows, 3);
    cr_assert_float_eq(sets[0].x[FIG_CV_MAPE], 7.0, 1e-12);
    cr_assert_float_eq(sets[0].x[FIG_CV_BIAS], 1.0, 1e-12);
    cr_assert_float_eq(sets[1].x[FIG_CV_MAPE], 4.0, 1e-12);
    cr_assert_float_eq(sets[1].x[FIG_CV_BIAS], -2.0, 1e-12);
    cr_assert(!sets[2].have[FIG_CV_MAPE] && !sets[2].have[FIG_CV_BIAS]);
}

Test(gate, oom_agreement_may_not_drop_a_row)
{
    cr_assert_eq(moved(FIG_OOM_AGREE, -1), 1, "%s", text);
    cr_assert(strstr(text, "OOM agreeing rows 21, baseline 22"), "%s", text);
    cr_assert_eq(moved(FIG_OOM_AGREE, 1), 0, "%s", text);
}

Test(gate, spearman_drop_beyond_tolerance_fails)
{
    cr_assert_eq(moved(FIG_SPEARMAN, -0.03), 1, "%s", text);
    cr_assert(strstr(text, "Spearman 0.770, baseline 0.800"), "%s", text);
    cr_assert_eq(moved(FIG_SPEARMAN, -0.01), 0, "%s", text);
}

Test(gate, memory_mape_rise_beyond_tolerance_fails)
{
    cr_assert_eq(moved(FIG_MEM_MAPE, 0.6), 1, "%s", text);
    cr_assert(strstr(text, "memory MAPE 12.60%"), "%s", text);
    cr_assert_eq(moved(FIG_MEM_MAPE, 0.4), 0, "%s", text);
}

Test(gate, regret_rise_beyond_tolerance_fails)
{
    cr_assert_eq(moved(FIG_REGRET, 0.6), 1, "%s", text);
    cr_assert_eq(moved(FIG_REGRET, 0.4), 0, "%s", text);
}

/* A lost row flatters what remains: no count may fall. */
Test(gate, counts_may_not_fall)
{
    static const enum fid_fig counts[] = { FIG_TIMED_ROWS, FIG_PREDICTED_ROWS,
                                           FIG_MEM_ROWS, FIG_GROUPS };
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        cr_assert_eq(moved(counts[i], -1), 1, "%s: %s", fid_fig_key(counts[i]), text);
        cr_assert_eq(moved(counts[i], 1), 0, "%s: %s", fid_fig_key(counts[i]), text);
    }
}

Test(gate, the_overall_figures_are_gated_too)
{
    struct fid_figures b[2] = { sample("overall"), sample("src") };
    struct fid_figures n[2] = { b[0], b[1] };
    n[0].x[FIG_MAPE] += 0.6;
    cr_assert_eq(compare(b, 2, n, 2), 1, "%s", text);
    cr_assert(strstr(text, "overall: MAPE"), "%s", text);
}

Test(gate, a_source_without_baseline_fails)
{
    struct fid_figures b[2] = { sample("overall"), sample("src") };
    struct fid_figures n[3] = { b[0], b[1], sample("newcomer") };
    cr_assert_eq(compare(b, 2, n, 3), 1, "%s", text);
    cr_assert(strstr(text, "source newcomer has no baseline: run `make "
                     "validate-baseline`"), "%s", text);
}

Test(gate, a_baseline_source_missing_from_the_data_fails)
{
    struct fid_figures b[3] = { sample("overall"), sample("src"), sample("gone") };
    struct fid_figures n[2] = { b[0], b[1] };
    cr_assert_eq(compare(b, 3, n, 2), 1, "%s", text);
    cr_assert(strstr(text, "source gone of the baseline is not in the data"),
              "%s", text);
}

Test(gate, a_figure_on_one_side_only_fails)
{
    struct fid_figures b[2] = { sample("overall"), sample("src") };
    struct fid_figures n[2] = { b[0], b[1] };
    n[1].have[FIG_MEM_MAPE] = false;            /* no longer measured */
    cr_assert_eq(compare(b, 2, n, 2), 1, "%s", text);
    cr_assert(strstr(text, "memory MAPE no longer measured"), "%s", text);
    n[1].have[FIG_MEM_MAPE] = true;
    b[1].have[FIG_SPEARMAN] = false;            /* newly measured */
    cr_assert_eq(compare(b, 2, n, 2), 1, "%s", text);
    cr_assert(strstr(text, "Spearman 0.800 has no baseline"), "%s", text);
    n[1].have[FIG_SPEARMAN] = false;            /* measured on neither */
    cr_assert_eq(compare(b, 2, n, 2), 0, "%s", text);
}

/* ---- the file ---- */

static void temp_path(char *path, size_t len)
{
    int fd;
    snprintf(path, len, "/tmp/test-baseline-XXXXXX");
    fd = mkstemp(path);
    cr_assert(fd >= 0);
    close(fd);
}

Test(baseline, written_and_read_back)
{
    struct fid_figures sets[3] = { sample("overall"), sample("a"), sample("a:multi-node") };
    struct fid_gate g = { .command = "trainplan validate x.csv", .sets = sets, .n = 3 }, r;
    struct tpl_err err = { 0 };
    char path[64];
    FILE *fp;
    sets[1].x[FIG_MAPE] = 7.123456;             /* stored to 4 decimals */
    sets[2].have[FIG_GROUPS] = sets[2].have[FIG_SPEARMAN] = false;
    temp_path(path, sizeof path);
    cr_assert((fp = fopen(path, "w")));
    cr_assert_eq(fid_baseline_write(fp, &g, &err), 0, "%s", err.msg);
    fclose(fp);
    cr_assert_eq(fid_baseline_read(&r, path, &err), 0, "%s", err.msg);
    unlink(path);
    cr_assert_str_eq(r.command, "trainplan validate x.csv");
    cr_assert_eq(r.n, 3);
    cr_assert_str_eq(r.sets[2].name, "a:multi-node");
    cr_assert(!r.sets[2].have[FIG_SPEARMAN] && r.sets[2].have[FIG_MAPE]);
    cr_assert_eq(r.sets[1].x[FIG_MAPE], 7.1235);
    cr_assert_eq(compare(r.sets, r.n, sets, 3), 0, "%s", text);
    fid_gate_free(&r);
}

/* Read 'json' as a baseline: the error's code, its message in err. */
static int read_text(const char *json, struct tpl_err *err)
{
    struct fid_gate g;
    char path[64];
    FILE *fp;
    int rc;
    temp_path(path, sizeof path);
    cr_assert((fp = fopen(path, "w")));
    fputs(json, fp);
    fclose(fp);
    rc = fid_baseline_read(&g, path, err);
    unlink(path);
    if (!rc)
        fid_gate_free(&g);
    return rc;
}

Test(baseline, malformed_files_are_refused)
{
    struct tpl_err err = { 0 };
    cr_assert_eq(read_text("{\"mape_pct\": {\"a\": 7}}", &err), TPL_ECONFIG);
    cr_assert(strstr(err.msg, "missing string 'command'"), "%s", err.msg);
    cr_assert_eq(read_text("{\"command\": \"c\", \"overall\": {}}", &err), TPL_ECONFIG);
    cr_assert(strstr(err.msg, "missing object 'sources'"), "%s", err.msg);
    cr_assert_eq(read_text("{\"command\": \"c\", \"overall\": {}, \"sources\": "
                           "{\"a\": {\"mape\": 3}}}", &err), TPL_ECONFIG);
    cr_assert(strstr(err.msg, "'sources.a.mape': unknown figure"), "%s", err.msg);
    cr_assert_eq(read_text("{\"command\": \"c\", \"overall\": {\"bias_pct\": \"x\"}, "
                           "\"sources\": {}}", &err), TPL_ECONFIG);
    cr_assert(strstr(err.msg, "'overall.bias_pct' must be a number"), "%s", err.msg);
    cr_assert_eq(read_text("{\"command\": \"c\", \"sources\": {}}", &err), TPL_ECONFIG);
    cr_assert(strstr(err.msg, "'overall' must be an object"), "%s", err.msg);
}

/* The sets of tests/data/runs/small.csv, counted by hand from the file:
 * alpha T-01..T-03 (64 GPUs, 8 a node: all multi-node, so no separate
 * multi-node set; one group of 3 rows: same model, GPUs and batch); beta
 * T-04 timed with a measured peak, T-05 (other-a100-40g, no preset) and T-06 (MoE)
 * not predicted, T-07 predicted, untimed, measured out of memory (a 2 B
 * model with micro-batch 64 of 2,048 tokens and no recompute on 80 GB:
 * its activations alone exceed it, so it agrees). */
Test(gate, figures_of_the_small_runs_file)
{
    struct runs runs;
    struct tpl_err err = { 0 };
    struct fid_report *v;
    struct fid_gate g;
    cr_assert_eq(runs_load(&runs, "tests/data/runs/small.csv", &err), 0, "%s", err.msg);
    v = fid_report_new(&runs, NULL);
    fid_gate_of(v, &g);
    cr_assert_eq(g.n, 3);
    cr_assert_str_eq(g.sets[0].name, "overall");
    cr_assert_str_eq(g.sets[1].name, "alpha");
    cr_assert_str_eq(g.sets[2].name, "beta");
    cr_assert_eq(g.sets[0].x[FIG_TIMED_ROWS], 4);
    cr_assert_eq(g.sets[0].x[FIG_PREDICTED_ROWS], 5);
    cr_assert_eq(g.sets[1].x[FIG_GROUPS], 1);
    cr_assert(g.sets[1].have[FIG_SPEARMAN] && !g.sets[2].have[FIG_SPEARMAN]);
    cr_assert_eq(g.sets[2].x[FIG_TIMED_ROWS], 1);
    cr_assert_eq(g.sets[2].x[FIG_PREDICTED_ROWS], 2);
    cr_assert_eq(g.sets[2].x[FIG_OOM_AGREE], 2);
    cr_assert_eq(g.sets[2].x[FIG_MEM_ROWS], 1);
    cr_assert(!g.sets[1].have[FIG_MEM_MAPE] && g.sets[2].have[FIG_MEM_MAPE]);
    fid_gate_free(&g);
    fid_report_free(v);
    runs_release(&runs);
}
