/* cli/cmd_search.c: trainplan search: the fastest feasible plans per GPU
 * count for a scenario (the embedded default when none is given). */
#include "cli/cmd.h"

#include <getopt.h>
#include <signal.h>
#include <omp.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "results/chart.h"
#include "results/charts.h"
#include "results/compare.h"
#include "results/tradeoff.h"
#include "search/search.h"
#include "spaces/gpus.h"

static const char usage[] =
"usage: trainplan search [--scenario FILE] [--model M] [--system S] [--gbs N]\n"
"                        [--seq N] [--gpus LIST] [--top K] [--tp LIST] [--pp LIST]\n"
"                        [--mbs LIST] [--vpp LIST] [--sp y|n|any]\n"
"                        [--recompute LIST] [--zero LIST] [--precision P]\n"
"                        [--attention flash|unfused] [--tp-cross-node]\n"
"                        [--budget N] [--seed N] [--set K=V]...\n"
"                        [--format table|csv|json] [--stats] [-o FILE]\n"
"                        [--chart FILE.svg|FILE.png] [--chart-size WxH]\n"
"\n"
"Rank the fastest plans that fit in memory for each GPU count. Every value\n"
"comes from the scenario (the embedded 'default': llama3-70b on dgx-h100,\n"
"seq 8192, gbs 512, GPUs 64..1024, every dimension free) unless given here.\n"
"\n"
"  --gpus LIST      64,128,256 | 64..4096 (doubling) | 8..16384:8 (step 8)\n"
"  --top K          plans per GPU count (default 5)\n"
"  --tp LIST        allowed values, e.g. 1,2,4,8, or 'auto' (so --pp --mbs\n"
"                   --vpp --zero; --recompute none,selective,full)\n"
"  --budget N       sample N plans uniformly (PCG, --seed) when the space is\n"
"                   larger; default: enumerate everything\n"
"  --stats          add the run's work (evaluated, pruned by bound, seconds)\n"
"  --set K=V        override any loaded field, e.g. --set network.nic_gbps=800\n"
"\n"
"Exit status: 0 ok, 1 no GPU count has a feasible plan, 2 usage, 3 bad\n"
"input, 4 I/O.\n";

enum { OPT_SCEN = 256, OPT_MODEL, OPT_SYSTEM, OPT_GBS, OPT_SEQ, OPT_GPUS,
       OPT_TOP, OPT_TP, OPT_PP, OPT_MBS, OPT_VPP, OPT_SP, OPT_RC, OPT_ZERO,
       OPT_PREC, OPT_ATTN, OPT_CROSS, OPT_BUDGET, OPT_SEED, OPT_SET,
       OPT_FORMAT, OPT_STATS, OPT_EXHAUSTIVE, OPT_HELP, OPT_TOKENS, OPT_PRICE,
       OPT_KNEE, OPT_CHART, OPT_CHART_SIZE };

static const struct option long_opts[] = {
    { "scenario", required_argument, NULL, OPT_SCEN },
    { "model", required_argument, NULL, OPT_MODEL },
    { "system", required_argument, NULL, OPT_SYSTEM },
    { "gbs", required_argument, NULL, OPT_GBS },
    { "seq", required_argument, NULL, OPT_SEQ },
    { "gpus", required_argument, NULL, OPT_GPUS },
    { "top", required_argument, NULL, OPT_TOP },
    { "tp", required_argument, NULL, OPT_TP },
    { "pp", required_argument, NULL, OPT_PP },
    { "mbs", required_argument, NULL, OPT_MBS },
    { "vpp", required_argument, NULL, OPT_VPP },
    { "sp", required_argument, NULL, OPT_SP },
    { "recompute", required_argument, NULL, OPT_RC },
    { "zero", required_argument, NULL, OPT_ZERO },
    { "precision", required_argument, NULL, OPT_PREC },
    { "attention", required_argument, NULL, OPT_ATTN },
    { "tp-cross-node", no_argument, NULL, OPT_CROSS },
    { "budget", required_argument, NULL, OPT_BUDGET },
    { "seed", required_argument, NULL, OPT_SEED },
    { "set", required_argument, NULL, OPT_SET },
    { "format", required_argument, NULL, OPT_FORMAT },
    { "stats", no_argument, NULL, OPT_STATS },
    { "exhaustive", no_argument, NULL, OPT_EXHAUSTIVE },
    { "help", no_argument, NULL, OPT_HELP },
    { "tokens", required_argument, NULL, OPT_TOKENS },         /* tradeoff */
    { "price", required_argument, NULL, OPT_PRICE },           /* tradeoff */
    { "knee", required_argument, NULL, OPT_KNEE },             /* tradeoff */
    { "chart", required_argument, NULL, OPT_CHART },
    { "chart-size", required_argument, NULL, OPT_CHART_SIZE },
    { NULL, 0, NULL, 0 },
};

static const char tradeoff_usage[] =
"usage: trainplan tradeoff [--scenario FILE] [--model M] [--system S]\n"
"                          [--gbs N] [--seq N] [--gpus LIST] [--tokens N]\n"
"                          [--price USD] [--knee F] [search options]\n"
"                          [--format table|csv|json] [-o FILE]\n"
"                          [--chart FILE.svg|FILE.png] [--chart-size WxH]\n"
"\n"
"For each GPU count, the fastest feasible plan and what training --tokens\n"
"tokens (default: the scenario's job.tokens) with it takes: days, GPU-hours,\n"
"cost at --price USD per GPU-hour (default: the system's price), energy and\n"
"average power per GPU (GPU boards only), and scaling efficiency against\n"
"the smallest count. Marks the Pareto frontier of time against GPU-hours\n"
"and its knee: the count past which doubling the GPUs saves less than\n"
"--knee (default 0.5) of what perfect scaling would save. The search\n"
"options are those of 'trainplan search'.\n";

struct search_opts {
    const char *scenario, *model, *system, *gpus, *out, *prec, *attn, *sp;
    const char *lists[5];       /* tp pp mbs vpp zero */
    const char *rc;
    int64_t gbs, seq, top, budget, seed;
    int cross, stats, exhaustive;
    enum res_format fmt;
    struct cmd_sets sets;
    bool tradeoff;              /* trainplan tradeoff */
    const char *chart;          /* --chart FILE.svg|.png */
    int chart_w, chart_h;
    double tokens, price, knee; /* 0 / < 0: from the scenario / system */
};

/* "auto" or a comma list of integers in [lo, hi]. */
static int parse_int_list(const char *opt, const char *v, int64_t lo, int64_t hi,
                          struct space_list *out, struct tpl_err *err)
{
    char buf[32];
    const char *p = v;
    if (!strcmp(v, "auto")) {
        out->n = 0;
        return 0;
    }
    out->n = 0;
    while (*p) {
        size_t len = strcspn(p, ",");
        int64_t x;
        if (len == 0 || len >= sizeof buf || out->n == SPACE_MAX_VALUES)
            return tpl_errorf(err, TPL_EUSAGE, "'%s' must be 'auto' or a list "
                              "of up to %d integers, not '%s'", opt,
                              SPACE_MAX_VALUES, v);
        memcpy(buf, p, len);
        buf[len] = '\0';
        if (opt_int(opt, buf, lo, hi, &x, err))
            return TPL_EUSAGE;
        out->v[out->n++] = (int32_t)x;
        p += len + (p[len] == ',');
        if (p[-1] == ',' && !*p)
            return tpl_errorf(err, TPL_EUSAGE, "'%s': trailing comma in '%s'",
                              opt, v);
    }
    return 0;
}

static int parse_rc_list(const char *v, struct space_list *out,
                         struct tpl_err *err)
{
    char buf[32];
    const char *p = v;
    out->n = 0;
    if (!strcmp(v, "auto"))
        return 0;
    while (*p) {
        size_t len = strcspn(p, ",");
        enum plan_recompute rc;
        if (len == 0 || len >= sizeof buf || out->n == SPACE_MAX_VALUES)
            return tpl_errorf(err, TPL_EUSAGE, "'--recompute' must be 'auto' "
                              "or a list of none, selective, full, not '%s'", v);
        memcpy(buf, p, len);
        buf[len] = '\0';
        if (plan_recompute_parse(buf, &rc))
            return tpl_errorf(err, TPL_EUSAGE, "'--recompute': '%s' is not none, "
                              "selective or full", buf);
        out->v[out->n++] = (int32_t)rc;
        p += len + (p[len] == ',');
        if (p[-1] == ',' && !*p)
            return tpl_errorf(err, TPL_EUSAGE, "'--recompute': trailing comma "
                              "in '%s'", v);
    }
    return 0;
}

/* A number in [lo, hi] (for --tokens, --price, --knee). */
static int opt_num(const char *opt, const char *v, double lo, double hi,
                   double *out, struct tpl_err *err)
{
    char *end;
    double x = strtod(v, &end);
    if (!*v || *end || !(x >= lo && x <= hi))
        return tpl_errorf(err, TPL_EUSAGE, "'%s' must be a number in [%g, %g], "
                          "not '%s'", opt, lo, hi, v);
    *out = x;
    return 0;
}

/* "WxH" in pixels, each in [200, 8000]. */
static int chart_size(const char *v, int *w, int *h, struct tpl_err *err)
{
    char tail;
    if (sscanf(v, "%dx%d%c", w, h, &tail) != 2 || *w < 200 || *w > 8000 ||
        *h < 200 || *h > 8000)
        return tpl_errorf(err, TPL_EUSAGE, "'--chart-size' must be WxH with "
                          "each in [200, 8000], not '%s'", v);
    return 0;
}

static int parse_args(struct search_opts *o, int argc, char **argv,
                      bool tradeoff)
{
    const char *cmd = tradeoff ? "tradeoff" : "search";
    struct tpl_err err = { 0 };
    int c;
    memset(o, 0, sizeof *o);
    o->tradeoff = tradeoff;
    o->top = tradeoff ? 1 : 5;
    o->seed = 1;
    o->price = -1;
    o->knee = 0.5;
    o->chart_w = 960;
    o->chart_h = 640;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":o:", long_opts, NULL)) != -1) {
        int rc = 0;
        switch (c) {
        case OPT_HELP:   fputs(tradeoff ? tradeoff_usage : usage, stdout); return 1;
        case OPT_CHART:
            o->chart = optarg;
            if (!res_chart_path_ok(optarg))
                rc = tpl_errorf(&err, TPL_EUSAGE, "'--chart' must name a .svg "
                                "or .png file, not '%s'", optarg);
            break;
        case OPT_CHART_SIZE:
            rc = chart_size(optarg, &o->chart_w, &o->chart_h, &err);
            break;
        case OPT_TOKENS: case OPT_PRICE: case OPT_KNEE:
            if (!tradeoff)
                return 1 + cmd_usage_error(cmd, "unknown option '--%s'",
                                           c == OPT_TOKENS ? "tokens"
                                           : c == OPT_PRICE ? "price" : "knee");
            rc = c == OPT_TOKENS ? opt_num("--tokens", optarg, 1, 1e18, &o->tokens, &err)
               : c == OPT_PRICE ? opt_num("--price", optarg, 0, 1e6, &o->price, &err)
               : opt_num("--knee", optarg, 0.01, 1, &o->knee, &err);
            break;
        case OPT_SCEN:   o->scenario = optarg; break;
        case OPT_MODEL:  o->model = optarg; break;
        case OPT_SYSTEM: o->system = optarg; break;
        case OPT_GPUS:   o->gpus = optarg; break;
        case OPT_PREC:   o->prec = optarg; break;
        case OPT_ATTN:   o->attn = optarg; break;
        case OPT_SP:     o->sp = optarg; break;
        case OPT_RC:     o->rc = optarg; break;
        case OPT_TP: case OPT_PP: case OPT_MBS: case OPT_VPP:
            o->lists[c - OPT_TP] = optarg; break;
        case OPT_ZERO:   o->lists[4] = optarg; break;
        case 'o':        o->out = optarg; break;
        case OPT_CROSS:  o->cross = 1; break;
        case OPT_STATS:  o->stats = 1; break;
        case OPT_EXHAUSTIVE: o->exhaustive = 1; break;
        case OPT_SET:    rc = cmd_sets_add(&o->sets, optarg, &err); break;
        case OPT_GBS:    rc = opt_int("--gbs", optarg, 1, JOB_MAX_GBS, &o->gbs, &err); break;
        case OPT_SEQ:    rc = opt_int("--seq", optarg, 1, JOB_MAX_SEQ, &o->seq, &err); break;
        case OPT_TOP:    rc = opt_int("--top", optarg, 1, SEARCH_MAX_TOP, &o->top, &err); break;
        case OPT_BUDGET: rc = opt_int("--budget", optarg, 1, INT64_MAX, &o->budget, &err); break;
        case OPT_SEED:   rc = opt_int("--seed", optarg, 0, INT64_MAX, &o->seed, &err); break;
        case OPT_FORMAT:
            if (res_format_parse(optarg, &o->fmt))
                rc = tpl_errorf(&err, TPL_EUSAGE, "'--format' must be table, "
                                "csv or json, not '%s'", optarg);
            break;
        default:
            return 1 + cmd_option_error(cmd, c, argv);
        }
        if (rc)
            return 1 + cmd_usage_error(cmd, "%s", err.msg);
    }
    if (optind < argc)
        return 1 + cmd_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    return 0;
}

/* Fold the command line into the scenario; TPL_EUSAGE on a bad value. */
static int apply(const struct search_opts *o, struct scenario *s,
                 struct tpl_err *err)
{
    static const char *const names[5] = { "--tp", "--pp", "--mbs", "--vpp", "--zero" };
    struct space_list *lists[5] = { &s->space.tp, &s->space.pp, &s->space.mbs,
                                    &s->space.vpp, &s->space.zero };
    if (o->gbs)
        s->job.gbs = o->gbs;
    if (o->seq)
        s->job.seq = o->seq;
    if (o->prec && job_precision_parse(o->prec, &s->job.precision))
        return tpl_errorf(err, TPL_EUSAGE, "'--precision' must be bf16, fp16 "
                          "or fp8, not '%s'", o->prec);
    if (o->attn && job_attention_parse(o->attn, &s->job.attention))
        return tpl_errorf(err, TPL_EUSAGE, "'--attention' must be flash or "
                          "unfused, not '%s'", o->attn);
    if (o->sp) {
        int32_t on;
        if (!strcmp(o->sp, "any"))
            s->space.sp.n = 0;
        else if (plan_dim_parse(PLAN_DIM_SP, o->sp, &on) == 0)
            s->space.sp = (struct space_list){ .n = 1, .v = { on } };
        else
            return tpl_errorf(err, TPL_EUSAGE, "'--sp' must be y, n or any, "
                              "not '%s'", o->sp);
    }
    for (int i = 0; i < 5; i++)
        if (o->lists[i] && parse_int_list(names[i], o->lists[i], i == 4 ? 0 : 1,
                                          i == 4 ? 1 : PLAN_MAX_DEGREE,
                                          lists[i], err))
            return TPL_EUSAGE;
    if (o->rc && parse_rc_list(o->rc, &s->space.recompute, err))
        return TPL_EUSAGE;
    if (o->cross)
        s->space.tp_cross_node = true;
    return 0;
}

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
    (void)sig;
    interrupted = 1;
}

static void show_progress(void *arg, double fraction)
{
    (void)arg;
    fprintf(stderr, "\rsearch: %5.1f%%", 100 * fraction);
}

struct search_report {
    enum res_format fmt;
    const struct pred_ctx *ctx;
    const struct search_result *res;
    int work;
};

static int write_report(FILE *fp, void *arg, struct tpl_err *err)
{
    struct search_report *r = arg;
    return res_search_write(fp, r->fmt, r->ctx, r->res, r->work, err);
}

/* Peak resident memory in KiB from /proc (0 where there is none). */
static long peak_rss_kib(void)
{
    char line[128];
    long kib = 0;
    FILE *fp = fopen("/proc/self/status", "r");
    while (fp && fgets(line, sizeof line, fp))
        if (!strncmp(line, "VmHWM:", 6))
            kib = strtol(line + 6, NULL, 10);
    if (fp)
        fclose(fp);
    return kib;
}

static bool any_feasible(const struct search_result *r)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->per_gpu[i].n_hits)
            return true;
    return false;
}

/* Parse, load, search; 0 to go on with 'res' filled, else exit code + 1. */
static int run_common(struct search_opts *o, struct cmd_inputs *in,
                      struct pred_ctx *ctx, struct search_result *res,
                      int argc, char **argv, bool tradeoff)
{
    const char *cmd = tradeoff ? "tradeoff" : "search";
    struct search_cfg cfg;
    struct gpu_list gpus;
    struct tpl_err err = { 0 };
    int rc = parse_args(o, argc, argv, tradeoff);
    if (rc)
        return rc;
    if (cmd_load_inputs(in, o->scenario, o->model, o->system, &o->sets, &err))
        return 1 + cmd_fail(&err);
    if (apply(o, &in->scen, &err))
        return 1 + cmd_usage_error(cmd, "%s", err.msg);
    if (gpu_list_parse(&gpus, o->gpus ? o->gpus : in->scen.space.gpus, "--gpus",
                       &err))      /* the scenario's own was checked on load */
        return 1 + cmd_usage_error(cmd, "%s", err.msg);
    pred_ctx_init(ctx, &in->model, &in->hw, &in->scen.job,
                  in->scen.space.tp_cross_node);
    cfg = (struct search_cfg){ .ctx = ctx, .space = &in->scen.space,
        .gpus = gpus.v, .n_gpus = gpus.n, .top_k = (int)o->top,
        .exhaustive = o->exhaustive, .budget = (uint64_t)o->budget,
        .seed = (uint64_t)o->seed,
        .progress = isatty(STDERR_FILENO) ? show_progress : NULL,
        .stop = &interrupted };
    signal(SIGINT, on_sigint);          /* Ctrl-C: stop, report, exit 130 */
    rc = search_run(&cfg, res, &err);
    signal(SIGINT, SIG_DFL);
    if (cfg.progress)
        fputs("\r               \r", stderr);
    gpu_list_release(&gpus);
    if (rc)
        return 1 + cmd_fail(&err);
    if (o->stats)
        fprintf(stderr, "search: %llu combinations, %llu plans (whole dp), "
                "%llu evaluated, %.3f s, %.1f M combinations/s, %.1f M plans/s, "
                "%d threads, peak RSS %.1f MiB\n",
                (unsigned long long)res->stats.space_size,
                (unsigned long long)res->stats.enumerated,
                (unsigned long long)res->stats.evaluated, res->stats.seconds,
                (double)(res->stats.sampled ? res->stats.enumerated
                                            : res->stats.space_size)
                / res->stats.seconds / 1e6,
                (double)res->stats.enumerated / res->stats.seconds / 1e6,
                omp_get_max_threads(), (double)peak_rss_kib() / 1024);
    return 0;
}

/* The exit code after the report: 130 when interrupted (the report says
 * partial), 1 when no GPU count has a feasible plan. */
static int finish(int rc, const struct search_result *res, struct tpl_err *err)
{
    if (rc == 0)
        rc = any_feasible(res) ? 0 : TPL_ENOPLAN;
    if (rc != TPL_EIO && res->stats.partial) {
        fputs("trainplan: interrupted: the report holds the best plans found "
              "so far\n", stderr);
        return 130;                     /* 128 + SIGINT */
    }
    return rc == TPL_ENOPLAN ? tpl_exit_code(rc) : rc ? cmd_fail(err) : 0;
}

int cmd_search(int argc, char **argv)
{
    static struct search_opts o;
    static struct cmd_inputs in;
    static struct pred_ctx ctx;
    struct search_result res;
    struct tpl_err err = { 0 };
    struct search_report rep;
    int rc = run_common(&o, &in, &ctx, &res, argc, argv, false);
    if (rc)
        return rc - 1;
    rep = (struct search_report){ o.fmt, &ctx, &res, o.stats };
    rc = cmd_write_output(o.out, write_report, &rep, &err);
    if (rc == 0 && o.chart)
        rc = res_search_chart(o.chart, o.chart_w, o.chart_h, &ctx, &res, &err);
    rc = finish(rc, &res, &err);
    search_result_release(&res);
    return rc;
}

struct tradeoff_report {
    enum res_format fmt;
    const struct pred_ctx *ctx;
    const struct tradeoff *t;
};

static int write_tradeoff(FILE *fp, void *arg, struct tpl_err *err)
{
    const struct tradeoff_report *r = arg;
    return res_tradeoff_write(fp, r->fmt, r->ctx, r->t, err);
}

int cmd_tradeoff(int argc, char **argv)
{
    static struct search_opts o;
    static struct cmd_inputs in;
    static struct pred_ctx ctx;
    struct search_result res;
    struct tradeoff t;
    struct tradeoff_report rep;
    struct tpl_err err = { 0 };
    int rc = run_common(&o, &in, &ctx, &res, argc, argv, true);
    double tokens, price;
    if (rc)
        return rc - 1;
    tokens = o.tokens > 0 ? o.tokens : in.scen.job.tokens;
    price = o.price >= 0 ? o.price : in.hw.usd_per_gpu_hour;
    if (tokens <= 0) {
        search_result_release(&res);
        return cmd_usage_error("tradeoff", "no tokens to train: give --tokens N "
                               "or set job.tokens in the scenario");
    }
    res_tradeoff_build(&ctx, &res, tokens, price, o.knee, &t);
    rep = (struct tradeoff_report){ o.fmt, &ctx, &t };
    rc = cmd_write_output(o.out, write_tradeoff, &rep, &err);
    if (rc == 0 && o.chart)
        rc = res_tradeoff_chart(o.chart, o.chart_w, o.chart_h, &ctx, &t, &err);
    rc = finish(rc, &res, &err);
    res_tradeoff_release(&t);
    search_result_release(&res);
    return rc;
}

/* ---- trainplan compare ---- */

static const char compare_usage[] =
"usage: trainplan compare --systems S1,S2,... [--variant NAME:K=V[,K=V]]...\n"
"                         [--scenario FILE] [--model M] [--gbs N] [--seq N]\n"
"                         [--precision P] [--gpus LIST] [--tokens N]\n"
"                         [--set K=V]... [--format table|csv|json] [-o FILE]\n"
"                         [--chart FILE.svg|FILE.png] [--chart-size WxH]\n"
"\n"
"The same job on each system (presets or files), and on variants of the\n"
"first one (--variant 2xnet:network.nic_gbps=800): at each GPU count the\n"
"fastest feasible plan on each, its time and speed-up against the first\n"
"system, days, cost (each system's price) and energy to train --tokens\n"
"tokens, and the shares of compute, communication and pipeline bubble that\n"
"explain the difference. Defaults come from the scenario.\n";

#define MAX_VARIANTS 8

struct compare_opts {
    const char *scenario, *model, *systems, *gpus, *out, *prec, *chart;
    int chart_w, chart_h;
    const char *variants[MAX_VARIANTS];
    int n_variants;
    int64_t gbs, seq;
    double tokens;
    enum res_format fmt;
    struct cmd_sets sets;
};

static const struct option compare_opts_table[] = {
    { "systems", required_argument, NULL, 's' },
    { "variant", required_argument, NULL, 'V' },
    { "scenario", required_argument, NULL, 'S' },
    { "model", required_argument, NULL, 'm' },
    { "gbs", required_argument, NULL, 'g' },
    { "seq", required_argument, NULL, 'q' },
    { "precision", required_argument, NULL, 'p' },
    { "gpus", required_argument, NULL, 'G' },
    { "tokens", required_argument, NULL, 't' },
    { "set", required_argument, NULL, 'e' },
    { "format", required_argument, NULL, 'f' },
    { "chart", required_argument, NULL, 'c' },
    { "chart-size", required_argument, NULL, 'z' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

static int compare_parse(struct compare_opts *o, int argc, char **argv)
{
    struct tpl_err err = { 0 };
    int c;
    memset(o, 0, sizeof *o);
    o->chart_w = 960;
    o->chart_h = 640;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":o:", compare_opts_table, NULL)) != -1) {
        int rc = 0;
        switch (c) {
        case 'h': fputs(compare_usage, stdout); return 1;
        case 's': o->systems = optarg; break;
        case 'S': o->scenario = optarg; break;
        case 'm': o->model = optarg; break;
        case 'p': o->prec = optarg; break;
        case 'G': o->gpus = optarg; break;
        case 'o': o->out = optarg; break;
        case 'e': rc = cmd_sets_add(&o->sets, optarg, &err); break;
        case 'z': rc = chart_size(optarg, &o->chart_w, &o->chart_h, &err); break;
        case 'c':
            o->chart = optarg;
            if (!res_chart_path_ok(optarg))
                rc = tpl_errorf(&err, TPL_EUSAGE, "'--chart' must name a .svg "
                                "or .png file, not '%s'", optarg);
            break;
        case 'g': rc = opt_int("--gbs", optarg, 1, JOB_MAX_GBS, &o->gbs, &err); break;
        case 'q': rc = opt_int("--seq", optarg, 1, JOB_MAX_SEQ, &o->seq, &err); break;
        case 't': rc = opt_num("--tokens", optarg, 1, 1e18, &o->tokens, &err); break;
        case 'V':
            if (o->n_variants == MAX_VARIANTS)
                rc = tpl_errorf(&err, TPL_EUSAGE, "at most %d --variant options",
                                MAX_VARIANTS);
            else
                o->variants[o->n_variants++] = optarg;
            break;
        case 'f':
            if (res_format_parse(optarg, &o->fmt))
                rc = tpl_errorf(&err, TPL_EUSAGE, "'--format' must be table, "
                                "csv or json, not '%s'", optarg);
            break;
        default:
            return 1 + cmd_option_error("compare", c, argv);
        }
        if (rc)
            return 1 + cmd_usage_error("compare", "%s", err.msg);
    }
    if (optind < argc)
        return 1 + cmd_usage_error("compare", "unexpected argument '%s'",
                                   argv[optind]);
    return 0;
}

/* A variant "NAME:K=V[,K=V]": its --set assignments after the global ones.
 * 'buf' holds the copies the assignments point into. */
static int variant_sets(const char *v, const struct cmd_sets *global,
                        struct cmd_sets *out, char *name, size_t n_name,
                        char *buf, size_t n_buf, struct tpl_err *err)
{
    const char *colon = strchr(v, ':');
    char *save, *tok;
    *out = *global;
    if (!colon || colon == v || (size_t)(colon - v) >= n_name || !colon[1] ||
        strlen(colon + 1) >= n_buf)
        return tpl_errorf(err, TPL_EUSAGE, "--variant '%s': expected "
                          "NAME:section.field=value[,...]", v);
    snprintf(name, n_name, "%.*s", (int)(colon - v), v);
    snprintf(buf, n_buf, "%s", colon + 1);
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
        if (cmd_sets_add(out, tok, err))
            return TPL_EUSAGE;
    return 0;
}

/* Load one system, search it and build its tradeoff rows. */
static int compare_one(struct compare_system *cs, const char *system,
                       const struct cmd_sets *sets, const struct cmd_inputs *in,
                       const struct gpu_list *gpus, double tokens,
                       struct tpl_err *err)
{
    struct hw_system hw;
    struct search_result res;
    struct search_cfg cfg;
    int rc = hw_system_load(&hw, system, sets->v, sets->n, err);
    if (rc)
        return rc;
    pred_ctx_init(&cs->ctx, &in->model, &hw, &in->scen.job,
                  in->scen.space.tp_cross_node);
    cfg = (struct search_cfg){ .ctx = &cs->ctx, .space = &in->scen.space,
        .gpus = gpus->v, .n_gpus = gpus->n, .top_k = 1, .stop = &interrupted,
        .progress = isatty(STDERR_FILENO) ? show_progress : NULL };
    if ((rc = search_run(&cfg, &res, err)))
        return rc;
    res_tradeoff_build(&cs->ctx, &res, tokens, hw.usd_per_gpu_hour, 0.5, &cs->t);
    search_result_release(&res);
    return 0;
}

struct compare_report {
    enum res_format fmt;
    const struct compare *cmp;
};

static int write_compare(FILE *fp, void *arg, struct tpl_err *err)
{
    const struct compare_report *r = arg;
    return res_compare_write(fp, r->fmt, r->cmp, err);
}

int cmd_compare(int argc, char **argv)
{
    static struct compare_opts o;
    static struct cmd_inputs in;
    static struct compare cmp;
    struct tpl_err err = { 0 };
    struct gpu_list gpus = { 0 };
    char list[1024], *save, *name;
    double tokens;
    bool any = false;
    int rc = compare_parse(&o, argc, argv);
    if (rc)
        return rc - 1;
    if (cmd_load_inputs(&in, o.scenario, o.model, NULL, &o.sets, &err))
        return cmd_fail(&err);
    if (o.gbs)
        in.scen.job.gbs = o.gbs;
    if (o.seq)
        in.scen.job.seq = o.seq;
    if (o.prec && job_precision_parse(o.prec, &in.scen.job.precision))
        return cmd_usage_error("compare", "'--precision' must be bf16, fp16 or "
                               "fp8, not '%s'", o.prec);
    tokens = o.tokens > 0 ? o.tokens : in.scen.job.tokens;
    if (tokens <= 0)
        return cmd_usage_error("compare", "no tokens to train: give --tokens N "
                               "or set job.tokens in the scenario");
    if (gpu_list_parse(&gpus, o.gpus ? o.gpus : in.scen.space.gpus, "--gpus", &err))
        return cmd_usage_error("compare", "%s", err.msg);
    snprintf(list, sizeof list, "%s", o.systems ? o.systems : in.scen.system);
    memset(&cmp, 0, sizeof cmp);
    signal(SIGINT, on_sigint);
    for (name = strtok_r(list, ",", &save); name && rc == 0;
         name = strtok_r(NULL, ",", &save)) {
        if (cmp.n == RES_COMPARE_MAX)
            rc = tpl_errorf(&err, TPL_EUSAGE, "at most %d systems", RES_COMPARE_MAX);
        else {
            snprintf(cmp.sys[cmp.n].label, sizeof cmp.sys[0].label, "%s", name);
            rc = compare_one(&cmp.sys[cmp.n], name, &o.sets, &in, &gpus, tokens, &err);
            cmp.n += rc == 0;
        }
    }
    for (int v = 0; rc == 0 && v < o.n_variants; v++) {
        static struct cmd_sets vsets;
        char buf[512], base[256];
        snprintf(base, sizeof base, "%s", o.systems ? o.systems : in.scen.system);
        base[strcspn(base, ",")] = '\0';
        if (cmp.n == RES_COMPARE_MAX)
            rc = tpl_errorf(&err, TPL_EUSAGE, "at most %d systems", RES_COMPARE_MAX);
        else if (!(rc = variant_sets(o.variants[v], &o.sets, &vsets,
                                     cmp.sys[cmp.n].label, sizeof cmp.sys[0].label,
                                     buf, sizeof buf, &err))) {
            rc = compare_one(&cmp.sys[cmp.n], base, &vsets, &in, &gpus, tokens, &err);
            cmp.n += rc == 0;
        }
    }
    signal(SIGINT, SIG_DFL);
    gpu_list_release(&gpus);
    if (rc == 0) {
        struct compare_report rep = { o.fmt, &cmp };
        if (interrupted)
            fputs("trainplan: interrupted: partial comparison\n", stderr);
        rc = cmd_write_output(o.out, write_compare, &rep, &err);
        if (rc == 0 && o.chart)
            rc = res_compare_chart(o.chart, o.chart_w, o.chart_h, &cmp, &err);
    }
    for (int s = 0; s < cmp.n; s++) {
        for (size_t i = 0; i < cmp.sys[s].t.n; i++)
            any |= cmp.sys[s].t.rows[i].feasible;
        res_tradeoff_release(&cmp.sys[s].t);
    }
    if (rc)
        return rc == TPL_EUSAGE ? cmd_usage_error("compare", "%s", err.msg)
                                : cmd_fail(&err);
    return interrupted ? 130 : any ? 0 : tpl_exit_code(TPL_ENOPLAN);
}
