/* tests/fuzz/fuzz_runs.c: the runs-CSV reader on arbitrary text: refused
 * with nothing left behind, or parsed into rows. */
#include "fuzz.h"
#include "fidelity/runs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct tpl_err err = { 0 };
    struct runs runs;
    char *text = fuzz_string(data, size);
    if (!text)
        return 0;
    if (runs_parse(&runs, "fuzz", text, &err) == 0) {
        if (runs.n > 0 && runs.rows == NULL)
            abort();
        runs_release(&runs);
    } else if (runs.rows || runs.n)
        abort();
    free(text);
    return 0;
}
