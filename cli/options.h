/* cli/options.h: the one table of job, plan and output options that the
 * planning commands (predict, export, search, tradeoff, compare) share: per
 * option its name, whether it takes a value, the field of struct cmd_opts it
 * fills, and its validator with its range. A command lists the options it
 * takes and cmd_opts_parse builds its getopt_long table from those rows, so
 * an option reads, checks and fails the same way in every command. */
#ifndef CMD_OPTIONS_H
#define CMD_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "cli/cmd.h"
#include "common/err.h"
#include "predictor/pred.h"
#include "results/export.h"
#include "results/writer.h"
#include "spaces/dims.h"
#include "spaces/scenario.h"

enum opt_id {
    /* inputs */
    OPT_SCENARIO, OPT_MODEL, OPT_SYSTEM, OPT_SYSTEMS, OPT_VARIANT, OPT_SET,
    OPT_STACK,
    /* the job */
    OPT_GBS, OPT_SEQ, OPT_PRECISION, OPT_ATTENTION, OPT_TP_CROSS_NODE,
    OPT_RC_MODULES,
    /* the plan's dimensions: one option per row of plan_dims (spaces/
     * dims.h), OPT_DIM(PLAN_DIM_TP) is --tp; in a plan one value each, in a
     * space 'auto' or a list */
    OPT_DIM_FIRST, OPT_DIM_LAST = OPT_DIM_FIRST + PLAN_DIM_COUNT - 1,
    /* the search */
    OPT_GPUS, OPT_TOP, OPT_BUDGET, OPT_SEED, OPT_EXHAUSTIVE, OPT_STATS,
    OPT_SUMMARY,                /* search: one line per GPU count */
    OPT_PROGRESS,               /* the progress line also off a terminal */
    /* what training takes */
    OPT_TOKENS, OPT_PRICE, OPT_KNEE, OPT_REFERENCE, OPT_PUBLISHED,
    /* export: the framework, and the GPU count whose best plan it writes;
     * the closest plan the framework runs, a plan that does not fit */
    OPT_FRAMEWORK, OPT_EXPORT_GPUS, OPT_NEAREST, OPT_FORCE,
    /* memory kept free beyond the system's reserve */
    OPT_HEADROOM,
    /* output */
    OPT_FORMAT, OPT_OUT, OPT_CHART, OPT_CHART_SIZE, OPT_HELP,
    OPT_COUNT
};
#define OPT_DIM(d) ((enum opt_id)(OPT_DIM_FIRST + (int)(d)))

#define CMD_MAX_VARIANTS 8
#define CMD_MAX_GBS 64          /* values of a --gbs list */

/* What a command line says. Fields of options not given keep the values
 * cmd_opts_init and the command set; 'given' has bit (1 << id) for each
 * option that was. */
struct cmd_opts {
    uint64_t given;
    bool help;                  /* --help: the usage is printed, stop */
    const char *scenario, *model, *system, *systems, *stack, *gpus, *out,
               *chart;
    struct cmd_sets sets;
    const char *variants[CMD_MAX_VARIANTS];     /* "NAME[=BASE]:K=V[,K=V]" */
    int n_variants;
    int64_t gbs, seq, top, budget, seed, export_gpus;
    int64_t reference;          /* --reference N: scaling against N GPUs (0: none) */
    int64_t gbs_v[CMD_MAX_GBS]; /* --gbs as a list (sorted, unique); gbs is */
    int n_gbs;                  /*   its first; 1 for a single value */
    enum job_precision precision;
    enum job_attention attention;
    unsigned rc_modules;        /* --recompute-modules (spaces/job.h) */
    bool tp_cross_node, exhaustive, stats;
    bool summary, progress;     /* --summary, --progress */
    bool nearest, force;        /* export --nearest, --force */
    struct plan plan;           /* the dimensions in a plan (predict) */
    struct space space;         /* the dimensions in a space (search) */
    double tokens, price, knee;
    double published_gpu_hours; /* tradeoff --published-gpu-hours (0: none) */
    struct pred_headroom headroom;      /* --headroom GiB|% (0 GiB) */
    enum res_framework framework;
    enum res_format fmt;
    int chart_w, chart_h;
};

/* How a command takes the plan's dimensions. */
enum opt_dims { OPT_DIMS_NONE, OPT_DIMS_PLAN, OPT_DIMS_SPACE };

struct cmd_spec {               /* a command's options */
    const char *usage;          /* --help; {formats} and {frameworks} expand */
    const enum opt_id *ids;     /* ends with OPT_COUNT */
    enum opt_dims dims;
    bool gbs_lists;             /* --gbs takes a list or range (tradeoff,
                                   compare); else one value */
};

/* Defaults: each dimension's default (spaces/dims.h), seed 1, price from
 * the system, knee 0.5, 960 x 640 charts, table format. */
void cmd_opts_init(struct cmd_opts *o);
/* Parse argv (argv[0] is the command) with the options of 'spec' into o.
 * 0, or TPL_EUSAGE with err filled; with --help the usage is printed and
 * o->help set. Nothing is read from files: a bad option is reported before
 * any file is. */
int cmd_opts_parse(struct cmd_opts *o, const struct cmd_spec *spec, int argc,
                   char **argv, struct tpl_err *err);
bool cmd_opts_given(const struct cmd_opts *o, enum opt_id id);

/* The input names the options give (NULL: the scenario's). */
struct cmd_names cmd_opts_names(const struct cmd_opts *o);

/* Fold the given job options into j (--attention overrides the stack's
 * attention kernel), the given dimensions into s. */
void cmd_opts_apply_job(const struct cmd_opts *o, struct job *j);
void cmd_opts_apply_space(const struct cmd_opts *o, struct space *s);

/* A --variant of compare: "NAME:K=V[,K=V]" changes the first system,
 * "NAME=BASE:K=V[,K=V]" the system BASE (a preset or a file). */
struct cmd_variant {
    char name[64];
    char base[256];             /* "" when the variant names none */
    char buf[512];              /* the assignments, split in place */
    struct cmd_sets sets;       /* 'global' then the variant's (into buf) */
};

/* Split variant v into out: its name, base and, after 'global', its
 * assignments. TPL_EUSAGE when malformed or when an assignment is not a
 * system field. */
int cmd_variant_split(const char *v, const struct cmd_sets *global,
                      struct cmd_variant *out, struct tpl_err *err);

#endif /* CMD_OPTIONS_H */
