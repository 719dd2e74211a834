/* tests/fuzz/fuzz_set.c: --set assignments, one per input line (at most 8),
 * applied to the presets: refused cleanly, or loaded and predicted finite. */
#include "fuzz.h"
#include "spaces/scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct tpl_err err = { 0 };
    const char *sets[8];
    struct model m;
    struct hw_system h;
    struct scenario s;
    struct stack st;
    int n = 0;
    char *text = fuzz_string(data, size), *line, *save = NULL;
    if (!text)
        return 0;
    for (line = strtok_r(text, "\n", &save); line && n < 8;
         line = strtok_r(NULL, "\n", &save))
        sets[n++] = line;
    if (scenario_load(&s, "default", sets, n, &err) == 0 &&
        model_load(&m, "llama3-8b", sets, n, &err) == 0 &&
        hw_system_load(&h, "dgx-h100", sets, n, &err) == 0 &&
        stack_load(&st, "megatron-core", sets, n, &err) == 0)
        fuzz_predict_stack(&m, &h, &st);
    free(text);
    return 0;
}
