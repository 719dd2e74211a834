/* cli/cmd_calibrate.c: trainplan calibrate: fit a system's kernel and
 * collective parameters to sampled timings and write the fitted system. */
#include "cli/cmd.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "predictor/calib.h"

static const char usage[] =
"usage: trainplan calibrate SAMPLES_DIR --system NAME|FILE [-o FILE]\n"
"                           [--report FILE] [--seed N]\n"
"\n"
"Fit the system's kernel model (launch overhead, HBM and norm efficiency,\n"
"GEMM efficiency and half-saturation size, gradient GEMMs, flash attention)\n"
"and collective bus-bandwidth efficiencies to the timings in SAMPLES_DIR\n"
"(operator/ and nccl/ folders in the format of\n"
"../shared/data/kernel-samples). Writes the system file with the fitted\n"
"fields (-o, default standard output) and a report of every fitted value\n"
"and the error per operator on a 20 % random hold-out (PCG, --seed) and an\n"
"extrapolation hold-out (fit on hidden <= 6144, test above) beside the\n"
"sample set's own error (--report, default standard error).\n";

enum { OPT_SYSTEM = 256, OPT_REPORT, OPT_SEED, OPT_HELP };

static const struct option long_opts[] = {
    { "system", required_argument, NULL, OPT_SYSTEM },
    { "report", required_argument, NULL, OPT_REPORT },
    { "seed", required_argument, NULL, OPT_SEED },
    { "help", no_argument, NULL, OPT_HELP },
    { NULL, 0, NULL, 0 },
};

struct calib_out {
    struct conf *conf;
    const char *samples;
    const struct hw_system *hw;
    const struct calib_report *rep;
};

static void set_num(struct conf *c, const char *group, const char *field, double v)
{
    config_setting_t *g = config_lookup(&c->cfg, group), *s;
    if (!g)
        return;
    s = config_setting_get_member(g, field);
    if (s && config_setting_type(s) != CONFIG_TYPE_FLOAT) {
        config_setting_remove(g, field);
        s = NULL;
    }
    if (!s)
        s = config_setting_add(g, field, CONFIG_TYPE_FLOAT);
    config_setting_set_float(s, v);
}

static int write_system(FILE *fp, void *arg, struct tpl_err *err)
{
    struct calib_out *o = arg;
    const struct hw_system *h = o->hw;
    struct conf *c = o->conf;
    set_num(c, "efficiency", "gemm", h->eff_gemm);
    set_num(c, "efficiency", "gemm_bwd", h->eff_gemm_bwd);
    set_num(c, "efficiency", "gemm_half_gflop", h->gemm_half_flop / 1e9);
    set_num(c, "efficiency", "attn", h->eff_attn);
    set_num(c, "efficiency", "attn_bwd", h->eff_attn_bwd);
    set_num(c, "efficiency", "hbm", h->eff_hbm);
    set_num(c, "efficiency", "norm", h->eff_norm);
    set_num(c, "efficiency", "nvlink", h->eff_nvlink);
    set_num(c, "efficiency", "network", h->eff_net);
    set_num(c, "kernel", "launch_us", h->launch_s * 1e6);
    fprintf(fp, "# %s: fitted by 'trainplan calibrate' from the %s samples in\n"
            "# %s; every other field as in the base system.\n", h->name,
            o->rep->gpu, o->samples);
    config_write(&c->cfg, fp);
    return ferror(fp) ? tpl_errorf(err, TPL_EIO, "cannot write the system file") : 0;
}

static int write_report(FILE *fp, void *arg, struct tpl_err *err)
{
    pred_calib_report_write(fp, ((struct calib_out *)arg)->rep);
    return ferror(fp) ? tpl_errorf(err, TPL_EIO, "cannot write the report") : 0;
}

int cmd_calibrate(int argc, char **argv)
{
    const char *system = NULL, *out = NULL, *report = NULL;
    int64_t seed = 42;
    static struct calib_report rep;
    struct hw_system base, fitted;
    struct tpl_err err = { 0 };
    struct conf conf;
    struct calib_out o;
    int c, rc;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":o:", long_opts, NULL)) != -1) {
        switch (c) {
        case OPT_HELP:   fputs(usage, stdout); return 0;
        case OPT_SYSTEM: system = optarg; break;
        case OPT_REPORT: report = optarg; break;
        case 'o':        out = optarg; break;
        case OPT_SEED:
            if (opt_int("--seed", optarg, 0, INT64_MAX, &seed, &err))
                return cmd_usage_error("calibrate", "%s", err.msg);
            break;
        default:
            return cmd_option_error("calibrate", c, argv);
        }
    }
    if ((rc = cmd_one_operand("calibrate", "the samples directory", argc, argv)))
        return rc;
    if (!system)
        return cmd_usage_error("calibrate", "missing --system NAME|FILE");
    if (hw_system_load(&base, system, NULL, 0, &err) ||
        pred_calibrate(argv[optind], &base, (uint64_t)seed, &fitted, &rep, &err))
        return cmd_fail(&err);
    if (conf_load_named(&conf, system, hw_presets, hw_presets_count, "system", &err))
        return cmd_fail(&err);
    o = (struct calib_out){ &conf, argv[optind], &fitted, &rep };
    rc = cmd_write_output(out, write_system, &o, &err);
    if (rc == 0) {
        if (report)
            rc = cmd_write_output(report, write_report, &o, &err);
        else
            pred_calib_report_write(stderr, &rep);
    }
    conf_release(&conf);
    return rc ? cmd_fail(&err) : 0;
}
