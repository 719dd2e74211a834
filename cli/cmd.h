/* cli/cmd.h: the subcommands and the option helpers they share. Each
 * command parses its options, loads its inputs, calls the library, prints,
 * and returns an exit code (0 ok, 1 no feasible plan, 2 usage, 3 bad input,
 * 4 I/O); only main() exits. */
#ifndef CMD_H
#define CMD_H

#include <stdint.h>

#include "common/err.h"
#include "results/res.h"
#include "spaces/scenario.h"

int cmd_predict(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_search(int argc, char **argv);
int cmd_tradeoff(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_default(int argc, char **argv);

/* Print "trainplan: error: <msg>" and return the exit code of err->code. */
int cmd_fail(const struct tpl_err *err);
/* A usage error: the message, then "try 'trainplan CMD --help'"; returns 2. */
int cmd_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The usage error of getopt's ':' (missing value) or '?' (unknown option)
 * for argv[optind - 1]; returns 2. */
int cmd_option_error(const char *cmd, int c, char **argv);
/* Exactly one positional argument left (what it is, for the message):
 * 0, or the usage error's exit code. */
int cmd_one_operand(const char *cmd, const char *what, int argc, char **argv);

/* Parse an integer option value in [lo, hi]; 0 or TPL_EUSAGE with err set. */
int opt_int(const char *opt, const char *val, int64_t lo, int64_t hi,
            int64_t *out, struct tpl_err *err);

/* --set assignments collected from the command line. */
#define CMD_MAX_SETS 64
struct cmd_sets {
    int n;
    const char *v[CMD_MAX_SETS];
};
/* Add one; TPL_EUSAGE when malformed, its section unknown, or too many. */
int cmd_sets_add(struct cmd_sets *s, const char *assignment, struct tpl_err *err);

/* Everything a command needs to predict: the scenario (job, space), the
 * model and the system, with --set applied. */
struct cmd_inputs {
    struct scenario scen;
    struct model model;
    struct hw_system hw;
};
/* Load scenario 'scen_name' (NULL: "default"), then model and system (NULL:
 * the scenario's), all with 'sets' applied. */
int cmd_load_inputs(struct cmd_inputs *in, const char *scen_name,
                    const char *model, const char *system,
                    const struct cmd_sets *sets, struct tpl_err *err);

/* Write through 'write' into path (NULL or "-": stdout), atomically. */
int cmd_write_output(const char *path,
                     int (*write)(FILE *, void *, struct tpl_err *), void *arg,
                     struct tpl_err *err);

#endif /* CMD_H */
