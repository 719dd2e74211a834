/* cli/cmd_calibrate.c: trainplan calibrate: fit a system's kernel and
 * collective parameters to sampled timings and write the fitted system. */
#include "cli/cmd.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate/calibrate.h"
#include "common/log.h"
#include "fidelity/fidelity.h"
#include "results/chart.h"
#include "spaces/stack.h"

static const char usage[] =
"usage: trainplan calibrate SAMPLES_DIR --system NAME|FILE [-o FILE]\n"
"                           [--report FILE] [--format table|csv|json]\n"
"                           [--seed N] [--chart FILE.svg|FILE.png]\n"
"       trainplan calibrate --runs RUNS.csv\n"
"\n"
"Fit the system's kernel model (launch overhead, HBM and norm efficiency,\n"
"GEMM efficiency and half-saturation size, gradient GEMMs with their\n"
"correction in log M, N, K, flash attention by its block tiling, the\n"
"batched GEMMs by their tiles and traffic, the embedding by its two\n"
"backward kernels, PyTorch's softmax forward under the dispatch of its\n"
"version (the warp path to 1024 or, from 2.7, to 2048 elements) and its\n"
"block kernels' scalar epilogue, the eager rotary as its host's time\n"
"against its GPU's, every other memory-bound operator file on its own)\n"
"and all-reduce, all-gather and point-to-point link efficiencies (failed\n"
"and disturbed collective runs left out and counted) to the timings in\n"
"SAMPLES_DIR (operator/ and nccl/ folders in the format of\n"
"../shared/data/kernel-samples). Writes the system file with the fitted\n"
"fields (-o, default standard output) and a report of every fitted value\n"
"and the error per operator on a 20 % random hold-out (PCG, --seed) and\n"
"three extrapolation hold-outs, each fitted on the rest (hidden above 6144,\n"
"the largest mp, the longest sequence) beside the sample set's own error\n"
"(--report, default standard error; --format table, csv or json: one row\n"
"per operator and direction with n, random-split MAPE and p90, the\n"
"extrapolation MAPEs, the authors' figure, the ablation on the random\n"
"split (roofline: the longer of FLOPs at peak and bytes at peak HBM, or a\n"
"collective's bytes at its links' peaks, with one fitted efficiency;\n"
"physical: the model without its corrections in log space) and a note\n"
"where a row has no figures: samples not usable, or none in the folder,\n"
"so every operator and collective family is accounted for). --chart\n"
"draws the fitted system's predicted against measured time of an even\n"
"spread of every file's samples on log axes, a panel per kernel family\n"
"with the line predicted = measured, so a model that bends away shows.\n"
"\n"
"With --runs, fit the constants taken from published runs rather than\n"
"kernel samples: the host time per modelled kernel of the eager stacks\n"
"(megatron-lm-2021, megatron-deepspeed: host_us; megatron-core's MoE\n"
"layers outside CUDA graphs: moe_host_us), minimising the MAPE of their\n"
"timed rows in RUNS.csv; prints the value and the stack-file line.\n"
"'trainplan validate RUNS.csv --cv source' cross-validates it. Then each\n"
"stack preset's error band (band_low_pct, band_high_pct): the 10th and\n"
"90th percentiles of the signed error predicted / measured - 1 of its\n"
"timed rows, each source predicted with the constants fitted without it;\n"
"a stack with fewer than 20 such rows gets the band of all rows, its\n"
"width scaled by 1.5 about its centre. Then the efficiency of the systems\n"
"without kernel samples (efficiency.calibrated = false) that no source\n"
"gives, fitted on their timed rows: gemm_fp8_cs (FP8 GEMMs with current /\n"
"MXFP8 scaling); the network share of the systems whose fabric no\n"
"source measures (efficiency.network_from_runs), fitted on theirs; and\n"
"the sustained clock of the GPUs run under a power limit no source\n"
"measures the clock at (efficiency.clock_from_runs: every compute-bound\n"
"kernel takes 1 / clock as long), fitted on theirs; each source predicted\n"
"with them fitted without it.\n";

enum { OPT_SYSTEM = 256, OPT_REPORT, OPT_FORMAT, OPT_SEED, OPT_RUNS, OPT_CHART,
       OPT_HELP };

static const struct option long_opts[] = {
    { "system", required_argument, NULL, OPT_SYSTEM },
    { "report", required_argument, NULL, OPT_REPORT },
    { "format", required_argument, NULL, OPT_FORMAT },
    { "seed", required_argument, NULL, OPT_SEED },
    { "runs", required_argument, NULL, OPT_RUNS },
    { "chart", required_argument, NULL, OPT_CHART },
    { "help", no_argument, NULL, OPT_HELP },
    { NULL, 0, NULL, 0 },
};

/* One stack's band as stack-file lines. */
static void print_band(const struct fid_band *b, int n_all, const char *path)
{
    const struct stack_region *r = &b->region;
    printf("%s: band_low_pct = %.1f; band_high_pct = %.1f; "
           "validated_gpus_min = %.0f; validated_gpus_max = %.0f; "
           "validated_params_b_min = %.3g; validated_params_b_max = %.4g; ",
           b->stack, b->low_pct, b->high_pct, r->gpus_lo, r->gpus_hi,
           r->params_b_lo, r->params_b_hi);
    if (r->n_archs > 0) {
        printf("validated_archs = [");
        for (int i = 0; i < r->n_archs; i++)
            printf("%s\"%s\"", i ? ", " : "", r->archs[i]);
        printf("]; ");
    }
    printf(" # ");
    if (b->pooled)
        printf("%d held-out rows (< %d): the band of all %d rows, width x %.1f",
               b->n, FID_BAND_MIN_ROWS, n_all, FID_BAND_WIDEN);
    else
        printf("p10 / p90 of %d held-out rows", b->n);
    printf(": trainplan calibrate --runs %s\n", path);
}

/* Every stack preset's error band from the leave-one-source-out errors. */
static int calibrate_bands(const struct runs *runs, const char *path)
{
    const char *names[16];
    struct fid_cv_err *e = malloc((runs->n + 1) * sizeof *e);
    struct fid_band bands[16];
    int n_st = 0, n = 0, ok;
    for (size_t i = 0; i < stack_presets_count && n_st < 16; i++)
        names[n_st++] = stack_presets[i].name;
    if (e)
        n = fid_cv_errors(runs, e, (int)runs->n);
    ok = n > 0 && fid_bands_of(e, n, names, n_st, bands) == 0;
    for (int s = 0; ok && s < n_st; s++)
        print_band(&bands[s], n, path);
    free(e);
    return ok ? 0 : -1;
}

/* Each stack's memory reserve, fitted on its rows with a measured peak
 * (fidelity/reserve.c); a stack without such rows keeps the system's. */
static void calibrate_reserves(const struct runs *runs, const char *path)
{
    struct fid_report *v = fid_report_new(runs, NULL);
    for (size_t i = 0; i < stack_presets_count; i++) {
        struct fid_reserve f = fid_fit_reserve(v, stack_presets[i].name);
        if (f.n_mem == 0)
            continue;
        printf("%s: reserve_gib = %.1f;  # peak-memory MAPE %.1f -> %.1f %% "
               "on %d rows with a measured peak, OOM agreement %d -> %d of "
               "%d rows: trainplan calibrate --runs %s\n", f.stack, f.gib,
               f.mape_before, f.mape_after, f.n_mem, f.agree_before,
               f.agree_after, f.n, path);
    }
    fid_report_free(v);
}

/* A fitted part's value, or '-' where its rows were all left out. */
static void tune_value(const char *name, double x)
{
    if (x < 0)
        printf("  %s -", name);
    else
        printf("  %s %.3f", name, x);
}

/* The uncalibrated systems' FP8 GEMM factor, the network share of the
 * fabrics and the clock of the power limits no source measures, fitted on
 * all their rows, and each source's
 * rows predicted with them fitted without it (fidelity/tune.c). */
static void calibrate_tune(const struct runs *runs, const char *path)
{
    struct fid_tune t;
    struct fid_tune_cv cv[64];
    int n, k;
    if (fid_fit_tune(runs, NULL, &t, &n))
        return;
    if (t.fp8_rows)
        printf("uncalibrated systems: gemm_fp8_cs = %.3f;"
               "  # fitted on %d timed rows: trainplan calibrate --runs %s\n",
               t.gemm_fp8_cs, t.fp8_rows, path);
    if (t.net_rows)
        printf("network_from_runs systems: network = %.3f;"
               "  # fitted on %d timed rows: trainplan calibrate --runs %s\n",
               t.network, t.net_rows, path);
    if (t.clock_rows)
        printf("clock_from_runs systems: clock = %.3f;"
               "  # fitted on %d timed rows: trainplan calibrate --runs %s\n",
               t.clock, t.clock_rows, path);
    k = fid_tune_cv(runs, cv, 64);
    for (int i = 0; i < k; i++) {
        printf("  held out %-18s %3d rows", cv[i].source, cv[i].n);
        tune_value("gemm_fp8_cs", cv[i].fit.gemm_fp8_cs);
        tune_value("network", cv[i].fit.network);
        tune_value("clock", cv[i].fit.clock);
        printf("  MAPE in-sample %.1f -> held-out %.1f %%  bias %+.1f -> %+.1f %%\n",
               cv[i].mape_before, cv[i].mape_held, cv[i].bias_before,
               cv[i].bias_held);
    }
}

/* calibrate --runs: the eager stacks' host time fitted on published runs,
 * each stack's error band and memory reserve. */
static int calibrate_runs(const char *path, struct tpl_err *err)
{
    struct runs runs;
    int n, rc = runs_load(&runs, path, err);
    double host;
    if (rc)
        return rc;
    host = fid_fit_host_us(&runs, NULL, &n);
    if (n == 0)
        rc = tpl_errorf(err, TPL_ECONFIG, "%s: no timed row of an eager stack "
                        "(megatron-lm-2021, megatron-deepspeed) to fit", path);
    else
        printf("host_us = %.1f;  # fitted on %d timed rows of eager stacks "
               "and MoE layers outside CUDA graphs (moe_host_us) in %s: "
               "trainplan calibrate --runs %s\n", host, n, path, path);
    if (rc == 0 && calibrate_bands(&runs, path))
        rc = tpl_errorf(err, TPL_ECONFIG, "%s: no timed, predicted row for "
                        "the error band", path);
    if (rc == 0)
        calibrate_reserves(&runs, path);
    if (rc == 0)
        calibrate_tune(&runs, path);
    runs_release(&runs);
    return rc;
}

/* The fitted system file to 'out', then the report to 'report' in 'fmt'
 * (standard error as a table when no file is named). */
static int write_outputs(struct res_report *r, const char *out,
                         const char *report, enum res_format fmt,
                         struct tpl_err *err)
{
    int rc = cmd_write_report(out, r, err);
    if (rc)
        return rc;
    r->kind = RES_REPORT_CALIBRATION;
    r->fmt = fmt;
    if (report)
        return cmd_write_report(report, r, err);
    cal_report_write(stderr, r->u.calib.rep);
    return 0;
}

/* --chart: a name calibrate can draw (.svg or .png). */
static int chart_opt(const char **chart, const char *arg, struct tpl_err *err)
{
    *chart = arg;
    return res_chart_path_ok(arg) ? 0 : tpl_errorf(err, TPL_EUSAGE, "'--chart' must "
                                                   "name a .svg or .png file, not '%s'", arg);
}

struct cal_opts {
    const char *system, *out, *report, *chart;
    int64_t seed;
    enum res_format fmt;
};

/* Letters and digits of s, upper case: "A100-SXM4-80GB" -> "A100SXM480GB". */
static void gpu_key(const char *s, char *out, size_t n)
{
    size_t k = 0;
    for (; *s && k + 1 < n; s++)
        if ((*s >= '0' && *s <= '9') || (*s >= 'A' && *s <= 'Z') ||
            (*s >= 'a' && *s <= 'z'))
            out[k++] = (char)(*s >= 'a' && *s <= 'z' ? *s - 32 : *s);
    out[k] = '\0';
}

/* Samples of another GPU describe that GPU: say so (the sample files name
 * theirs, "NVIDIAA100-SXM4-80GB"; the system file its gpu.name, whose
 * first part names the chip: "A100" of "A100-SXM4-80GB", "GH200" of
 * "GH200-96GB-HBM3"; the memory variant is not compared). */
static void warn_other_gpu(const struct hw_system *base, const char *samples_gpu)
{
    char a[64], b[64], chip[64];
    snprintf(chip, sizeof chip, "%s", base->gpu_name);
    chip[strcspn(chip, "- ")] = '\0';
    gpu_key(chip, a, sizeof a);
    gpu_key(samples_gpu, b, sizeof b);
    if (a[0] && !strstr(b, a))
        tpl_log(TPL_LOG_WARN, "the samples are of %s, the system's GPU is %s: "
                "the fit describes the sampled GPU", samples_gpu, base->gpu_name);
}

/* The fitted system file must load as any system file does (hw.c's ranges:
 * an efficiency in (0, 1], ...): written to memory and read back, so a fit
 * that leaves a field out of range writes nothing. */
static int check_fitted(struct res_report *r, struct tpl_err *err)
{
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    struct conf c;
    struct hw_system back;
    int rc;
    if (!fp)
        return tpl_errorf(err, TPL_EIO, "calibrate: out of memory");
    rc = res_report_write(fp, r, err);
    if (fclose(fp) && rc == 0)
        rc = tpl_errorf(err, TPL_EIO, "calibrate: out of memory");
    if (rc == 0 && (rc = conf_load_string(&c, "the fitted system", text, err)) == 0) {
        rc = hw_system_read(&back, &c, err);
        conf_release(&c);
    }
    free(text);
    if (rc) {
        char why[sizeof err->msg];
        snprintf(why, sizeof why, "%s", err->msg);
        return tpl_errorf(err, TPL_ECONFIG, "the fit gives no valid system "
                          "file (%s); nothing written: are the samples of this "
                          "GPU?", why);
    }
    return 0;
}

/* Fit the samples in 'dir', then write the system file, the chart and
 * the report. */
static int calibrate_samples(const char *dir, const struct cal_opts *o,
                             struct tpl_err *err)
{
    static struct cal_report rep;
    struct hw_system base, fitted;
    struct res_report out_rep = { .kind = RES_REPORT_SYSTEM_FILE };
    int rc;
    if (!o->system)
        return tpl_errorf(err, TPL_EUSAGE, "missing --system NAME|FILE");
    if ((rc = hw_system_load(&base, o->system, NULL, 0, err)))
        return rc;
    /* the samples were timed at their GPU's own clock: fit at 1, and the
     * file written says nothing of another clock (report.c) */
    base.clock = 1.0;
    base.clock_from_runs = false;
    if ((rc = cal_run(dir, &base, (uint64_t)o->seed, &fitted, &rep, err)) ||
        (o->chart && (rc = cal_chart_write(o->chart, &rep, err))))
        return rc;
    out_rep.u.calib.rep = &rep;
    out_rep.u.calib.system = o->system;
    out_rep.u.calib.samples = dir;
    out_rep.u.calib.fitted = &fitted;
    warn_other_gpu(&base, rep.gpu);
    if ((rc = check_fitted(&out_rep, err)))
        return rc;
    return write_outputs(&out_rep, o->out, o->report, o->fmt, err);
}

int cmd_calibrate(int argc, char **argv, struct tpl_err *err)
{
    struct cal_opts o = { .seed = 42, .fmt = RES_FMT_TABLE };
    int c, rc;
    if (cmd_long_options_exact(argc, argv, long_opts, err))
        return TPL_EUSAGE;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":o:", long_opts, NULL)) != -1) {
        switch (c) {
        case OPT_HELP:   fputs(usage, stdout); return 0;
        case OPT_SYSTEM: o.system = optarg; break;
        case OPT_REPORT: o.report = optarg; break;
        case OPT_FORMAT:
            if (opt_format(optarg, &o.fmt, err))
                return TPL_EUSAGE;
            break;
        case OPT_RUNS:   return calibrate_runs(optarg, err);
        case 'o':        o.out = optarg; break;
        case OPT_CHART:
            if (chart_opt(&o.chart, optarg, err))
                return TPL_EUSAGE;
            break;
        case OPT_SEED:
            if (opt_int("--seed", optarg, 0, INT64_MAX, &o.seed, err))
                return TPL_EUSAGE;
            break;
        default:
            return cmd_option_error(c, argv, err);
        }
    }
    if ((rc = cmd_one_operand("the samples directory", argc, argv, err)))
        return rc;
    return calibrate_samples(argv[optind], &o, err);
}
