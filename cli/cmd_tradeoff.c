/* cli/cmd_tradeoff.c: trainplan tradeoff: for each GPU count the fastest
 * feasible plan (a search, cmd_search.c) and what training with it takes. */
#include "cli/cmd.h"
#include "cli/options.h"

#include "common/log.h"
#include "results/charts.h"

static const char usage[] =
"usage: trainplan tradeoff [--scenario FILE] [--model M] [--system S]\n"
"                          [--stack K]\n"
"                          [--gbs N|LIST] [--seq N] [--gpus LIST] [--tokens N]\n"
"                          [--price USD] [--knee F] [--reference N]\n"
"                          [--published-gpu-hours H]\n"
"                          [search options]\n"
"                          [--format {formats}] [-o FILE]\n"
"                          [--chart FILE.svg|FILE.png] [--chart-size WxH]\n"
"\n"
"For each GPU count, the fastest feasible plan and what training --tokens\n"
"tokens (default: the scenario's job.tokens) with it takes: days, GPU-hours,\n"
"cost at --price USD per GPU-hour (default: the system's price), energy and\n"
"average power per GPU (the GPU boards; the whole nodes too where the\n"
"system gives power.node_kw), and scaling efficiency against\n"
"--reference N GPUs (added to the counts; default: the smallest count with\n"
"a plan). Days and GPU-hours include the expected interruptions: goodput\n"
"from the system's reliability fields (checkpoints at Daly's optimum\n"
"interval, restarts, lost work; --set reliability.gpu_mtbf_hours=...,\n"
"reliability.storage_gbs=..., reliability.restart_min=...); the columns\n"
"'ideal d' are the days if every hour trained. Marks the Pareto frontier\n"
"of time against GPU-hours and its knee: the count past which doubling the\n"
"GPUs saves less than --knee (default 0.5) of what perfect scaling would\n"
"save. --gbs takes a list or range (512,1024 or 512..4096 doubling or\n"
"512..4096:256): per count, the plan that trains the tokens soonest over\n"
"those batches (the model has no convergence cost of a larger batch: list\n"
"only what the recipe allows). A count with no plan names the batch sizes\n"
"near --gbs that have one. --published-gpu-hours H: a job's published or\n"
"measured GPU-hours (Llama 3 70B: 6.4e6, its model card) set beside each\n"
"count's prediction, the distance in percent. The search options are those\n"
"of 'trainplan search' (--progress too; --summary is search's own: a\n"
"tradeoff has one line per count already), --headroom too:\n"
"\n"
"{headroom}";

static const enum opt_id ids[] = {      /* search's, and what training takes */
    OPT_SCENARIO, OPT_MODEL, OPT_SYSTEM, OPT_STACK, OPT_SET, OPT_GBS, OPT_SEQ,
    OPT_PRECISION, OPT_ATTENTION, OPT_RC_MODULES, OPT_TP_CROSS_NODE, OPT_GPUS,
    OPT_TOP, OPT_BUDGET, OPT_SEED, OPT_EXHAUSTIVE, OPT_STATS, OPT_PROGRESS,
    OPT_TOKENS, OPT_PRICE, OPT_KNEE, OPT_REFERENCE, OPT_PUBLISHED, OPT_FORMAT,
    OPT_OUT, OPT_CHART, OPT_CHART_SIZE, OPT_HELP,
    OPT_HEADROOM, OPT_COUNT
};

static const struct cmd_spec spec = { usage, ids, OPT_DIMS_SPACE, true };

/* Has any count a plan that finishes (goodput may stall every one)? */
static bool any_feasible(const struct tradeoff *t)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->rows[i].feasible)
            return true;
    return false;
}

/* Search batch b of --gbs (the scenario's when none was given) and build
 * its rows into t: at the given (else the scenario's) tokens and (else the
 * system's) price. */
static int build_one(const struct cmd_opts *o, int b, struct cmd_inputs *in,
                     struct pred_ctx *ctx, struct tradeoff *t,
                     struct tpl_err *err)
{
    static struct cmd_opts ob;          /* large: off the stack */
    struct search_result res;
    double tokens, price;
    int rc;
    ob = *o;
    ob.gbs = o->gbs_v[b];
    if ((rc = cmd_search_run(&ob, in, ctx, &res, err)))
        return rc;
    tokens = o->tokens > 0 ? o->tokens : in->scen.job.tokens;
    price = o->price >= 0 ? o->price : in->hw.usd_per_gpu_hour;
    if (tokens <= 0)
        rc = tpl_errorf(err, TPL_EUSAGE, "no tokens to train: give --tokens "
                        "N or set job.tokens in the scenario");
    else
        res_tradeoff_build(ctx, &res, tokens, price, o->knee, t);
    search_result_release(&res);
    return rc;
}

/* Every batch of --gbs, the best per count kept; then the reference and
 * the batch sizes that would work where none does. */
static int build(const struct cmd_opts *o, struct cmd_inputs *in,
                 struct pred_ctx *ctx, struct tradeoff *t, struct tpl_err *err)
{
    int rc = build_one(o, 0, in, ctx, t, err);
    for (int b = 1; rc == 0 && b < o->n_gbs && !cmd_interrupted; b++) {
        struct tradeoff tb;
        if ((rc = build_one(o, b, in, ctx, &tb, err)) == 0) {
            res_tradeoff_pick(t, &tb);
            res_tradeoff_release(&tb);
        }
    }
    if (rc == 0 && o->reference > 0 && res_tradeoff_reference(t, o->reference))
        tpl_log(TPL_LOG_WARN, "--reference %lld: no feasible plan there; scaling "
                "is against the smallest count with one", (long long)o->reference);
    if (rc == 0 && !cmd_interrupted)
        rc = res_tradeoff_suggest(t, ctx, &in->scen.space, err);
    return rc;
}

/* Write the rows and the chart; what the run ends in. */
static int report(const struct cmd_opts *o, const struct pred_ctx *ctx,
                  const struct tradeoff *t, struct tpl_err *err)
{
    struct res_report rep = { .kind = RES_REPORT_TRADEOFF, .fmt = o->fmt,
                              .ctx = ctx, .u.tradeoff = t };
    int rc = cmd_write_report(o->out, &rep, err);
    if (rc == 0 && o->chart)
        rc = res_tradeoff_chart(o->chart, o->chart_w, o->chart_h, ctx, t, err);
    if (rc != TPL_EIO && t->partial)
        return tpl_errorf(err, TPL_EINTR, "the report holds the best plans "
                          "found so far");
    return rc ? rc : any_feasible(t) ? 0 : TPL_ENOPLAN;
}

int cmd_tradeoff(int argc, char **argv, struct tpl_err *err)
{
    static struct cmd_opts o;
    static struct cmd_inputs in;
    static struct pred_ctx ctx;
    struct tradeoff t = { 0 };
    int rc;
    cmd_opts_init(&o);
    o.top = 1;
    if ((rc = cmd_opts_parse(&o, &spec, argc, argv, err)) || o.help)
        return rc;
    if ((rc = build(&o, &in, &ctx, &t, err)) == 0) {
        t.published_gpu_hours = o.published_gpu_hours;
        rc = report(&o, &ctx, &t, err);
    }
    res_tradeoff_release(&t);
    return rc;
}
