/* tests/fuzz/fuzz_system.c: the system loader on arbitrary text; whatever
 * loads must predict finite numbers. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct model m;
    static int have_model;
    struct tpl_err err = { 0 };
    struct conf c;
    struct hw_system h;
    char *text = fuzz_string(data, size);
    if (!text)
        return 0;
    if (!have_model && model_load(&m, "llama3-8b", NULL, 0, &err) == 0)
        have_model = 1;
    if (conf_load_string(&c, "fuzz", text, &err) == 0) {
        if (hw_system_read(&h, &c, &err) == 0)
            fuzz_predict(&m, &h);
        conf_release(&c);
    }
    free(text);
    return 0;
}
