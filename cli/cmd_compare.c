/* cli/cmd_compare.c: trainplan compare: the same job on several systems and
 * on variants of the first; results/compare.c builds the comparison. */
#include "cli/cmd.h"
#include "cli/options.h"

#include <string.h>

#include "common/log.h"
#include "results/charts.h"
#include "spaces/gpus.h"

static const char usage[] =
"usage: trainplan compare --systems S1,S2,...\n"
"                         [--variant NAME[=BASE]:K=V[,K=V]]...\n"
"                         [--scenario FILE] [--model M] [--stack K]\n"
"                         [--gbs N|LIST] [--seq N]\n"
"                         [--precision P] [--gpus LIST] [--tokens N]\n"
"                         [--headroom GiB|%] [--set K=V]...\n"
"                         [--format {formats}] [--progress] [-o FILE]\n"
"                         [--chart FILE.svg|FILE.png] [--chart-size WxH]\n"
"\n"
"The same job on each system (presets or files), and on variants of one\n"
"(--variant h100-2xnet=dgx-h100:network.nic_gbps=800 changes dgx-h100;\n"
"without =BASE a variant changes the first system of --systems): at each\n"
"GPU count the fastest feasible plan on each, its time and speed-up\n"
"against the first system, days, cost (each system's price) and energy\n"
"to train --tokens tokens, and the shares of compute, communication and\n"
"pipeline bubble that explain the difference. Defaults come from the scenario; --stack names the\n"
"training software every system runs (trainplan list stacks). --gbs takes a\n"
"list or range (512,1024 or 512..4096): per count and system, the plan that\n"
"trains the tokens soonest over those batches. A count with no plan shows\n"
"n/a and the batch sizes near --gbs that have one. --progress: the\n"
"progress line also when stderr is not a terminal.\n"
"\n"
"{headroom}";

static const enum opt_id ids[] = {
    OPT_SYSTEMS, OPT_VARIANT, OPT_SCENARIO, OPT_MODEL, OPT_STACK, OPT_GBS,
    OPT_SEQ,
    OPT_PRECISION, OPT_GPUS, OPT_TOKENS, OPT_SET, OPT_FORMAT, OPT_OUT,
    OPT_CHART, OPT_CHART_SIZE, OPT_HELP, OPT_HEADROOM, OPT_PROGRESS, OPT_COUNT
};

static const struct cmd_spec spec = { usage, ids, OPT_DIMS_NONE, true };

#define MAX_ENTRIES (RES_COMPARE_MAX + 1)   /* one more: the builder refuses */

struct entries {                /* the columns, and what they point into */
    struct compare_entry e[MAX_ENTRIES];
    int n;
    char list[1024];            /* --systems, split in place */
    struct cmd_variant var[CMD_MAX_VARIANTS];
};

/* Each system of the list with the global --set, then each variant: its
 * base (by default the first system) with the global and its own
 * assignments. */
static int entries_of(struct entries *es, const struct cmd_opts *o,
                      const char *systems, struct tpl_err *err)
{
    char *save, *name;
    snprintf(es->list, sizeof es->list, "%s", systems);
    es->n = 0;
    for (name = strtok_r(es->list, ",", &save); name && es->n < MAX_ENTRIES;
         name = strtok_r(NULL, ",", &save))
        es->e[es->n++] = (struct compare_entry){ name, name, o->sets.v,
                                                 o->sets.n };
    for (int v = 0; v < o->n_variants && es->n < MAX_ENTRIES; v++) {
        struct cmd_variant *var = &es->var[v];
        if (cmd_variant_split(o->variants[v], &o->sets, var, err))
            return TPL_EUSAGE;
        for (int i = 0; i < es->n; i++)     /* columns are told by name */
            if (!strcmp(es->e[i].label, var->name))
                return tpl_errorf(err, TPL_EUSAGE, "--variant '%s': '%s' "
                                  "already names a column; give the variant a "
                                  "name of its own (NAME=BASE:K=V)",
                                  o->variants[v], var->name);
        es->e[es->n++] = (struct compare_entry){ var->name,
            var->base[0] ? var->base : es->e[0].system, var->sets.v,
            var->sets.n };
    }
    return 0;
}

/* The job every system runs: the scenario with the options folded in. */
static int job_of(struct compare_job *job, const struct cmd_opts *o,
                  struct cmd_inputs *in, struct gpu_list *gpus,
                  struct tpl_err *err)
{
    cmd_opts_apply_job(o, &in->scen.job);
    *job = (struct compare_job){ .model = &in->model, .job = &in->scen.job,
        .stack = in->stack.name, .stack_limits = &in->stack_limits,
        .band = { in->stack.band_lo, in->stack.band_hi, in->stack.region },
        .space = &in->scen.space, .stop = &cmd_interrupted,
        .tokens = o->tokens > 0 ? o->tokens : in->scen.job.tokens,
        .headroom = o->headroom,
        .gbs = cmd_opts_given(o, OPT_GBS) ? o->gbs_v : NULL,
        .n_gbs = cmd_opts_given(o, OPT_GBS) ? o->n_gbs : 0,
        .progress = tpl_progress_shown() ? tpl_progress_eta : NULL,
        .progress_arg = (void *)(uintptr_t)"search" };
    if (job->tokens <= 0)
        return tpl_errorf(err, TPL_EUSAGE, "no tokens to train: give --tokens "
                          "N or set job.tokens in the scenario");
    if (gpu_list_parse(gpus, o->gpus ? o->gpus : in->scen.space.gpus, "--gpus",
                       err))
        return TPL_EUSAGE;
    job->gpus = gpus->v;
    job->n_gpus = gpus->n;
    return 0;
}

/* Write the comparison and its chart; what the run ends in. */
static int report(const struct cmd_opts *o, const struct compare *cmp,
                  struct tpl_err *err)
{
    struct res_report rep = { .kind = RES_REPORT_COMPARE, .fmt = o->fmt,
                              .u.compare = cmp };
    int rc = cmd_write_report(o->out, &rep, err);
    if (rc == 0 && o->chart)
        rc = res_compare_chart(o->chart, o->chart_w, o->chart_h, cmp, err);
    if (rc == 0 && cmd_interrupted)
        rc = tpl_errorf(err, TPL_EINTR, "partial comparison");
    if (rc == 0 && !res_compare_feasible(cmp))
        rc = TPL_ENOPLAN;
    return rc;
}

int cmd_compare(int argc, char **argv, struct tpl_err *err)
{
    static struct cmd_opts o;
    static struct cmd_inputs in;
    static struct entries es;
    static struct compare cmp;
    struct compare_job job;
    struct cmd_names names;
    struct gpu_list gpus = { 0 };
    int rc;
    cmd_opts_init(&o);
    if ((rc = cmd_opts_parse(&o, &spec, argc, argv, err)) || o.help)
        return rc;
    names = cmd_opts_names(&o);
    if ((rc = cmd_load_inputs(&in, &names, &o.sets, err)) ||
        (rc = entries_of(&es, &o, o.systems ? o.systems : in.scen.system, err)))
        return rc;
    if ((rc = job_of(&job, &o, &in, &gpus, err)) == 0)
        rc = res_compare_build(&job, es.e, es.n, &cmp, err);
    tpl_progress_end();
    gpu_list_release(&gpus);
    if (rc == 0)
        rc = report(&o, &cmp, err);
    res_compare_release(&cmp);
    return rc;
}
