/* tests/fuzz/fuzz_sweep.c: the sweep-file reader (fields, value lists and
 * ranges, links) on arbitrary text, and the item count of what it accepts. */
#include "fuzz.h"
#include "sweep/sweep.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct tpl_err err = { 0 };
    struct conf c;
    struct sweep sw;
    uint64_t n;
    char *text = fuzz_string(data, size);
    if (!text)
        return 0;
    sweep_init(&sw);
    if (conf_load_string(&c, "fuzz", text, &err) == 0) {
        if (sweep_read(&sw, &c, &err) == 0)
            sweep_count(&sw, &n, &err);
        conf_release(&c);
    }
    sweep_release(&sw);
    free(text);
    return 0;
}
