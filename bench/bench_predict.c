/* bench/bench_predict.c: cost of one prediction. Prints plans per second
 * for the whole prediction (pred_plan: layer operators + composition +
 * memory) and for the composition alone, which is what a search pays per
 * plan once layer times are memoised. Figures only; nothing is asserted. */
#include <omp.h>
#include <stdio.h>

#include "common/rng.h"
#include "predictor/pred.h"

static double run(const struct pred_ctx *c, const struct plan *plans, int n,
                  int reps, int compose_only, double *sink)
{
    struct pred_memo memo;
    double t0 = omp_get_wtime(), acc = 0;
    pred_memo_build(c, &plans[0], &memo);
    for (int r = 0; r < reps; r++)
        for (int i = 0; i < n; i++) {
            struct pred_result o;
            if (compose_only) {
                pred_compose(c, &plans[i], &memo, &o);
                pred_memory(c, &plans[i], &o.mem);
            } else
                pred_plan(c, &plans[i], &o);
            acc += o.iteration_s + o.mem.total_bytes;
        }
    *sink += acc;
    return (double)n * reps / (omp_get_wtime() - t0);
}

int main(void)
{
    static const int deg[] = { 1, 2, 4, 8 };
    struct model m;
    struct hw_system h;
    struct job j;
    struct pred_ctx c;
    struct tpl_err err = { 0 };
    struct tpl_rng rng;
    static struct plan plans[4096];
    double sink = 0, full, comp;
    if (model_load(&m, "gpt3-175b", NULL, 0, &err) ||
        hw_system_load(&h, "selene-a100", NULL, 0, &err)) {
        fprintf(stderr, "bench: %s\n", err.msg);
        return 1;
    }
    job_default(&j);
    j.seq = 2048;
    j.gbs = 1536;
    pred_ctx_init(&c, &m, &h, &j, false);
    tpl_rng_seed(&rng, 1, 1);
    for (int i = 0; i < 4096; i++)
        plans[i] = (struct plan){ .tp = deg[tpl_rng_below(&rng, 4)], .cp = 1,
            .pp = 1 << tpl_rng_below(&rng, 5), .dp = 1 << tpl_rng_below(&rng, 8),
            .mbs = deg[tpl_rng_below(&rng, 4)], .vpp = 1,
            .sp = tpl_rng_below(&rng, 2), .recompute = tpl_rng_below(&rng, 3),
            .zero = (int)tpl_rng_below(&rng, 2), .overlap = 1, .replicas = 1, .ep = 1, .etp = 1 };
    full = run(&c, plans, 4096, 50, 0, &sink);
    comp = run(&c, plans, 4096, 200, 1, &sink);
    printf("bench predict: gpt3-175b on selene-a100, seq 2048, gbs 1536, one thread\n");
    printf("  full prediction (operators + composition + memory): %12.0f plans/s\n", full);
    printf("  composition + memory only (layer times memoised):   %12.0f plans/s\n", comp);
    printf("  (checksum %.6g)\n", sink);
    return 0;
}
