/* tests/fuzz/fuzz_scenario.c: the scenario loader on arbitrary text. */
#include "fuzz.h"
#include "spaces/scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct tpl_err err = { 0 };
    struct conf c;
    struct scenario s;
    char *text = fuzz_string(data, size);
    if (!text)
        return 0;
    if (conf_load_string(&c, "fuzz", text, &err) == 0) {
        scenario_read(&s, &c, &err);
        conf_release(&c);
    }
    free(text);
    return 0;
}
