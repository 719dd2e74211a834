/* tests/fuzz/fuzz_stack.c: the stack loader on arbitrary text; whatever
 * loads, applied to a preset model and job, must predict finite numbers. */
#include "fuzz.h"
#include "spaces/stack.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct hw_system h;
    static struct model m0;
    static int have_inputs;
    struct tpl_err err = { 0 };
    struct conf c;
    struct stack s;
    char *text = fuzz_string(data, size);
    if (!text)
        return 0;
    if (!have_inputs && hw_system_load(&h, "dgx-h100", NULL, 0, &err) == 0 &&
        model_load(&m0, "gpt3-1.7b", NULL, 0, &err) == 0)
        have_inputs = 1;
    if (conf_load_string(&c, "fuzz", text, &err) == 0) {
        if (stack_read(&s, &c, &err) == 0 && have_inputs)
            fuzz_predict_stack(&m0, &h, &s);
        conf_release(&c);
    }
    free(text);
    return 0;
}
