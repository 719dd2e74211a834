/* tests/fuzz/fuzz_hf.c: the Hugging Face config.json reader (spaces/hf.c)
 * on arbitrary text; the model file it writes must parse, and whatever
 * loads must predict finite numbers. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct hw_system h;
    static int have_system;
    static char text[4096];
    struct tpl_err err = { 0 };
    struct conf c;
    struct model m;
    char *json = fuzz_string(data, size);
    if (!json)
        return 0;
    if (!have_system && hw_system_load(&h, "dgx-h100", NULL, 0, &err) == 0)
        have_system = 1;
    if (model_hf_text(json, "fuzz.json", "fuzz", text, sizeof text, &err) == 0) {
        if (conf_load_string(&c, "fuzz", text, &err) != 0)
            abort();                    /* the writer wrote bad libconfig */
        if (model_read(&m, &c, &err) == 0)
            fuzz_predict(&m, &h);
        conf_release(&c);
    }
    free(json);
    return 0;
}
