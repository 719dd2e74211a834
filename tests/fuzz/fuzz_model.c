/* tests/fuzz/fuzz_model.c: the model loader on arbitrary text; whatever
 * loads must predict finite numbers. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct hw_system h;
    static int have_system;
    struct tpl_err err = { 0 };
    struct conf c;
    struct model m;
    char *text = fuzz_string(data, size);
    if (!text)
        return 0;
    if (!have_system && hw_system_load(&h, "dgx-h100", NULL, 0, &err) == 0)
        have_system = 1;
    if (conf_load_string(&c, "fuzz", text, &err) == 0) {
        if (model_read(&m, &c, &err) == 0)
            fuzz_predict(&m, &h);
        conf_release(&c);
    }
    free(text);
    return 0;
}
