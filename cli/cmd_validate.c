/* cli/cmd_validate.c: trainplan validate: predict every row of a runs file
 * and report the error against what was measured. */
#include "cli/cmd.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "results/validate.h"

static const char usage[] =
"usage: trainplan validate RUNS.csv [--source NAME] [--format {formats}]\n"
"                          [-o FILE] [--baseline FILE] [--tolerance POINTS]\n"
"\n"
"Predict every row of a runs file (the schema of ../shared/data/RUNS.md) on\n"
"its system preset and compare with the measured iteration time and memory:\n"
"per-row error, MAPE / median / 90th percentile / worst per source, per\n"
"system and overall, Spearman rank correlation and top-1 regret inside\n"
"groups of comparable runs, and out-of-memory agreement. Rows that cannot\n"
"be predicted (unknown system, MoE, ZeRO-3) are listed with the reason.\n"
"\n"
"  --source NAME      only the rows of one source\n"
"  --baseline FILE    compare each source's MAPE with {\"mape_pct\": {...}};\n"
"                     exit 1 when one is worse by more than --tolerance\n"
"                     points (default 0.5)\n"
"\n"
"Exit status: 0 ok, 1 worse than the baseline, 2 usage, 3 bad input, 4 I/O.\n";

enum { OPT_SOURCE = 256, OPT_FORMAT, OPT_BASELINE, OPT_TOL, OPT_HELP };

static const struct option long_opts[] = {
    { "source", required_argument, NULL, OPT_SOURCE },
    { "format", required_argument, NULL, OPT_FORMAT },
    { "baseline", required_argument, NULL, OPT_BASELINE },
    { "tolerance", required_argument, NULL, OPT_TOL },
    { "help", no_argument, NULL, OPT_HELP },
    { NULL, 0, NULL, 0 },
};

struct validate_out {
    enum res_format fmt;
    const struct fid_report *report;
};

static int write_report(FILE *fp, void *arg, struct tpl_err *err)
{
    struct validate_out *w = arg;
    return res_validate_write(fp, w->fmt, w->report, err);
}

/* A number in [0, 100], the whole value read: 0 or -1. */
static int parse_tolerance(const char *v, double *out)
{
    char *end;
    *out = strtod(v, &end);
    return *v && !*end && *out >= 0 && *out <= 100 ? 0 : -1;
}

int cmd_validate(int argc, char **argv, struct tpl_err *err)
{
    const char *source = NULL, *out = NULL, *baseline = NULL;
    double tolerance = 0.5;
    struct validate_out w = { RES_FMT_TABLE, NULL };
    struct runs runs;
    struct fid_report *report;
    bool worse = false;
    int c, rc;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":o:", long_opts, NULL)) != -1) {
        switch (c) {
        case OPT_HELP:     cmd_usage_print(usage); return 0;
        case OPT_SOURCE:   source = optarg; break;
        case OPT_BASELINE: baseline = optarg; break;
        case 'o':          out = optarg; break;
        case OPT_FORMAT:
            if (opt_format(optarg, &w.fmt, err))
                return TPL_EUSAGE;
            break;
        case OPT_TOL:
            if (parse_tolerance(optarg, &tolerance))
                return tpl_errorf(err, TPL_EUSAGE, "'--tolerance' must be a "
                                  "number in [0, 100], not '%s'", optarg);
            break;
        default:
            return cmd_option_error(c, argv, err);
        }
    }
    if ((rc = cmd_one_operand("the runs file", argc, argv, err)))
        return rc;
    if ((rc = runs_load(&runs, argv[optind], err)))
        return rc;
    report = fid_report_new(&runs, source);
    w.report = report;
    rc = cmd_write_output(out, write_report, &w, err);
    if (rc == 0 && baseline)
        rc = fid_baseline_check(report, baseline, tolerance, stderr, &worse, err);
    fid_report_free(report);
    runs_release(&runs);
    if (rc)
        return rc;
    return worse ? TPL_ENOPLAN : 0;     /* exit 1: worse than the baseline */
}
