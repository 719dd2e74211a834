/* cli/cmd_default.c: what `trainplan` does with no command (and `make
 * run`): the embedded default scenario. Until the search lands, that is the
 * prediction of its reference plan (tp 8, pp 4, dp 8, sequence parallel,
 * selective recompute, distributed optimizer), with options passed on to
 * `predict`. */
#include "cli/cmd.h"

#include <string.h>

int cmd_default(int argc, char **argv)
{
    static char words[][16] = { "predict", "--tp", "8", "--pp", "4", "--dp", "8",
                                "--sp", "--recompute", "selective", "--zero", "1" };
    char *args[64];
    int n = 0;
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        args[n++] = words[i];
    for (int i = 1; i < argc && n < 63; i++)
        args[n++] = argv[i];
    args[n] = NULL;
    return cmd_predict(n, args);
}
