/* cli/cmd_export.c: trainplan export: a plan as launch settings for a
 * training framework; the plan is given (as to predict) or the fastest on N
 * GPUs. */
#include "cli/cmd.h"
#include "cli/options.h"

#include <string.h>

#include "common/log.h"
#include "results/writer.h"
#include "search/search.h"

static const char usage[] =
"usage: trainplan export [--framework {frameworks}] [-o FILE]\n"
"                        (--gpus N | --tp N --pp N --dp N [plan options])\n"
"                        [--model M] [--system S] [--stack K] [--gbs N]\n"
"                        [--seq N] [--headroom GiB|%] [--recompute-modules L]\n"
"                        [--nearest] [--force]\n"
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
"A plan the framework cannot run (it breaks a rule of the framework's stack,\n"
"or the model needs what the framework lacks) is refused: nothing is written\n"
"and stderr says why. --nearest writes instead the plan on the same GPU\n"
"count that the framework runs, that fits and that differs from the given\n"
"one in the fewest dimensions (the faster on a tie, among the 1000 fastest),\n"
"predicted again; stderr names it and its time.\n"
"A plan that does not fit in memory writes nothing and stderr names the\n"
"shortfall; --force writes it anyway (exit status 1).\n"
"\n"
"Exit status: 0 ok, 1 the plan cannot run or does not fit, or no plan fits\n"
"on N GPUs, 2 usage, 3 bad input, 4 I/O.\n";

static const enum opt_id ids[] = {      /* predict's, and the framework */
    OPT_MODEL, OPT_SYSTEM, OPT_STACK, OPT_GBS, OPT_SEQ, OPT_PRECISION,
    OPT_ATTENTION, OPT_RC_MODULES, OPT_TP_CROSS_NODE, OPT_SCENARIO, OPT_SET, OPT_FORMAT,
    OPT_OUT, OPT_HELP, OPT_FRAMEWORK, OPT_EXPORT_GPUS, OPT_HEADROOM,
    OPT_NEAREST, OPT_FORCE, OPT_COUNT
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

/* Whether the framework runs the plan (res_export_runnable on its
 * prediction). */
static bool fw_runs(enum res_framework fw, const struct pred_ctx *ctx,
                    const struct plan *p)
{
    struct pred_result r;
    char why[256];
    pred_plan(ctx, p, &r);
    return res_export_runnable(fw, ctx, p, &r, why, sizeof why) == 0;
}

/* The fastest feasible plan on 'gpus' in the scenario's space that the
 * framework runs (of the SEARCH_MAX_TOP fastest). */
static int best_plan(const struct cmd_inputs *in, const struct pred_ctx *ctx,
                     enum res_framework fw, int64_t gpus, struct plan *plan,
                     struct tpl_err *err)
{
    struct search_cfg cfg = { .ctx = ctx, .space = &in->scen.space,
                              .gpus = &gpus, .n_gpus = 1,
                              .top_k = SEARCH_MAX_TOP };
    struct search_result res;
    const struct search_gpu *g;
    char why[256];
    int rc, i;
    if (res_export_model_runnable(fw, ctx, why, sizeof why))
        return tpl_errorf(err, TPL_ENOPLAN, "--framework %s: %s",
                          res_framework_name(fw), why);
    if ((rc = search_run(&cfg, &res, err)))
        return rc;
    g = &res.per_gpu[0];
    for (i = 0; i < g->n_hits && !fw_runs(fw, ctx, &g->hits[i].plan); i++)
        ;
    if (g->n_hits == 0)
        rc = tpl_errorf(err, TPL_ENOPLAN, "no feasible plan on %lld GPUs (see "
                        "'trainplan search --gpus %lld')", (long long)gpus,
                        (long long)gpus);
    else if (i == g->n_hits)
        rc = tpl_errorf(err, TPL_ENOPLAN, "--framework %s runs none of the %d "
                        "fastest feasible plans on %lld GPUs",
                        res_framework_name(fw), g->n_hits, (long long)gpus);
    else
        *plan = g->hits[i].plan;
    search_result_release(&res);
    return rc;
}

/* How many dimensions of two plans differ (spaces/dims.h). */
static int plan_distance(const struct plan *a, const struct plan *b)
{
    int d = 0;
    for (int i = 0; i < PLAN_DIM_COUNT; i++)
        d += plan_dim_get(a, (enum plan_dim)i) != plan_dim_get(b, (enum plan_dim)i);
    return d;
}

/* --nearest: of the SEARCH_MAX_TOP fastest feasible plans on the same GPU
 * count (every dimension 'auto') that the framework runs, the one nearest
 * to *want. */
static int nearest_plan(const struct cmd_inputs *in, const struct pred_ctx *ctx,
                        enum res_framework fw, struct plan *want,
                        struct tpl_err *err)
{
    static struct space any;            /* large: off the stack */
    int64_t gpus = plan_gpus(want);
    struct search_cfg cfg = { .ctx = ctx, .space = &any, .gpus = &gpus,
                              .n_gpus = 1, .top_k = SEARCH_MAX_TOP };
    struct search_result res;
    int rc, best = -1, best_d = PLAN_DIM_COUNT + 1;
    any = in->scen.space;
    memset(any.dim, 0, sizeof any.dim);
    if ((rc = search_run(&cfg, &res, err)))
        return rc;
    for (int i = 0; i < res.per_gpu[0].n_hits; i++) {
        int d = plan_distance(&res.per_gpu[0].hits[i].plan, want);
        if (d < best_d && fw_runs(fw, ctx, &res.per_gpu[0].hits[i].plan))
            best = i, best_d = d;
    }
    if (best < 0)
        rc = tpl_errorf(err, TPL_ENOPLAN, "--nearest: no feasible plan on %lld "
                        "GPUs that --framework %s runs", (long long)gpus,
                        res_framework_name(fw));
    else
        *want = res.per_gpu[0].hits[best].plan;
    search_result_release(&res);
    return rc;
}

/* A plan the framework cannot run: refused, or with --nearest replaced by
 * the nearest one it runs (then *r is that plan's prediction). */
static int runnable(const struct cmd_opts *o, const struct cmd_inputs *in,
                    const struct pred_ctx *ctx, struct plan *p,
                    struct pred_result *r, struct tpl_err *err)
{
    char why[256], key[96];
    int rc;
    const char *fw = res_framework_name(o->framework);
    if (res_export_model_runnable(o->framework, ctx, why, sizeof why))
        return tpl_errorf(err, TPL_ENOPLAN, "--framework %s: %s", fw, why);
    if (res_export_runnable(o->framework, ctx, p, r, why, sizeof why) == 0)
        return 0;
    plan_key(p, key, sizeof key);
    if (!o->nearest)
        return tpl_errorf(err, TPL_ENOPLAN, "--framework %s cannot run %s: %s "
                          "(--nearest exports the nearest plan it runs)", fw,
                          key, why);
    if ((rc = nearest_plan(in, ctx, o->framework, p, err)))
        return rc;
    pred_plan(ctx, p, r);
    tpl_log(TPL_LOG_WARN, "--framework %s cannot run %s (%s)", fw, key, why);
    plan_key(p, key, sizeof key);
    tpl_log(TPL_LOG_WARN, "--nearest: %s, predicted %.3f s per iteration",
            key, r->iteration_s);
    return res_export_runnable(o->framework, ctx, p, r, why, sizeof why) ?
           tpl_errorf(err, TPL_ENOPLAN, "--nearest: %s", why) : 0;
}

/* A plan that does not fit writes nothing unless --force. */
static int fits(const struct cmd_opts *o, const struct pred_ctx *ctx,
                const struct plan *p, const struct pred_result *r,
                struct tpl_err *err)
{
    char key[96];
    const struct pred_mem *m = &r->mem;
    if (m->fits || o->force)
        return 0;
    plan_key(p, key, sizeof key);
    return tpl_errorf(err, TPL_ENOPLAN, "%s does not fit on %s: %.1f GiB per "
                      "GPU (stage %d) of %.1f GiB usable%s, short by %.1f GiB; "
                      "nothing written (--force writes it)", key, ctx->hw.name,
                      m->total_bytes / RES_GIB, m->worst_stage,
                      m->usable_bytes / RES_GIB, m->headroom_bytes > 0 ?
                      " less the headroom" : "", -m->margin_bytes / RES_GIB);
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
    if (o.export_gpus &&
        (rc = best_plan(&in, &ctx, o.framework, o.export_gpus, &o.plan, err)))
        return rc;
    if (!o.export_gpus)
        cmd_plan_defaults(&o, &in);
    plan_stages_resolve(&o.plan, &ctx.model, &ctx.limits);
    if (!o.export_gpus)
        cmd_plan_overlap(&o, &ctx);
    pred_plan(&ctx, &o.plan, &r);
    if ((rc = runnable(&o, &in, &ctx, &o.plan, &r, err)) ||
        (rc = fits(&o, &ctx, &o.plan, &r, err)))
        return rc;
    rep.fw = o.framework;
    return (rc = cmd_write_report(o.out, &rep, err)) ? rc : cmd_plan_status(&r);
}
