/* cli/cmd_search.c: trainplan search: the fastest feasible plans per GPU
 * count for a scenario (the embedded default when none is given), and the
 * search run that tradeoff shares. */
#include "cli/cmd.h"
#include "cli/options.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/log.h"
#include "results/charts.h"
#include "spaces/gpus.h"

static const char usage[] =
"usage: trainplan search [--scenario FILE] [--model M] [--system S]\n"
"                        [--stack K] [--gbs N|LIST] [--seq N] [--gpus LIST]\n"
"                        [--top K] [space options]\n"
"                        [--precision P] [--attention flash|unfused]\n"
"                        [--recompute-modules L]\n"
"                        [--tp-cross-node] [--budget N] [--seed N]\n"
"                        [--headroom GiB|%] [--set K=V]...\n"
"                        [--format {formats}] [--stats] [--summary]\n"
"                        [--progress] [-o FILE]\n"
"                        [--chart FILE.svg|FILE.png] [--chart-size WxH]\n"
"\n"
"Rank the fastest plans that fit in memory for each GPU count. Every value\n"
"comes from the scenario (the embedded 'default': llama3-70b on dgx-h100,\n"
"seq 8192, gbs 512, GPUs 64..1024, every dimension free) unless given here.\n"
"\n"
"  --gpus LIST      64,128,256 | 64..4096 (doubling) | 8..16384:8 (step 8)\n"
"  --gbs N|LIST     one batch, or a list in the same forms: per count, the\n"
"                   top plans of the batch with the most tokens/s\n"
"  --top K          plans per GPU count (default 5)\n"
"  --stack K        the training software (trainplan list stacks) or a stack\n"
"                   file; plans it cannot run break a stack-* rule\n"
"  --attention A    flash or unfused: overrides the stack's kernel\n"
"  --recompute-modules L\n"
"                   what selective recompute rebuilds, Megatron's\n"
"                   --recompute-modules (core_attn moe_act layernorm\n"
"                   mla_up_proj mlp shared_experts moe; default core_attn)\n"
"  --budget N       draw N combinations of the space uniformly (PCG, --seed)\n"
"                   when it is larger and evaluate the valid plans among\n"
"                   them (most combinations break a rule: fewer than N;\n"
"                   the report says how many); default: enumerate all\n"
"  --stats          add the run's work (evaluated, pruned by bound, seconds)\n"
"                   to the report, and its figures on stderr (as 'trainplan\n"
"                   -v'; 'trainplan -q' keeps stderr for errors)\n"
"  --set K=V        override any loaded field, e.g. --set network.nic_gbps=800\n"
"  --summary        one line per GPU count: its best plan, time, MFU and\n"
"                   spare memory; counts without a plan folded into ranges\n"
"                   (CSV and JSON: the best plan of each count, as --top 1)\n"
"  --progress       the progress line with its ETA on stderr also when it\n"
"                   is not a terminal (one line per 10 %)\n"
"{headroom}"
"\n"
"space options: the values a search may give a dimension, 'auto' (the\n"
"default: every value that can be valid) or a comma list such as 1,2,4,8:\n"
"{space dims}"
"\n"
"Exit status: 0 ok, 1 no GPU count has a feasible plan, 2 usage, 3 bad\n"
"input, 4 I/O, 130 interrupted (the report holds the best plans so far).\n";

static const enum opt_id ids[] = {
    OPT_SCENARIO, OPT_MODEL, OPT_SYSTEM, OPT_STACK, OPT_SET, OPT_GBS, OPT_SEQ,
    OPT_PRECISION, OPT_ATTENTION, OPT_RC_MODULES, OPT_TP_CROSS_NODE, OPT_GPUS,
    OPT_TOP, OPT_BUDGET, OPT_SEED, OPT_EXHAUSTIVE, OPT_STATS, OPT_SUMMARY,
    OPT_PROGRESS, OPT_FORMAT, OPT_OUT, OPT_CHART, OPT_CHART_SIZE, OPT_HELP,
    OPT_HEADROOM, OPT_COUNT
};

static const struct cmd_spec spec = { usage, ids, OPT_DIMS_SPACE, true };

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

/* The run's own figures on stderr: asked for with --stats (shown unless
 * -q), or for every search with -v. */
static void log_figures(const struct search_stats *st, bool asked)
{
    double plans = (double)(st->sampled ? st->enumerated : st->space_size);
    tpl_log_plain(asked ? TPL_LOG_WARN : TPL_LOG_INFO,
                  "search: %llu combinations, %llu plans (whole dp), %llu "
                  "evaluated, %.3f s, %.1f M combinations/s, %.1f M plans/s, "
                  "%d threads, peak RSS %.1f MiB",
                  (unsigned long long)st->space_size,
                  (unsigned long long)st->enumerated,
                  (unsigned long long)st->evaluated, st->seconds,
                  plans / st->seconds / 1e6,
                  (double)st->enumerated / st->seconds / 1e6,
                  omp_get_max_threads(), (double)peak_rss_kib() / 1024);
}

static int search_gpus(const struct cmd_opts *o, const struct cmd_inputs *in,
                       const struct pred_ctx *ctx, struct search_result *res,
                       const struct gpu_list *gpus, struct tpl_err *err)
{
    struct search_cfg cfg = { .ctx = ctx, .space = &in->scen.space,
        .gpus = gpus->v, .n_gpus = gpus->n, .top_k = (int)o->top,
        .exhaustive = o->exhaustive, .budget = (uint64_t)o->budget,
        .seed = (uint64_t)o->seed, .stop = &cmd_interrupted,
        .progress = tpl_progress_shown() ? tpl_progress_eta : NULL,
        .progress_arg = (void *)(uintptr_t)"search" };
    tpl_progress_start();
    return search_run(&cfg, res, err);
}

/* The GPU counts: --gpus (else the scenario's), and --reference's count
 * when it is not among them (tradeoff scales against it). */
static int gpus_of(const struct cmd_opts *o, const struct cmd_inputs *in,
                   struct gpu_list *gpus, struct tpl_err *err)
{
    const char *list = o->gpus ? o->gpus : in->scen.space.gpus;
    size_t n = strlen(list) + 32;
    char *buf = xmalloc(n);
    int rc;
    snprintf(buf, n, "%s,%lld", list, (long long)o->reference);
    rc = gpu_list_parse(gpus, o->reference > 0 ? buf : list, "--gpus", err);
    free(buf);
    return rc;
}

int cmd_search_run(const struct cmd_opts *o, struct cmd_inputs *in,
                   struct pred_ctx *ctx, struct search_result *res,
                   struct tpl_err *err)
{
    struct gpu_list gpus;
    struct cmd_names names = cmd_opts_names(o);
    int rc = cmd_load_inputs(in, &names, &o->sets, err);
    if (rc)
        return rc;
    cmd_opts_apply_job(o, &in->scen.job);
    cmd_opts_apply_space(o, &in->scen.space);
    if (gpus_of(o, in, &gpus, err))    /* checked when parsed and loaded */
        return TPL_EUSAGE;
    if (cmd_ctx_init(ctx, in, in->scen.space.tp_cross_node, err)) {
        gpu_list_release(&gpus);
        return TPL_EUSAGE;
    }
    pred_ctx_headroom(ctx, o->headroom);
    rc = search_gpus(o, in, ctx, res, &gpus, err);
    tpl_progress_end();
    gpu_list_release(&gpus);
    if (rc == 0)
        log_figures(&res->stats, o->stats);
    return rc;
}

static bool any_feasible(const struct search_result *r)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->per_gpu[i].n_hits)
            return true;
    return false;
}

int cmd_search_status(int rc, const struct search_result *res,
                      struct tpl_err *err)
{
    if (rc != TPL_EIO && res->stats.partial)
        return tpl_errorf(err, TPL_EINTR, "the report holds the best plans "
                          "found so far");
    if (rc)
        return rc;
    return any_feasible(res) ? 0 : TPL_ENOPLAN;
}

/* Each batch of a --gbs list searched (runs[0 .. n)), and the best per
 * count over them: merged points into the runs. */
struct batch_runs {
    struct search_result runs[CMD_MAX_GBS];
    int n;
    struct search_result merged;        /* own per_gpu array only */
    int64_t *gbs_of;                    /* per count */
};

static int search_batches(const struct cmd_opts *o, struct cmd_inputs *in,
                          struct pred_ctx *ctx, struct batch_runs *b,
                          struct tpl_err *err)
{
    static struct cmd_opts ob;          /* large: off the stack */
    int rc = 0;
    ob = *o;
    for (b->n = 0; rc == 0 && b->n < o->n_gbs && !cmd_interrupted; b->n++) {
        ob.gbs = o->gbs_v[b->n];
        if ((rc = cmd_search_run(&ob, in, ctx, &b->runs[b->n], err)))
            break;
        if (b->n == 0) {
            b->merged = b->runs[0];
            b->merged.per_gpu = xcalloc(b->runs[0].n + 1, sizeof *b->merged.per_gpu);
            memcpy(b->merged.per_gpu, b->runs[0].per_gpu,
                   b->runs[0].n * sizeof *b->merged.per_gpu);
            b->gbs_of = xcalloc(b->runs[0].n + 1, sizeof *b->gbs_of);
            for (size_t i = 0; i < b->runs[0].n; i++)
                b->gbs_of[i] = ob.gbs;
        } else
            res_search_pick(&b->merged, b->gbs_of, &b->runs[b->n], ob.gbs);
    }
    res_ctx_with_gbs(ctx, o->gbs_v[0], ctx);    /* the report's: the first */
    return rc;
}

static void batch_runs_release(struct batch_runs *b)
{
    for (int i = 0; i < b->n; i++)
        search_result_release(&b->runs[i]);
    free(b->merged.per_gpu);
    free(b->gbs_of);
}

/* The report, with nearby batch sizes where a count has none. */
static int write_search(const struct cmd_opts *o, const struct cmd_inputs *in,
                        const struct pred_ctx *ctx, const struct search_result *res,
                        const int64_t *gbs_of, struct tpl_err *err)
{
    struct res_report rep = { .kind = RES_REPORT_SEARCH, .fmt = o->fmt,
        .ctx = ctx, .u.search = { res, o->stats, NULL, 0, gbs_of, o->summary } };
    struct res_nearby *nearby = NULL;
    int rc = 0;
    if (!res->stats.partial && !o->summary) {   /* where a count has no plan */
        nearby = xcalloc(res->n + 1, sizeof *nearby);
        rc = res_search_nearby(ctx, &in->scen.space, res, RES_SUGGEST_MAX,
                               nearby, &rep.u.search.skipped, err);
        rep.u.search.nearby = nearby;
    }
    if (rc == 0)
        rc = cmd_write_report(o->out, &rep, err);
    free(nearby);
    if (rc == 0 && o->chart)
        rc = res_search_chart(o->chart, o->chart_w, o->chart_h, ctx, res, err);
    return cmd_search_status(rc, res, err);
}

int cmd_search(int argc, char **argv, struct tpl_err *err)
{
    static struct cmd_opts o;           /* large: keep them off the stack */
    static struct cmd_inputs in;
    static struct pred_ctx ctx;
    static struct batch_runs b;
    int rc;
    cmd_opts_init(&o);
    o.top = 5;
    if ((rc = cmd_opts_parse(&o, &spec, argc, argv, err)) || o.help)
        return rc;
    if (o.summary && cmd_opts_given(&o, OPT_TOP))
        return tpl_errorf(err, TPL_EUSAGE, "--summary shows the best plan of "
                          "each GPU count: drop '--top'");
    if (o.summary)
        o.top = 1;
    if (o.n_gbs > 1) {                  /* a list: the best batch per count */
        if ((rc = search_batches(&o, &in, &ctx, &b, err)) == 0)
            rc = write_search(&o, &in, &ctx, &b.merged, b.gbs_of, err);
        batch_runs_release(&b);
        return rc;
    }
    if ((rc = cmd_search_run(&o, &in, &ctx, &b.runs[0], err)))
        return rc;
    rc = write_search(&o, &in, &ctx, &b.runs[0], NULL, err);
    search_result_release(&b.runs[0]);
    return rc;
}
