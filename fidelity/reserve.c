/* fidelity/reserve.c: each stack's memory reserve (fidelity.h), fitted on
 * the published rows that carry a measured peak. The reserve is what a
 * plan cannot use of the GPU's memory beyond what the memory model counts:
 * the CUDA context, NCCL's buffers and what PyTorch's caching allocator
 * holds without handing it out (fragmentation, cached blocks), all of which
 * a measured peak read as nvidia-smi or as torch.cuda.max_memory_reserved
 * includes. A grid over the range, not a descent: the agreement constraint
 * makes the objective a step function. */
#include "fidelity/fidelity.h"

#include <math.h>
#include <string.h>

struct tally {
    int n, n_mem, agree;
    int false_oom;              /* rows that ran, called out of memory */
    double ape;                 /* sum of |pred - measured| / measured */
};

/* The stack's rows with reserve r (r < 0: each row's own). */
static struct tally tally_of(const struct fid_report *v, const char *stack,
                             double r)
{
    struct tally t = { 0 };
    for (size_t i = 0; i < v->n; i++) {
        const struct fid_row *o = &v->rows[i];
        double need = r < 0 ? o->pred_mem_gib : o->pred_total_gib + r;
        double meas = o->run->measured_mem_gib;
        if (!o->predicted || !o->stack || strcmp(o->stack, stack))
            continue;
        t.n++;
        t.agree += (need <= o->hbm_gib) == !o->run->oom;
        t.false_oom += need > o->hbm_gib && !o->run->oom;
        if (meas > 0) {
            t.ape += fabs(need - meas) / meas;
            t.n_mem++;
        }
    }
    return t;
}

static double mape_of(struct tally t)
{
    return t.n_mem ? 100 * t.ape / t.n_mem : 0;
}

struct fid_reserve fid_fit_reserve(const struct fid_report *v, const char *stack)
{
    struct tally now = tally_of(v, stack, -1), best = now;
    struct fid_reserve f = { .stack = stack, .n_mem = now.n_mem, .n = now.n,
                             .gib = -1, .mape_before = mape_of(now),
                             .agree_before = now.agree };
    int steps = (int)lround(FID_RESERVE_MAX_GIB / FID_RESERVE_STEP_GIB);
    for (int k = 0; now.n_mem > 0 && k <= steps; k++) {
        struct tally t = tally_of(v, stack, k * FID_RESERVE_STEP_GIB);
        if (t.agree < now.agree || t.false_oom > now.false_oom ||
            (f.gib >= 0 && t.ape >= best.ape))
            continue;
        best = t;
        f.gib = k * FID_RESERVE_STEP_GIB;
    }
    f.mape_after = mape_of(best);
    f.agree_after = best.agree;
    return f;
}
