/* cli/cmd_predict.c: trainplan predict: memory, time and breakdown of one
 * plan. Model, system and job default to the embedded default scenario. */
#include "cli/cmd.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "results/export.h"
#include "search/search.h"

static const char usage[] =
"usage: trainplan predict [--model M] [--system S] [--gbs N] [--seq N]\n"
"                         [--tp N] [--pp N] [--dp N] [--mbs N] [--vpp N] [--sp]\n"
"                         [--recompute none|selective|full] [--zero 0|1]\n"
"                         [--precision bf16|fp16|fp8] [--attention flash|unfused]\n"
"                         [--tp-cross-node] [--scenario FILE] [--set K=V]...\n"
"                         [--format table|csv|json] [-o FILE]\n"
"\n"
"Predict iteration time, MFU, memory per GPU and the time breakdown of one\n"
"plan. GPUs = tp * pp * dp. Model, system, seq and gbs default to the\n"
"scenario (the embedded 'default': llama3-70b on dgx-h100, seq 8192, gbs 512);\n"
"degrees default to 1, recompute to none, zero to 0.\n"
"\n"
"  --model M          preset name (trainplan list models) or model file\n"
"  --system S         preset name (trainplan list systems) or system file\n"
"  --set K=V          override any loaded field, e.g. --set network.nic_gbps=800\n"
"  --format F         table (default), csv or json\n"
"  -o FILE            write to FILE (atomically) instead of stdout\n"
"\n"
"Exit status: 0 the plan is feasible, 1 it breaks a rule or does not fit in\n"
"memory (the report says which; numbers are still given), 2 usage,\n"
"3 bad input, 4 I/O.\n";

enum { OPT_MODEL = 256, OPT_SYSTEM, OPT_GBS, OPT_SEQ, OPT_TP, OPT_PP, OPT_DP,
       OPT_MBS, OPT_VPP, OPT_SP, OPT_RC, OPT_ZERO, OPT_PREC, OPT_ATTN,
       OPT_CROSS, OPT_SCEN, OPT_SET, OPT_FORMAT, OPT_HELP, OPT_FRAMEWORK,
       OPT_GPUS };

static const struct option long_opts[] = {
    { "model", required_argument, NULL, OPT_MODEL },
    { "system", required_argument, NULL, OPT_SYSTEM },
    { "gbs", required_argument, NULL, OPT_GBS },
    { "seq", required_argument, NULL, OPT_SEQ },
    { "tp", required_argument, NULL, OPT_TP },
    { "pp", required_argument, NULL, OPT_PP },
    { "dp", required_argument, NULL, OPT_DP },
    { "mbs", required_argument, NULL, OPT_MBS },
    { "vpp", required_argument, NULL, OPT_VPP },
    { "sp", no_argument, NULL, OPT_SP },
    { "recompute", required_argument, NULL, OPT_RC },
    { "zero", required_argument, NULL, OPT_ZERO },
    { "precision", required_argument, NULL, OPT_PREC },
    { "attention", required_argument, NULL, OPT_ATTN },
    { "tp-cross-node", no_argument, NULL, OPT_CROSS },
    { "scenario", required_argument, NULL, OPT_SCEN },
    { "set", required_argument, NULL, OPT_SET },
    { "format", required_argument, NULL, OPT_FORMAT },
    { "help", no_argument, NULL, OPT_HELP },
    { "framework", required_argument, NULL, OPT_FRAMEWORK },   /* export */
    { "gpus", required_argument, NULL, OPT_GPUS },             /* export */
    { NULL, 0, NULL, 0 },
};

static const char export_usage[] =
"usage: trainplan export [--framework megatron|nemo|torchtitan] [-o FILE]\n"
"                        (--gpus N | --tp N --pp N --dp N [plan options])\n"
"                        [--model M] [--system S] [--gbs N] [--seq N]\n"
"                        [--scenario FILE] [--set K=V]...\n"
"\n"
"Launch settings for a plan: Megatron-LM command-line flags (default), a\n"
"NeMo / Megatron-Bridge YAML override block, or a torchtitan TOML snippet.\n"
"With --gpus N and no degrees, the plan is the fastest feasible one that\n"
"'trainplan search' finds on N GPUs in the scenario's space; otherwise the\n"
"plan options are those of 'trainplan predict'. A comment on top gives the\n"
"plan key and its predicted time and memory.\n"
"\n"
"Exit status: 0 ok, 1 the plan does not fit (settings still written) or no\n"
"plan fits on N GPUs, 2 usage, 3 bad input, 4 I/O.\n";

struct predict_opts {
    const char *model, *system, *scenario, *out;
    int64_t gbs, seq, deg[5];   /* tp pp dp mbs vpp */
    int64_t zero;
    int sp, cross, prec, attn;  /* -1: from the scenario */
    enum plan_recompute rc;
    enum res_format fmt;
    struct cmd_sets sets;
    bool exporting;             /* trainplan export: --framework, --gpus */
    bool degrees;               /* tp, pp or dp given */
    enum res_framework framework;
    int64_t gpus;
};

struct predict_run {            /* what the writer needs */
    enum res_format fmt;
    struct pred_ctx ctx;
    struct plan plan;
    struct pred_result res;
};

static int write_report(FILE *fp, void *arg, struct tpl_err *err)
{
    struct predict_run *r = arg;
    return res_predict_write(fp, r->fmt, &r->ctx, &r->plan, &r->res, err);
}

static int parse_value(struct predict_opts *o, int c, const char *v,
                       struct tpl_err *err)
{
    static const char *const names[] = { "--tp", "--pp", "--dp", "--mbs", "--vpp" };
    enum job_precision prec;
    enum job_attention attn;
    if (!o->exporting && (c == OPT_FRAMEWORK || c == OPT_GPUS))
        return tpl_errorf(err, TPL_EUSAGE, "unknown option '--%s'",
                          c == OPT_GPUS ? "gpus" : "framework");
    if (c == OPT_TP || c == OPT_PP || c == OPT_DP)
        o->degrees = true;
    switch (c) {
    case OPT_FRAMEWORK:
        return res_framework_parse(v, &o->framework) ? tpl_errorf(err,
               TPL_EUSAGE, "'--framework' must be megatron, nemo or "
               "torchtitan, not '%s'", v) : 0;
    case OPT_GPUS:   return opt_int("--gpus", v, 1, 1 << 20, &o->gpus, err);
    case OPT_MODEL:  o->model = v; return 0;
    case OPT_SYSTEM: o->system = v; return 0;
    case OPT_SCEN:   o->scenario = v; return 0;
    case 'o':        o->out = v; return 0;
    case OPT_SP:     o->sp = 1; return 0;
    case OPT_CROSS:  o->cross = 1; return 0;
    case OPT_SET:    return cmd_sets_add(&o->sets, v, err);
    case OPT_GBS:    return opt_int("--gbs", v, 1, JOB_MAX_GBS, &o->gbs, err);
    case OPT_SEQ:    return opt_int("--seq", v, 1, JOB_MAX_SEQ, &o->seq, err);
    case OPT_ZERO:   return opt_int("--zero", v, 0, 1, &o->zero, err);
    case OPT_TP: case OPT_PP: case OPT_DP: case OPT_MBS: case OPT_VPP:
        return opt_int(names[c - OPT_TP], v, 1, PLAN_MAX_DEGREE,
                       &o->deg[c - OPT_TP], err);
    case OPT_RC:
        return plan_recompute_parse(v, &o->rc) ? tpl_errorf(err, TPL_EUSAGE,
               "'--recompute' must be none, selective or full, not '%s'", v) : 0;
    case OPT_PREC:
        if (job_precision_parse(v, &prec))
            return tpl_errorf(err, TPL_EUSAGE, "'--precision' must be bf16, "
                              "fp16 or fp8, not '%s'", v);
        o->prec = (int)prec;
        return 0;
    case OPT_ATTN:
        if (job_attention_parse(v, &attn))
            return tpl_errorf(err, TPL_EUSAGE, "'--attention' must be flash or "
                              "unfused, not '%s'", v);
        o->attn = (int)attn;
        return 0;
    case OPT_FORMAT:
        return res_format_parse(v, &o->fmt) ? tpl_errorf(err, TPL_EUSAGE,
               "'--format' must be table, csv or json, not '%s'", v) : 0;
    }
    return tpl_errorf(err, TPL_EUSAGE, "unexpected option");
}

/* 0 to go on, or an exit code (+1 so 0 can mean "done, exit 0") */
static int parse_args(struct predict_opts *o, int argc, char **argv,
                      bool exporting)
{
    const char *cmd = exporting ? "export" : "predict";
    struct tpl_err err = { 0 };
    int c;
    memset(o, 0, sizeof *o);
    o->exporting = exporting;
    for (int i = 0; i < 5; i++)
        o->deg[i] = 1;
    o->sp = o->cross = 0;
    o->prec = o->attn = -1;
    o->gbs = o->seq = 0;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":o:", long_opts, NULL)) != -1) {
        if (c == OPT_HELP) {
            fputs(exporting ? export_usage : usage, stdout);
            return 1;
        }
        if (c == '?' || c == ':')
            return 1 + cmd_option_error(cmd, c, argv);
        if (parse_value(o, c, optarg, &err))
            return 1 + cmd_usage_error(cmd, "%s", err.msg);
    }
    if (optind < argc)
        return 1 + cmd_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    if (exporting && o->degrees == (o->gpus > 0))
        return 1 + cmd_usage_error(cmd, "give either --gpus N or the plan's "
                                   "--tp/--pp/--dp");
    return 0;
}

static void apply_job(const struct predict_opts *o, struct job *j)
{
    if (o->gbs)
        j->gbs = o->gbs;
    if (o->seq)
        j->seq = o->seq;
    if (o->prec >= 0)
        j->precision = (enum job_precision)o->prec;
    if (o->attn >= 0)
        j->attention = (enum job_attention)o->attn;
}

static struct plan opts_plan(const struct predict_opts *o)
{
    return (struct plan){ .tp = (int32_t)o->deg[0], .pp = (int32_t)o->deg[1],
                          .dp = (int32_t)o->deg[2], .mbs = (int32_t)o->deg[3],
                          .vpp = (int32_t)o->deg[4], .sp = o->sp,
                          .recompute = o->rc, .zero = (int32_t)o->zero };
}

/* Parse, load the inputs and set up the context; 0 to go on, else the exit
 * code + 1. */
static int prepare(struct predict_opts *o, struct cmd_inputs *in,
                   struct predict_run *run, int argc, char **argv, bool exporting)
{
    struct tpl_err err = { 0 };
    int rc = parse_args(o, argc, argv, exporting);
    if (rc)
        return rc;
    if (cmd_load_inputs(in, o->scenario, o->model, o->system, &o->sets, &err))
        return 1 + cmd_fail(&err);
    apply_job(o, &in->scen.job);
    run->fmt = o->fmt;
    run->plan = opts_plan(o);
    pred_ctx_init(&run->ctx, &in->model, &in->hw, &in->scen.job,
                  o->cross || in->scen.space.tp_cross_node);
    return 0;
}

int cmd_predict(int argc, char **argv)
{
    static struct predict_opts o;       /* large: keep it off the stack */
    static struct cmd_inputs in;
    static struct predict_run run;
    struct tpl_err err = { 0 };
    int rc = prepare(&o, &in, &run, argc, argv, false);
    if (rc)
        return rc - 1;
    pred_plan(&run.ctx, &run.plan, &run.res);
    if (cmd_write_output(o.out, write_report, &run, &err))
        return cmd_fail(&err);
    return run.res.rule == PLAN_OK && run.res.mem.fits ? 0
         : tpl_exit_code(TPL_ENOPLAN);
}

/* ---- trainplan export ---- */

struct export_out {
    enum res_framework fw;
    const struct predict_run *run;
};

static int write_export(FILE *fp, void *arg, struct tpl_err *err)
{
    const struct export_out *e = arg;
    return res_export_write(fp, e->fw, &e->run->ctx, &e->run->plan,
                            &e->run->res, err);
}

/* The fastest feasible plan on 'gpus' in the scenario's space. */
static int best_plan(const struct cmd_inputs *in, struct predict_run *run,
                     int64_t gpus, struct tpl_err *err)
{
    struct search_cfg cfg = { .ctx = &run->ctx, .space = &in->scen.space,
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
        run->plan = res.per_gpu[0].hits[0].plan;
    search_result_release(&res);
    return rc;
}

int cmd_export(int argc, char **argv)
{
    static struct predict_opts o;
    static struct cmd_inputs in;
    static struct predict_run run;
    struct tpl_err err = { 0 };
    struct export_out e;
    int rc = prepare(&o, &in, &run, argc, argv, true);
    if (rc)
        return rc - 1;
    if (o.gpus && best_plan(&in, &run, o.gpus, &err))
        return cmd_fail(&err);
    pred_plan(&run.ctx, &run.plan, &run.res);
    e = (struct export_out){ o.framework, &run };
    if (cmd_write_output(o.out, write_export, &e, &err))
        return cmd_fail(&err);
    return run.res.rule == PLAN_OK && run.res.mem.fits ? 0
         : tpl_exit_code(TPL_ENOPLAN);
}
