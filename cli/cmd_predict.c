/* cli/cmd_predict.c: trainplan predict: memory, time and breakdown of one
 * plan. Model, system and job default to the embedded default scenario. */
#include "cli/cmd.h"
#include "cli/options.h"

static const char usage[] =
"usage: trainplan predict [--model M] [--system S] [--stack K] [--gbs N]\n"
"                         [--seq N] [plan options] [--precision bf16|fp16|fp8]\n"
"                         [--attention flash|unfused]\n"
"                         [--recompute-modules L] [--tp-cross-node]\n"
"                         [--headroom GiB|%] [--scenario FILE] [--set K=V]...\n"
"                         [--format {formats}] [-o FILE]\n"
"\n"
"Predict iteration time, MFU, memory per GPU and the time breakdown of one\n"
"plan. GPUs = tp * pp * dp. Model, system, seq and gbs default to the\n"
"scenario (the embedded 'default': llama3-70b on dgx-h100, seq 8192, gbs 512);\n"
"degrees default to 1, recompute to none, zero to 0.\n"
"\n"
"plan options, one value each:\n"
"{plan dims}"
"\n"
"  --model M          preset name (trainplan list models) or model file\n"
"  --system S         preset name (trainplan list systems) or system file\n"
"  --stack K          the training software: preset (trainplan list stacks)\n"
"                     or stack file; default the scenario's (megatron-core)\n"
"  --attention A      flash or unfused: overrides the stack's kernel\n"
"  --recompute-modules L\n"
"                     what selective recompute rebuilds, Megatron's\n"
"                     --recompute-modules (core_attn moe_act layernorm\n"
"                     mla_up_proj mlp shared_experts moe; default core_attn)\n"
"  --set K=V          override any loaded field, e.g. --set network.nic_gbps=800\n"
"{headroom}"
"  --format F         {formats} (default table)\n"
"  -o FILE            write to FILE (atomically) instead of stdout\n"
"\n"
"Exit status: 0 the plan is feasible, 1 it breaks a rule or does not fit in\n"
"memory (the report says which; numbers are still given), 2 usage,\n"
"3 bad input, 4 I/O.\n";

static const enum opt_id ids[] = {
    OPT_MODEL, OPT_SYSTEM, OPT_STACK, OPT_GBS, OPT_SEQ, OPT_PRECISION, OPT_ATTENTION, OPT_RC_MODULES,
    OPT_TP_CROSS_NODE, OPT_SCENARIO, OPT_SET, OPT_FORMAT, OPT_OUT, OPT_HELP,
    OPT_HEADROOM, OPT_COUNT
};

static const struct cmd_spec spec = { usage, ids, OPT_DIMS_PLAN, false };

int cmd_plan_prepare(const struct cmd_opts *o, struct cmd_inputs *in,
                     struct pred_ctx *ctx, struct tpl_err *err)
{
    struct cmd_names names = cmd_opts_names(o);
    int rc = cmd_load_inputs(in, &names, &o->sets, err);
    if (rc)
        return rc;
    cmd_opts_apply_job(o, &in->scen.job);
    rc = cmd_ctx_init(ctx, in, o->tp_cross_node || in->scen.space.tp_cross_node,
                      err);
    if (rc)
        return rc;
    pred_ctx_headroom(ctx, o->headroom);
    return 0;
}

void cmd_plan_defaults(struct cmd_opts *o, const struct cmd_inputs *in)
{
    if (!cmd_opts_given(o, OPT_DIM(PLAN_DIM_TPO)))
        stack_plan_defaults(&in->stack, &o->plan);
}

void cmd_plan_overlap(struct cmd_opts *o, const struct pred_ctx *ctx)
{
    if (!cmd_opts_given(o, OPT_DIM(PLAN_DIM_OVERLAP)))
        o->plan.overlap = plan_overlap_default(&o->plan, &ctx->limits);
}

int cmd_plan_status(const struct pred_result *r)
{
    return r->rule == PLAN_OK && r->mem.fits ? 0 : TPL_ENOPLAN;
}

int cmd_predict(int argc, char **argv, struct tpl_err *err)
{
    static struct cmd_opts o;           /* large: keep them off the stack */
    static struct cmd_inputs in;
    static struct pred_ctx ctx;
    struct pred_result r;
    struct res_report rep = { .kind = RES_REPORT_PREDICT, .ctx = &ctx,
                              .u.plan = { &o.plan, &r } };
    int rc;
    cmd_opts_init(&o);
    if ((rc = cmd_opts_parse(&o, &spec, argc, argv, err)) || o.help ||
        (rc = cmd_plan_prepare(&o, &in, &ctx, err)))
        return rc;
    cmd_plan_defaults(&o, &in);
    plan_stages_resolve(&o.plan, &ctx.model, &ctx.limits);
    cmd_plan_overlap(&o, &ctx);
    pred_plan(&ctx, &o.plan, &r);
    rep.fmt = o.fmt;
    return (rc = cmd_write_report(o.out, &rep, err)) ? rc : cmd_plan_status(&r);
}
