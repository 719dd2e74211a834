/* tests/fuzz/fuzz.h: shared parts of the libFuzzer harnesses: the input as
 * a NUL-terminated string (inputs holding a NUL are skipped: no file or
 * option can carry one), and a check that any model and system that load
 * predict finite numbers. */
#ifndef FUZZ_H
#define FUZZ_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "predictor/pred.h"
#include "spaces/stack.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline char *fuzz_string(const uint8_t *data, size_t size)
{
    char *s;
    if (memchr(data, '\0', size))
        return NULL;
    s = malloc(size + 1);
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* Predict one plan; a NaN or infinity anywhere is a crash for the fuzzer. */
static inline void fuzz_check(const struct pred_ctx *c)
{
    struct pred_result r;
    struct plan p = { .tp = 1, .cp = 1, .pp = 1, .dp = 1, .mbs = 1, .vpp = 1,
                      .replicas = 1, .ep = 1, .etp = 1 };
    pred_plan(c, &p, &r);
    if (!isfinite(r.iteration_s) || !isfinite(r.mfu) ||
        !isfinite(r.mem.total_bytes) ||
        r.iteration_s <= 0)
        abort();
    for (int i = 0; i < PRED_PART_COUNT; i++)
        if (!isfinite(r.part_s[i]) || r.part_s[i] < 0)
            abort();
}

static inline void fuzz_predict(const struct model *m, const struct hw_system *h)
{
    struct job j;
    static struct pred_ctx c;
    job_default(&j);
    pred_ctx_init(&c, m, h, &j, false);
    fuzz_check(&c);
}

/* The same with a stack's effects and limits. */
static inline void fuzz_predict_stack(const struct model *m0,
                                      const struct hw_system *h,
                                      const struct stack *s)
{
    struct model m = *m0;
    struct job j;
    struct plan_limits lim;
    static struct pred_ctx c;
    job_default(&j);
    stack_apply(s, &m, &j);
    stack_limits(s, &lim);
    pred_ctx_init(&c, &m, h, &j, false);
    pred_ctx_set_stack(&c, s->name, &lim,
                       (struct pred_band){ s->band_lo, s->band_hi, s->region });
    fuzz_check(&c);
}

#endif
