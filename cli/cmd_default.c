/* cli/cmd_default.c: what `trainplan` does with no command (and `make
 * run`): search the embedded default scenario (llama3-70b on dgx-h100, seq
 * 8192, gbs 512, 64..1024 GPUs, every dimension free). Options given
 * without a command are passed on to `search`. */
#include "cli/cmd.h"

int cmd_default(int argc, char **argv)
{
    static char name[] = "search";
    char *args[256];
    int n = 0;
    args[n++] = name;
    for (int i = 1; i < argc && n < 255; i++)
        args[n++] = argv[i];
    args[n] = NULL;
    return cmd_search(n, args);
}
