/* cli/main.c: the front door. Picks the command from a table (git's
 * cmd_struct), runs it between the prologue and epilogue its flags ask for
 * (git's run_builtin; Ctrl-C as Lua's docall), then prints what went wrong
 * and exits, in one place (jq's single exit): 0 ok, 1 no feasible plan,
 * 2 usage, 3 bad input, 4 I/O, 130 interrupted. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "common/log.h"
#include "common/names.h"

#define TRAINPLAN_VERSION "0.1.0"

enum cmd_flags {
    CMD_SIGINT   = 1 << 0,      /* Ctrl-C stops the work: report so far, 130 */
    CMD_PROGRESS = 1 << 1,      /* a progress line on a terminal (not -q) */
};

static int cmd_help(int argc, char **argv, struct tpl_err *err);
static int cmd_version(int argc, char **argv, struct tpl_err *err);

static const struct cmd {
    const char *name;
    cmd_fn *fn;
    unsigned flags;
    const char *help;
} commands[] = {
    { "search", cmd_search, CMD_SIGINT | CMD_PROGRESS,
      "fastest feasible plans per GPU count" },
    { "tradeoff", cmd_tradeoff, CMD_SIGINT | CMD_PROGRESS,
      "time, GPU-hours, cost and energy to train, per GPU count" },
    { "compare", cmd_compare, CMD_SIGINT | CMD_PROGRESS,
      "the same job on several systems or variants" },
    { "sweep", cmd_sweep, CMD_SIGINT | CMD_PROGRESS,
      "co-design grid: models x system variants x GPU counts (MPI)" },
    { "predict", cmd_predict, 0, "memory, time and breakdown of one plan" },
    { "export", cmd_export, 0,
      "launch settings of a plan for Megatron, NeMo, torchtitan" },
    { "validate", cmd_validate, 0, "predict published runs and report the error" },
    { "calibrate", cmd_calibrate, 0, "fit a system to sampled kernel timings" },
    { "list", cmd_list, 0, "list the preset models, systems and scenarios" },
    { "show", cmd_show, 0, "a model or system as resolved, with derived figures" },
    { "help", cmd_help, 0, "show this help" },
    { "--help", cmd_help, 0, NULL },    /* not listed: the forms of help */
    { "-h", cmd_help, 0, NULL },
    { "--version", cmd_version, 0, NULL },
};

#define N_COMMANDS (sizeof commands / sizeof commands[0])

static int cmd_help(int argc, char **argv, struct tpl_err *err)
{
    (void)argc;
    (void)argv;
    (void)err;
    puts("usage: trainplan [-q|-v] [COMMAND [OPTIONS]]\n\n"
         "Which parallel layout trains a model fastest on given hardware, and\n"
         "what does scaling up buy? With no command, trainplan runs the\n"
         "embedded default scenario (llama3-70b on dgx-h100).\n\n"
         "  -q         quiet: errors only (no progress line, no --stats figures)\n"
         "  -v         verbose: also the figures of every search on stderr\n\n"
         "commands:");
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (commands[i].help)
            printf("  %-10s %s\n", commands[i].name, commands[i].help);
    puts("\n'trainplan COMMAND --help' describes each command.\n"
         "Exit status: 0 ok, 1 no feasible plan, 2 usage, 3 bad input, 4 I/O,\n"
         "130 interrupted.");
    return 0;
}

static int cmd_version(int argc, char **argv, struct tpl_err *err)
{
    (void)argc;
    (void)argv;
    (void)err;
    puts("trainplan " TRAINPLAN_VERSION);
    return 0;
}

static const struct cmd *find(const char *name)
{
    for (size_t k = 0; k < N_COMMANDS; k++)
        if (!strcmp(name, commands[k].name))
            return &commands[k];
    return NULL;
}

/* Everything written to stdout got there: checked once, for every command
 * (git's run_builtin). A failure here outranks a quieter ending. */
static int check_stdout(int rc, struct tpl_err *err)
{
    if (fflush(stdout) == 0 && !ferror(stdout))
        return rc;
    if (rc != 0 && rc != TPL_ENOPLAN && rc != TPL_EINTR)
        return rc;
    return tpl_errorf(err, TPL_EIO, "cannot write to standard output");
}

/* Run one command inside the prologue and epilogue its flags ask for. */
static int run(const struct cmd *c, int argc, char **argv, struct tpl_err *err)
{
    int rc;
    if (c->flags & CMD_PROGRESS)
        tpl_progress_enable(isatty(STDERR_FILENO));
    if (c->flags & CMD_SIGINT)
        cmd_sigint_catch(true);         /* Ctrl-C: stop, report, exit 130 */
    rc = c->fn(argc, argv, err);
    if (c->flags & CMD_SIGINT)
        cmd_sigint_catch(false);
    tpl_progress_end();
    tpl_progress_enable(false);
    return check_stdout(rc, err);
}

/* The one place that prints how a run ended and picks the exit status. */
static int finish(const char *cmd, int rc, const struct tpl_err *err)
{
    if (rc == TPL_EINTR)
        fprintf(stderr, "trainplan: interrupted: %s\n", err->msg);
    else if (rc != 0 && err->msg[0])
        fprintf(stderr, "trainplan: error: %s\n", err->msg);
    if (rc == TPL_EUSAGE)
        fprintf(stderr, "try 'trainplan %s%s--help'\n", cmd ? cmd : "",
                cmd ? " " : "");
    return tpl_exit_code(rc);
}

/* -q and -v before the command set the level of the log. */
static bool level_flag(const char *arg)
{
    if (!strcmp(arg, "-q"))
        tpl_log_level = TPL_LOG_ERROR;
    else if (!strcmp(arg, "-v"))
        tpl_log_level = TPL_LOG_INFO;
    else
        return false;
    return true;
}

int main(int argc, char **argv)
{
    struct tpl_err err = { 0 };
    const struct cmd *c;
    int i = 1;
    while (i < argc && level_flag(argv[i]))
        i++;
    if (i == argc || (argv[i][0] == '-' && !find(argv[i]))) {
        c = find("search");             /* the default: options go to search */
        i--;
    } else if (!(c = find(argv[i]))) {
        const char *near = tpl_nearest_name(argv[i], commands, N_COMMANDS,
                                            sizeof commands[0]);
        return finish(NULL, tpl_errorf(&err, TPL_EUSAGE, "unknown command "
                                       "'%s'%s%s%s", argv[i], near ? " (did "
                                       "you mean '" : "", near ? near : "",
                                       near ? "'?)" : ""), &err);
    }
    return finish(c->name, run(c, argc - i, argv + i, &err), &err);
}
