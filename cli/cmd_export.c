/* cli/cmd_export.c: trainplan export: a plan as launch settings for a
 * training framework; the plan is given (as to predict) or the fastest on N
 * GPUs. */
#include "cli/cmd.h"
#include "cli/options.h"

#include "search/search.h"

static const char usage[] =
"usage: trainplan export [--framework {frameworks}] [-o FILE]\n"
"                        (--gpus N | --tp N --pp N --dp N [plan options])\n"
"                        [--model M] [--system S] [--stack K] [--gbs N]\n"
"                        [--seq N] [--headroom GiB|%]\n"
"                        [--scenario FILE] [--set K=V]...\n"
"\n"
"Launch settings for a plan: Megatron-LM command-line flags (default), a\n"
"NeMo / Megatron-Bridge YAML override block, or a torchtitan TOML snippet.\n"
"With --gpus N and no degrees, the plan is the fastest feasible one that\n"
"'trainplan search' finds on N GPUs in the scenario's space; otherwise the\n"
"plan options are those of 'trainplan predict'. A comment on top gives the\n"
"plan key, the stack and its predicted time and memory.\n"
"\n"
"The prediction is the framework's: with the stack named by --stack, which\n"
"must be one the framework launches (trainplan list stacks: framework),\n"
"else the scenario's stack when the framework launches it, else the\n"
"framework's own (megatron and nemo: megatron-core; torchtitan: torchtitan).\n"
"\n"
"{headroom}"
"\n"
"Exit status: 0 ok, 1 the plan does not fit (settings still written) or no\n"
"plan fits on N GPUs, 2 usage, 3 bad input, 4 I/O.\n";

static const enum opt_id ids[] = {      /* predict's, and the framework */
    OPT_MODEL, OPT_SYSTEM, OPT_STACK, OPT_GBS, OPT_SEQ, OPT_PRECISION,
    OPT_ATTENTION, OPT_TP_CROSS_NODE, OPT_SCENARIO, OPT_SET, OPT_FORMAT,
    OPT_OUT, OPT_HELP, OPT_FRAMEWORK, OPT_EXPORT_GPUS, OPT_HEADROOM, OPT_COUNT
};

static const struct cmd_spec spec = { usage, ids, OPT_DIMS_PLAN, false };

/* The stack each exporter's launch settings run when none is named. */
static const char *const fw_stack[RES_FW_COUNT] = {
    [RES_FW_MEGATRON] = "megatron-core", [RES_FW_NEMO] = "megatron-core",
    [RES_FW_TORCHTITAN] = "torchtitan",
};

/* Does the loaded stack run under the exporter's framework? */
static bool launches(const struct stack *s, enum res_framework fw)
{
    enum stack_framework f;
    return stack_framework_parse(res_framework_name(fw), &f) == 0 &&
           stack_has_framework(s, f);
}

static int mismatch(const struct cmd_opts *o, const struct stack *s,
                    struct tpl_err *err)
{
    char fws[64] = "";
    size_t len = 0;
    for (int f = 0; f < STACK_FW_COUNT; f++)
        if (stack_has_framework(s, (enum stack_framework)f))
            len += (size_t)snprintf(fws + len, sizeof fws - len, "%s%s",
                                    len ? ", " : "",
                                    stack_framework_name((enum stack_framework)f));
    return tpl_errorf(err, TPL_EUSAGE, "--stack %s (framework: %s) is not "
                      "launched by --framework %s (its stack: %s)", o->stack,
                      len ? fws : "none", res_framework_name(o->framework),
                      fw_stack[o->framework]);
}

/* Load with the stack export predicts with (see the usage). */
static int prepare(struct cmd_opts *o, struct cmd_inputs *in,
                   struct pred_ctx *ctx, struct tpl_err *err)
{
    int rc = cmd_plan_prepare(o, in, ctx, err);
    if (rc || launches(&in->stack, o->framework))
        return rc;
    if (o->stack)
        return mismatch(o, &in->stack, err);
    o->stack = fw_stack[o->framework];
    return cmd_plan_prepare(o, in, ctx, err);
}

/* The fastest feasible plan on 'gpus' in the scenario's space. */
static int best_plan(const struct cmd_inputs *in, const struct pred_ctx *ctx,
                     int64_t gpus, struct plan *plan, struct tpl_err *err)
{
    struct search_cfg cfg = { .ctx = ctx, .space = &in->scen.space,
                              .gpus = &gpus, .n_gpus = 1, .top_k = 1 };
    struct search_result res;
    int rc = search_run(&cfg, &res, err);
    if (rc)
        return rc;
    if (res.per_gpu[0].n_hits == 0)
        rc = tpl_errorf(err, TPL_ENOPLAN, "no feasible plan on %lld GPUs (see "
                        "'trainplan search --gpus %lld')", (long long)gpus,
                        (long long)gpus);
    else
        *plan = res.per_gpu[0].hits[0].plan;
    search_result_release(&res);
    return rc;
}

/* Either the GPU count or the plan's degrees. */
static int check(const struct cmd_opts *o, struct tpl_err *err)
{
    bool degrees = cmd_opts_given(o, OPT_DIM(PLAN_DIM_TP)) ||
                   cmd_opts_given(o, OPT_DIM(PLAN_DIM_CP)) ||
                   cmd_opts_given(o, OPT_DIM(PLAN_DIM_PP)) ||
                   cmd_opts_given(o, OPT_DIM(PLAN_DIM_DP));
    if (degrees == cmd_opts_given(o, OPT_EXPORT_GPUS))
        return tpl_errorf(err, TPL_EUSAGE, "give either --gpus N or the plan's "
                          "--tp/--pp/--dp");
    return 0;
}

int cmd_export(int argc, char **argv, struct tpl_err *err)
{
    static struct cmd_opts o;
    static struct cmd_inputs in;
    static struct pred_ctx ctx;
    struct pred_result r;
    struct res_report rep = { .kind = RES_REPORT_EXPORT, .ctx = &ctx,
                              .u.plan = { &o.plan, &r } };
    int rc;
    cmd_opts_init(&o);
    if ((rc = cmd_opts_parse(&o, &spec, argc, argv, err)) || o.help ||
        (rc = check(&o, err)) || (rc = prepare(&o, &in, &ctx, err)))
        return rc;
    if (o.export_gpus && (rc = best_plan(&in, &ctx, o.export_gpus, &o.plan, err)))
        return rc;
    if (!o.export_gpus)
        cmd_plan_defaults(&o, &in);
    plan_stages_resolve(&o.plan, &ctx.model, &ctx.limits);
    pred_plan(&ctx, &o.plan, &r);
    rep.fw = o.framework;
    return (rc = cmd_write_report(o.out, &rep, err)) ? rc : cmd_plan_status(&r);
}
