/* tests/fuzz/fuzz_gpus.c: the --gpus parser; what parses is sorted, unique
 * and in range. */
#include "fuzz.h"
#include "spaces/gpus.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct tpl_err err = { 0 };
    struct gpu_list l;
    char *text = fuzz_string(data, size);
    if (!text)
        return 0;
    if (gpu_list_parse(&l, text, "--gpus", &err) == 0) {
        for (size_t i = 0; i < l.n; i++)
            if (l.v[i] < 1 || l.v[i] > SPACE_MAX_GPUS || (i && l.v[i] <= l.v[i - 1]))
                abort();
        gpu_list_release(&l);
    } else if (l.v || err.code != TPL_EUSAGE)
        abort();
    free(text);
    return 0;
}
