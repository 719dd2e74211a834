/* cli/cmd.h: the commands and what they share besides their options
 * (options.h). A command parses its options, loads its inputs, calls the
 * library and writes its report. It returns 0 or a negative TPL_E* with
 * 'err' filled (an empty message says nothing more: a search where no GPU
 * count has a feasible plan ends in TPL_ENOPLAN quietly); it never prints an
 * error and never exits: main() does both, once. */
#ifndef CMD_H
#define CMD_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#include "common/err.h"
#include "results/report.h"
#include "spaces/scenario.h"
#include "spaces/stack.h"

typedef int cmd_fn(int argc, char **argv, struct tpl_err *err);
cmd_fn cmd_predict, cmd_export, cmd_search, cmd_tradeoff, cmd_compare,
       cmd_validate, cmd_calibrate, cmd_list, cmd_sweep, cmd_show;

#define CMD_MAX_SETS 64
struct cmd_sets {               /* --set assignments, in command-line order */
    int n;
    const char *v[CMD_MAX_SETS];
};

/* Add an assignment; TPL_EUSAGE when malformed, its section unknown, or too
 * many. */
int cmd_sets_add(struct cmd_sets *s, const char *assignment, struct tpl_err *err);

/* Print a usage text on stdout with its placeholders expanded from the
 * tables: {formats}, {frameworks}, {plan dims} and {space dims} (a line
 * per plan dimension, as predict and search take them). */
void cmd_usage_print(const char *text);

/* An integer option value in [lo, hi]: 0, or TPL_EUSAGE with err set. */
int opt_int(const char *opt, const char *val, int64_t lo, int64_t hi,
            int64_t *out, struct tpl_err *err);
/* --format's value: 0, or TPL_EUSAGE "'--format' must be table, csv or
 * json, not 'x'" with the names from the writers' table. */
int opt_format(const char *val, enum res_format *out, struct tpl_err *err);

/* getopt_long takes any unambiguous prefix of a long option ('--gpu' for
 * '--gpus'): called before it, refuse every '--name' of argv that is not
 * exactly one of table t's (NULL-terminated), naming the nearest. 0 or
 * TPL_EUSAGE. */
struct option;
int cmd_long_options_exact(int argc, char **argv, const struct option *t,
                           struct tpl_err *err);
/* The usage error of getopt's ':' (missing value) or '?' (unknown option)
 * for argv[optind - 1]: TPL_EUSAGE with err filled. */
int cmd_option_error(int c, char **argv, struct tpl_err *err);
/* Exactly one operand left after the options (what it is, for the
 * message): 0, or TPL_EUSAGE. */
int cmd_one_operand(const char *what, int argc, char **argv, struct tpl_err *err);

/* Set by Ctrl-C while cmd_sigint_catch(true) holds (main.c wraps the
 * commands flagged CMD_SIGINT in it): long work stops and reports what it
 * found so far. */
extern volatile sig_atomic_t cmd_interrupted;
void cmd_sigint_catch(bool on);

/* Everything a command needs to predict: the scenario (job, space), the
 * model, the system and the stack, with --set applied; the job and the
 * model's dropout carry the stack's effects (stack_apply). */
struct cmd_inputs {
    struct scenario scen;
    struct model model;
    struct hw_system hw;
    struct stack stack;
    struct plan_limits stack_limits;    /* its stack-* rule limits */
};
/* Which files: each NULL takes the scenario's (the scenario: "default"). */
struct cmd_names {
    const char *scenario, *model, *system, *stack;
};
/* Load the scenario, then model, system and stack, all with 'sets'
 * applied, and fold the stack into the job and the model. */
int cmd_load_inputs(struct cmd_inputs *in, const struct cmd_names *names,
                    const struct cmd_sets *sets, struct tpl_err *err);
/* pred_ctx_init on the inputs, and the stack named with its limits;
 * TPL_EUSAGE when the GPU cannot run the job's precision
 * (pred_precision_check). */
int cmd_ctx_init(struct pred_ctx *ctx, const struct cmd_inputs *in,
                 bool tp_cross_node, struct tpl_err *err);

/* Write a report into path (NULL or "-": stdout), atomically. */
int cmd_write_report(const char *path, const struct res_report *rep,
                     struct tpl_err *err);

struct cmd_opts;                /* options.h */

/* ---- the search that search and tradeoff run (cmd_search.c) ---- */
/* Load, fold the options into the scenario, search: 0 with res filled (the
 * caller releases it), or an error. The figures of the run go to the log. */
int cmd_search_run(const struct cmd_opts *o, struct cmd_inputs *in,
                   struct pred_ctx *ctx, struct search_result *res,
                   struct tpl_err *err);
/* What a search's report ends in: rc as it is after a failure, TPL_EINTR
 * when it was stopped (unless writing failed), TPL_ENOPLAN when no GPU count
 * has a feasible plan, else 0. */
int cmd_search_status(int rc, const struct search_result *res,
                      struct tpl_err *err);

/* ---- one plan, which predict and export share (cmd_predict.c) ---- */
/* Load, fold the job options in and set up ctx for the options' plan. */
/* The plan's switches the stack sets where the command line does not
 * (stack_plan_defaults: tpo). */
void cmd_plan_defaults(struct cmd_opts *o, const struct cmd_inputs *in);
int cmd_plan_prepare(const struct cmd_opts *o, struct cmd_inputs *in,
                     struct pred_ctx *ctx, struct tpl_err *err);
/* What a plan's report ends in: 0 when it is feasible, else TPL_ENOPLAN
 * (quietly: the report says why). */
/* The plan's overlap where --overlap was not given: the stack's, where
 * there is data parallelism (plan_overlap_default). */
void cmd_plan_overlap(struct cmd_opts *o, const struct pred_ctx *ctx);
int cmd_plan_status(const struct pred_result *r);

#endif /* CMD_H */
