/* cli/cmd_validate.c: trainplan validate: predict every row of a runs file
 * and report the error against what was measured; check the figures
 * against a baseline, or write them as the new one. */
#include "cli/cmd.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "results/validate.h"

static const char usage[] =
"usage: trainplan validate RUNS.csv [--source NAME] [--format {formats}]\n"
"                          [-o FILE] [--baseline FILE] [--tolerance POINTS]\n"
"                          [--write-baseline FILE] [--cv source]\n"
"\n"
"Predict every row of a runs file (the schema of ../shared/data/RUNS.md) on\n"
"its system preset under its stack preset (the 'stack' column; 'other' and a\n"
"file without the column: megatron-core, said once on stderr) and compare with the measured iteration time and memory:\n"
"per-row error, MAPE / median / 90th percentile / worst per source, per\n"
"system and overall, Spearman rank correlation and top-1 regret inside\n"
"groups of comparable runs, and out-of-memory agreement. Rows that cannot\n"
"be predicted (unknown system, MoE, ZeRO-3) are listed with the reason.\n"
"\n"
"  --source NAME          only the rows of one source\n"
"  --baseline FILE        the fidelity gate: compare every source's figures\n"
"                         (rows, MAPE, bias, memory MAPE, OOM agreement,\n"
"                         Spearman, top-1 regret) and the overall ones with a\n"
"                         baseline file; exit 1 when one is worse than its\n"
"                         tolerance, a source has no baseline, or a baseline\n"
"                         source is not in the data\n"
"  --tolerance POINTS     how much the MAPE may worsen (default 0.5)\n"
"  --write-baseline FILE  write the figures, with this command, as a baseline\n"
"  --cv source            cross-validate the constants fitted on runs (the\n"
"                         eager stacks' host_us, the uncalibrated systems'\n"
"                         gemm_fp8_cs, the network share of a fabric no\n"
"                         source measures, the clock of a power limit no\n"
"                         source measures): each source left out, the\n"
"                         constants refitted on the others, the source\n"
"                         predicted with them; prints in-sample and held-out\n"
"                         MAPE and bias per source and pooled ('all'); with\n"
"                         --baseline or --write-baseline the held-out\n"
"                         figures are gated too\n"
"\n"
"Exit status: 0 ok, 1 worse than the baseline, 2 usage, 3 bad input, 4 I/O.\n";

enum { OPT_SOURCE = 256, OPT_FORMAT, OPT_BASELINE, OPT_TOL, OPT_WRITE, OPT_CV,
       OPT_HELP };

static const struct option long_opts[] = {
    { "source", required_argument, NULL, OPT_SOURCE },
    { "format", required_argument, NULL, OPT_FORMAT },
    { "baseline", required_argument, NULL, OPT_BASELINE },
    { "tolerance", required_argument, NULL, OPT_TOL },
    { "write-baseline", required_argument, NULL, OPT_WRITE },
    { "cv", required_argument, NULL, OPT_CV },
    { "help", no_argument, NULL, OPT_HELP },
    { NULL, 0, NULL, 0 },
};

struct validate_opts {
    const char *source, *out, *baseline, *write;
    bool cv;                    /* --cv source */
    enum res_format fmt;
    struct fid_tolerance tol;
    char command[512];          /* as given, before getopt permutes argv */
};

struct validate_out {
    enum res_format fmt;
    struct fid_report *report;
    struct fid_gate gate;
};

/* A number in [0, 100], the whole value read: 0 or -1. */
static int parse_tolerance(const char *v, double *out)
{
    char *end;
    *out = strtod(v, &end);
    return *v && !*end && *out >= 0 && *out <= 100 ? 0 : -1;
}

/* One option into o: 0, 1 for --help (printed), or TPL_EUSAGE. */
static int parse_opt(struct validate_opts *o, int c, char **argv,
                     struct tpl_err *err)
{
    switch (c) {
    case OPT_HELP:     cmd_usage_print(usage); return 1;
    case OPT_SOURCE:   o->source = optarg; return 0;
    case OPT_BASELINE: o->baseline = optarg; return 0;
    case OPT_WRITE:    o->write = optarg; return 0;
    case OPT_CV:
        if (strcmp(optarg, "source"))
            return tpl_errorf(err, TPL_EUSAGE, "'--cv' must be 'source' (leave "
                              "one source out), not '%s'", optarg);
        o->cv = true;
        return 0;
    case 'o':          o->out = optarg; return 0;
    case OPT_FORMAT:   return opt_format(optarg, &o->fmt, err) ? TPL_EUSAGE : 0;
    case OPT_TOL:
        if (parse_tolerance(optarg, &o->tol.x[FIG_MAPE]))
            return tpl_errorf(err, TPL_EUSAGE, "'--tolerance' must be a "
                              "number in [0, 100], not '%s'", optarg);
        return 0;
    default:
        return cmd_option_error(c, argv, err);
    }
}

/* The command line, as a shell would take it back ("trainplan validate
 * ..."), into buf. */
static void command_line(char *buf, size_t len, int argc, char **argv)
{
    size_t at = (size_t)snprintf(buf, len, "trainplan");
    for (int i = 0; i < argc && at < len; i++) {
        bool plain = *argv[i] && !argv[i][strspn(argv[i], "abcdefghijklmnopqrstu"
            "vwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./=@:,+-")];
        at += (size_t)snprintf(buf + at, len - at, plain ? " %s" : " '%s'",
                               argv[i]);
    }
}

/* Write the report, then the baseline or its check. */
static int outputs(const struct validate_opts *o, struct validate_out *w,
                   bool *worse, struct tpl_err *err)
{
    struct res_report rep = { .kind = RES_REPORT_VALIDATE, .fmt = w->fmt,
                              .u.validate = w->report };
    int rc = cmd_write_report(o->out, &rep, err);
    if (rc == 0 && o->baseline)
        rc = fid_baseline_check(&w->gate, o->baseline, &o->tol, stderr, worse,
                                err);
    if (rc == 0 && o->write)
        rc = cmd_write_report(o->write, &(struct res_report){
                 .kind = RES_REPORT_BASELINE, .u.baseline = &w->gate }, err);
    return rc;
}

/* Load, predict and write what was asked. */
/* validate --cv source: the cross-validation report. */
static int cross_validate(const struct validate_opts *o, const struct runs *runs,
                          struct tpl_err *err)
{
    static struct fid_cv_row rows[FID_CV_SOURCES];
    struct res_report rep = { .kind = RES_REPORT_CV, .fmt = o->fmt };
    rep.u.cv.rows = rows;
    rep.u.cv.n = fid_cv(runs, rows, FID_CV_SOURCES);
    return cmd_write_report(o->out, &rep, err);
}

/* The held-out figures for the gate: they need every source, so not with
 * --source (a one-source baseline check fails on the others anyway). */
static void gate_cv(const struct runs *runs, struct fid_gate *g)
{
    static struct fid_cv_row rows[FID_CV_SOURCES];
    fid_gate_add_cv(g, rows, fid_cv(runs, rows, FID_CV_SOURCES));
}

static int validate_file(const struct validate_opts *o, const char *path,
                         struct tpl_err *err)
{
    struct validate_out w = { .fmt = o->fmt };
    struct runs runs;
    bool worse = false;
    int rc;
    if ((rc = runs_load(&runs, path, err)))
        return rc;
    if (o->cv) {
        rc = cross_validate(o, &runs, err);
        runs_release(&runs);
        return rc;
    }
    if (!runs.has_stack)
        tpl_log(TPL_LOG_WARN, "%s has no 'stack' column: every row is "
                "predicted with the default stack, %s", path, STACK_DEFAULT);
    w.report = fid_report_new(&runs, o->source);
    fid_gate_of(w.report, &w.gate);
    if (!o->source && (o->baseline || o->write))
        gate_cv(&runs, &w.gate);
    snprintf(w.gate.command, sizeof w.gate.command, "%s", o->command);
    rc = outputs(o, &w, &worse, err);
    fid_gate_free(&w.gate);
    fid_report_free(w.report);
    runs_release(&runs);
    if (rc)
        return rc;
    return worse ? TPL_ENOPLAN : 0;     /* exit 1: worse than the baseline */
}

int cmd_validate(int argc, char **argv, struct tpl_err *err)
{
    struct validate_opts o = { .fmt = RES_FMT_TABLE, .tol = fid_tolerance_default };
    int c, rc;
    command_line(o.command, sizeof o.command, argc, argv);
    if (cmd_long_options_exact(argc, argv, long_opts, err))
        return TPL_EUSAGE;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":o:", long_opts, NULL)) != -1)
        if ((rc = parse_opt(&o, c, argv, err)))
            return rc > 0 ? 0 : rc;
    if ((rc = cmd_one_operand("the runs file", argc, argv, err)))
        return rc;
    return validate_file(&o, argv[optind], err);
}
