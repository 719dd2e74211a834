/* cli/cmd_tradeoff.c: trainplan tradeoff: for each GPU count the fastest
 * feasible plan (a search, cmd_search.c) and what training with it takes. */
#include "cli/cmd.h"
#include "cli/options.h"

#include "common/log.h"
#include "results/charts.h"

static const char usage[] =
"usage: trainplan tradeoff [--scenario FILE] [--model M] [--system S]\n"
"                          [--stack K]\n"
"                          [--gbs N] [--seq N] [--gpus LIST] [--tokens N]\n"
"                          [--price USD] [--knee F] [--reference N]\n"
"                          [search options]\n"
"                          [--format {formats}] [-o FILE]\n"
"                          [--chart FILE.svg|FILE.png] [--chart-size WxH]\n"
"\n"
"For each GPU count, the fastest feasible plan and what training --tokens\n"
"tokens (default: the scenario's job.tokens) with it takes: days, GPU-hours,\n"
"cost at --price USD per GPU-hour (default: the system's price), energy and\n"
"average power per GPU (GPU boards only), and scaling efficiency against\n"
"--reference N GPUs (added to the counts; default: the smallest count with\n"
"a plan). Days and GPU-hours include the expected interruptions: goodput\n"
"from the system's reliability fields (checkpoints at Daly's optimum\n"
"interval, restarts, lost work; --set reliability.gpu_mtbf_hours=...,\n"
"reliability.storage_gbs=..., reliability.restart_min=...); the columns\n"
"'ideal d' are the days if every hour trained. Marks the Pareto frontier\n"
"of time against GPU-hours and its knee: the count past which doubling the\n"
"GPUs saves less than --knee (default 0.5) of what perfect scaling would\n"
"save. The search options are those of 'trainplan search', --headroom too:\n"
"\n"
"{headroom}";

static const enum opt_id ids[] = {      /* search's, and what training takes */
    OPT_SCENARIO, OPT_MODEL, OPT_SYSTEM, OPT_STACK, OPT_SET, OPT_GBS, OPT_SEQ,
    OPT_PRECISION, OPT_ATTENTION, OPT_TP_CROSS_NODE, OPT_GPUS, OPT_TOP,
    OPT_BUDGET, OPT_SEED, OPT_EXHAUSTIVE, OPT_STATS, OPT_TOKENS, OPT_PRICE,
    OPT_KNEE, OPT_REFERENCE, OPT_FORMAT, OPT_OUT, OPT_CHART, OPT_CHART_SIZE, OPT_HELP,
    OPT_HEADROOM, OPT_COUNT
};

static const struct cmd_spec spec = { usage, ids, OPT_DIMS_SPACE };

/* Has any count a plan that finishes (goodput may stall every one)? */
static bool any_feasible(const struct tradeoff *t)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->rows[i].feasible)
            return true;
    return false;
}

/* Build the rows at the given (else the scenario's) tokens and (else the
 * system's) price, write them and the chart. */
static int report(const struct cmd_opts *o, const struct cmd_inputs *in,
                  const struct pred_ctx *ctx, const struct search_result *res,
                  struct tpl_err *err)
{
    double tokens = o->tokens > 0 ? o->tokens : in->scen.job.tokens;
    double price = o->price >= 0 ? o->price : in->hw.usd_per_gpu_hour;
    struct tradeoff t;
    struct res_report rep = { .kind = RES_REPORT_TRADEOFF, .fmt = o->fmt,
                              .ctx = ctx, .u.tradeoff = &t };
    int rc;
    if (tokens <= 0)
        return tpl_errorf(err, TPL_EUSAGE, "no tokens to train: give --tokens "
                          "N or set job.tokens in the scenario");
    res_tradeoff_build(ctx, res, tokens, price, o->knee, &t);
    if (o->reference > 0 && res_tradeoff_reference(&t, o->reference))
        tpl_log(TPL_LOG_WARN, "--reference %lld: no feasible plan there; scaling "
                "is against the smallest count with one", (long long)o->reference);
    rc = cmd_write_report(o->out, &rep, err);
    if (rc == 0 && o->chart)
        rc = res_tradeoff_chart(o->chart, o->chart_w, o->chart_h, ctx, &t, err);
    rc = cmd_search_status(rc, res, err);
    if (rc == 0 && !any_feasible(&t))
        rc = TPL_ENOPLAN;
    res_tradeoff_release(&t);
    return rc;
}

int cmd_tradeoff(int argc, char **argv, struct tpl_err *err)
{
    static struct cmd_opts o;
    static struct cmd_inputs in;
    static struct pred_ctx ctx;
    struct search_result res;
    int rc;
    cmd_opts_init(&o);
    o.top = 1;
    if ((rc = cmd_opts_parse(&o, &spec, argc, argv, err)) || o.help)
        return rc;
    if ((rc = cmd_search_run(&o, &in, &ctx, &res, err)))
        return rc;
    rc = report(&o, &in, &ctx, &res, err);
    search_result_release(&res);
    return rc;
}
