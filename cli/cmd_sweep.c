/* cli/cmd_sweep.c: trainplan sweep: a co-design grid of models x system
 * variants, each searched over the GPU counts (sweep/). Options override
 * the sweep file (the embedded default when none is given); under mpirun
 * the items are spread over the ranks and rank 0 writes the output. */
#include "cli/cmd.h"

#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/outfile.h"
#include "results/chart.h"
#include "sweep/sweep.h"

static const char usage[] =
"usage: trainplan sweep [FILE] [--model M,...] [--system S,...]\n"
"                       [--vary section.field=VALUES]... [--link F:section.field=VALUES]...\n"
"                       [--set K=V]... [--scenario FILE] [--gpus LIST]\n"
"                       [--tokens N] [--price USD] [--max-items N]\n"
"                       [--checkpoint FILE] [--format {formats}] [-o FILE]\n"
"                       [--stream]\n"
"                       [--chart FILE.svg|.png] [--heatmap FILE.svg|.png]\n"
"\n"
"Search every item of a grid, models x systems x varied fields (each value\n"
"applied as a --set), over the GPU counts, and report per item and GPU count\n"
"the best plan and what training takes, with the Pareto set of days against\n"
"cost. FILE is a sweep file (README 'Sweeps'); without one, the embedded\n"
"default (2 models x 2 HBM sizes x 2 NIC speeds, 64..256 GPUs).\n"
"\n"
"  --model, --system    comma lists; replace the file's\n"
"  --vary F=VALUES      V1,V2,... or LO:HI:xF (geometric) or LO:HI:+S; the\n"
"                       first --vary replaces the file's varied and linked fields\n"
"  --link F:G=VALUES    field G takes the i-th value when varied field F does\n"
"  --set K=V            applied to every item\n"
"  --scenario FILE      the job and search space (default: the file's)\n"
"  --gpus LIST          GPU counts, as 'trainplan search --gpus'\n"
"  --tokens N           tokens to train (default: the scenario's)\n"
"  --price USD          per GPU-hour (default: each system variant's)\n"
"  --max-items N        refuse a larger grid (default 1e7)\n"
"  --checkpoint FILE    keep finished items there; a rerun resumes\n"
"  --stream             with -o FILE: each item's rows on stdout as CSV as\n"
"                       soon as it finishes (pareto empty); FILE gets the\n"
"                       ordered output at the end\n"
"  --chart FILE         Pareto scatter: days against cost, a colour per GPU count\n"
"  --heatmap FILE       days over the first two varied fields (first model and\n"
"                       system, other fields at their first value, most GPUs)\n"
"\n"
"Items run over OpenMP threads, or over the ranks of 'mpirun -np N'. The\n"
"output is the same for any number of threads and ranks. Exit status: 0 ok,\n"
"1 no feasible plan anywhere, 2 usage, 3 bad input, 4 I/O, 130 interrupted\n"
"(SIGINT or SIGTERM: the checkpoint holds the finished items).\n";

enum { O_MODEL = 256, O_SYSTEM, O_VARY, O_LINK, O_SET, O_SCENARIO, O_GPUS,
       O_TOKENS, O_PRICE, O_MAX, O_CKPT, O_FORMAT, O_CHART, O_HEAT, O_STREAM,
       O_HELP };

static const struct option long_opts[] = {
    { "model", required_argument, NULL, O_MODEL },
    { "system", required_argument, NULL, O_SYSTEM },
    { "vary", required_argument, NULL, O_VARY },
    { "link", required_argument, NULL, O_LINK },
    { "set", required_argument, NULL, O_SET },
    { "scenario", required_argument, NULL, O_SCENARIO },
    { "gpus", required_argument, NULL, O_GPUS },
    { "tokens", required_argument, NULL, O_TOKENS },
    { "price", required_argument, NULL, O_PRICE },
    { "max-items", required_argument, NULL, O_MAX },
    { "checkpoint", required_argument, NULL, O_CKPT },
    { "format", required_argument, NULL, O_FORMAT },
    { "chart", required_argument, NULL, O_CHART },
    { "heatmap", required_argument, NULL, O_HEAT },
    { "stream", no_argument, NULL, O_STREAM },
    { "output", required_argument, NULL, 'o' },
    { "help", no_argument, NULL, O_HELP },
    { NULL, 0, NULL, 0 },
};

#define MAX_ARGS 64
struct sweep_args {             /* the command line, applied after the file */
    const char *file, *out, *checkpoint, *chart, *heatmap;
    const char *opt[MAX_ARGS];  /* options that change the sweep, in order */
    int code[MAX_ARGS], n;
    enum res_format fmt;
    bool help, stream;
};

static int parse(struct sweep_args *a, int argc, char **argv, struct tpl_err *err)
{
    int c;
    if (cmd_long_options_exact(argc, argv, long_opts, err))
        return TPL_EUSAGE;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:", long_opts, NULL)) != -1) {
        if (c == ':' || c == '?')
            return cmd_option_error(c, argv, err);
        if (c == O_HELP || c == O_STREAM)
            *(c == O_HELP ? &a->help : &a->stream) = true;
        else if (c == 'o')
            a->out = optarg;
        else if (c == O_CKPT)
            a->checkpoint = optarg;
        else if (c == O_CHART || c == O_HEAT)
            *(c == O_CHART ? &a->chart : &a->heatmap) = optarg;
        else if (c == O_FORMAT && opt_format(optarg, &a->fmt, err))
            return TPL_EUSAGE;
        else if (c != O_FORMAT && a->n >= MAX_ARGS)
            return tpl_errorf(err, TPL_EUSAGE, "too many options");
        else if (c != O_FORMAT) {
            a->code[a->n] = c;
            a->opt[a->n++] = optarg;
        }
    }
    if (argc - optind > 1)
        return tpl_errorf(err, TPL_EUSAGE, "one sweep file at most, not '%s'",
                          argv[optind + 1]);
    a->file = optind < argc ? argv[optind] : "default";
    if (a->stream && (!a->out || !strcmp(a->out, "-")))
        return tpl_errorf(err, TPL_EUSAGE, "--stream needs -o FILE: the rows "
                          "stream to stdout, the ordered output goes to FILE");
    if ((a->chart && !res_chart_path_ok(a->chart)) ||
        (a->heatmap && !res_chart_path_ok(a->heatmap)))
        return tpl_errorf(err, TPL_EUSAGE, "'%s': a chart's name must end in "
                          ".svg or .png", a->chart && !res_chart_path_ok(a->chart)
                          ? a->chart : a->heatmap);
    return 0;
}

/* "a,b,c" into names (replacing them). */
static int names(char (*out)[256], int *n, const char *list, const char *opt,
                 struct tpl_err *err)
{
    *n = 0;
    for (const char *p = list; *p; ) {
        size_t len = strcspn(p, ",");
        if (len == 0 || len >= 256 || *n >= SWEEP_MAX_NAMES)
            return tpl_errorf(err, TPL_EUSAGE, "'%s' must be a comma list of "
                              "at most %d names, not '%s'", opt, SWEEP_MAX_NAMES,
                              list);
        memcpy(out[*n], p, len);
        out[(*n)++][len] = 0;
        p += len + (p[len] == ',');
    }
    return *n ? 0 : tpl_errorf(err, TPL_EUSAGE, "'%s' is empty", opt);
}

static int number(const char *opt, const char *v, double lo, double hi,
                  double *out, struct tpl_err *err)
{
    char *end;
    double x = strtod(v, &end);
    if (*v && !*end && x >= lo && x <= hi) {
        *out = x;
        return 0;
    }
    return tpl_errorf(err, TPL_EUSAGE, "'%s' must be a number in [%g, %g], not "
                      "'%s'", opt, lo, hi, v);
}

static int copy(char *dst, size_t n, const char *v, const char *opt,
                struct tpl_err *err)
{
    if (strlen(v) >= n)
        return tpl_errorf(err, TPL_EUSAGE, "'%s' is too long", opt);
    strcpy(dst, v);
    return 0;
}

/* The first --vary replaces the file's varied (and linked) fields. */
static int vary(struct sweep *sw, const char *v, bool *cleared, struct tpl_err *err)
{
    if (!*cleared)
        sw->n_axes = sw->n_links = 0;
    *cleared = true;
    return sweep_add_vary(sw, v, "--vary", err) ? TPL_EUSAGE : 0;
}

static int set(struct sweep *sw, const char *v, struct tpl_err *err)
{
    struct cmd_sets s = { 0 };
    if (cmd_sets_add(&s, v, err))
        return TPL_EUSAGE;
    if (sw->n_sets >= SWEEP_MAX_SETS)
        return tpl_errorf(err, TPL_EUSAGE, "more than %d '--set'", SWEEP_MAX_SETS);
    return copy(sw->sets[sw->n_sets++], sizeof sw->sets[0], v, "--set", err);
}

static int apply_one(struct sweep *sw, int c, const char *v, bool *cleared,
                     struct tpl_err *err)
{
    double x;
    switch (c) {
    case O_MODEL:    return names(sw->models, &sw->n_models, v, "--model", err);
    case O_SYSTEM:   return names(sw->systems, &sw->n_systems, v, "--system", err);
    case O_VARY:     return vary(sw, v, cleared, err);
    case O_LINK:     return sweep_add_link(sw, v, "--link", err) ? TPL_EUSAGE : 0;
    case O_SET:      return set(sw, v, err);
    case O_SCENARIO: return copy(sw->scenario, sizeof sw->scenario, v, "--scenario", err);
    case O_GPUS:     return copy(sw->gpus, sizeof sw->gpus, v, "--gpus", err);
    case O_TOKENS:   return number("--tokens", v, 1, 1e18, &sw->tokens, err);
    case O_PRICE:    return number("--price", v, 0, 1e6, &sw->price, err);
    case O_MAX:
        if (number("--max-items", v, 1, 1e12, &x, err))
            return TPL_EUSAGE;
        sw->max_items = (uint64_t)x;
        return 0;
    default:         TPL_BUG("option %d", c);
    }
}

static int apply(struct sweep *sw, const struct sweep_args *a, struct tpl_err *err)
{
    bool cleared = false;
    for (int i = 0; i < a->n; i++)
        if (apply_one(sw, a->code[i], a->opt[i], &cleared, err))
            return TPL_EUSAGE;
    return 0;
}

/* ---- run and write ---- */

static void on_signal(int sig)
{
    (void)sig;
    cmd_interrupted = 1;
}

static bool any_feasible(const struct sweep_result *r)
{
    for (size_t i = 0; i < r->n_items * r->n_gpus; i++)
        if (r->rows[i].status == 1)
            return true;
    return false;
}

static int write_out(const struct sweep_args *a, const struct sweep *sw,
                     const struct sweep_result *r, struct tpl_err *err)
{
    struct tpl_outfile o;
    int rc = tpl_outfile_open(&o, a->out, err);
    if (rc)
        return rc;
    rc = sweep_report_write(o.fp, a->fmt, sw, r, err);
    if (rc) {
        tpl_outfile_abort(&o);
        return rc;
    }
    rc = tpl_outfile_commit(&o, err);
    if (rc == 0 && a->chart)
        rc = sweep_chart_pareto(a->chart, 960, 640, sw, r, err);
    if (rc == 0 && a->heatmap)
        rc = sweep_chart_heat(a->heatmap, 960, 640, sw, r, err);
    return rc ? rc : any_feasible(r) ? 0 : TPL_ENOPLAN;
}

static int run(const struct sweep_args *a, struct sweep *sw, struct tpl_err *err)
{
    struct sweep_run_cfg cfg = { .checkpoint = a->checkpoint,
        .stop = &cmd_interrupted, .progress = tpl_progress_shown(),
        .stream = a->stream ? stdout : NULL };
    struct sweep_result r;
    int rc;
    if ((rc = sweep_load(sw, a->file, err)) || (rc = apply(sw, a, err)) ||
        (rc = sweep_count(sw, &(uint64_t){0}, err)) || (rc = sweep_check(sw, err)))
        return rc;
    if (a->heatmap && sw->n_axes < 2)   /* before the work, not after */
        return tpl_errorf(err, TPL_EUSAGE, "--heatmap needs two varied fields");
    signal(SIGTERM, on_signal);
    rc = sweep_run(sw, &cfg, &r, err);
    signal(SIGTERM, SIG_DFL);
    if (rc == 0 && sweep_mpi_rank() == 0)
        rc = write_out(a, sw, &r, err);
    sweep_result_release(&r);
    return rc;
}

int cmd_sweep(int argc, char **argv, struct tpl_err *err)
{
    static struct sweep_args a;
    struct sweep sw;
    int rc;
    memset(&a, 0, sizeof a);
    if ((rc = parse(&a, argc, argv, err)))
        return rc;
    if (a.help) {
        cmd_usage_print(usage);
        puts(sweep_mpi_built() ? "MPI: built in (Open MPI)"
                               : "MPI: not built in (no mpicc at build time)");
        return 0;
    }
    sweep_mpi_init(NULL, NULL);
    sweep_init(&sw);
    rc = run(&a, &sw, err);
    sweep_release(&sw);
    if (sweep_mpi_rank() != 0)          /* rank 0 speaks for the job */
        rc = 0, err->msg[0] = 0;
    sweep_mpi_finalize();
    return rc;
}
