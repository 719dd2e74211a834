/* cli/main.c: the front door. Picks the subcommand from a table (git's
 * cmd_struct), runs it, and turns its result into the exit status:
 * 0 ok, 1 no feasible plan, 2 usage, 3 bad input, 4 I/O. */
#include <stdio.h>
#include <string.h>

#include "cli/cmd.h"
#include "common/log.h"

#define TRAINPLAN_VERSION "0.1.0"

static int cmd_help(int argc, char **argv);

static const struct cmd {
    const char *name;
    int (*fn)(int, char **);
    const char *help;
} commands[] = {
    { "search",  cmd_search,  "fastest feasible plans per GPU count" },
    { "tradeoff", cmd_tradeoff, "time, GPU-hours, cost and energy to train, per GPU count" },
    { "compare", cmd_compare, "the same job on several systems or variants" },
    { "predict", cmd_predict, "memory, time and breakdown of one plan" },
    { "export",  cmd_export,  "launch settings of a plan for Megatron, NeMo, torchtitan" },
    { "validate", cmd_validate, "predict published runs and report the error" },
    { "calibrate", cmd_calibrate, "fit a system to sampled kernel timings" },
    { "list",    cmd_list,    "list the preset models, systems and scenarios" },
    { "help",    cmd_help,    "show this help" },
};

static int cmd_help(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    puts("usage: trainplan [-q|-v] [COMMAND [OPTIONS]]\n\n"
         "Which parallel layout trains a model fastest on given hardware, and\n"
         "what does scaling up buy? With no command, trainplan runs the\n"
         "embedded default scenario (llama3-70b on dgx-h100).\n\ncommands:");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        printf("  %-10s %s\n", commands[i].name, commands[i].help);
    puts("\n'trainplan COMMAND --help' describes each command.\n"
         "Exit status: 0 ok, 1 no feasible plan, 2 usage, 3 bad input, 4 I/O.");
    return 0;
}

int main(int argc, char **argv)
{
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "-q"))
            tpl_log_level = TPL_LOG_ERROR;
        else if (!strcmp(argv[i], "-v"))
            tpl_log_level = TPL_LOG_INFO;
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return cmd_help(0, NULL);
        else if (!strcmp(argv[i], "--version")) {
            puts("trainplan " TRAINPLAN_VERSION);
            return 0;
        } else
            break;
    }
    if (i == argc)
        return cmd_default(argc - i + 1, argv + i - 1);
    if (argv[i][0] == '-')
        return cmd_default(argc - i + 1, argv + i - 1);
    for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++)
        if (!strcmp(argv[i], commands[k].name))
            return commands[k].fn(argc - i, argv + i);
    return cmd_usage_error(NULL, "unknown command '%s'", argv[i]);
}
