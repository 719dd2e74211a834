/* tests/unit/helpers.h: shared set-up for the unit tests. */
#ifndef TEST_HELPERS_H
#define TEST_HELPERS_H

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "predictor/pred.h"

/* Load a preset model / system or fail the test. */
static inline struct model load_model(const char *name)
{
    struct model m;
    struct tpl_err err = { 0 };
    cr_assert_eq(model_load(&m, name, NULL, 0, &err), 0, "%s", err.msg);
    return m;
}

static inline struct hw_system load_system(const char *name)
{
    struct hw_system h;
    struct tpl_err err = { 0 };
    cr_assert_eq(hw_system_load(&h, name, NULL, 0, &err), 0, "%s", err.msg);
    return h;
}

static inline struct job make_job(int64_t seq, int64_t gbs)
{
    struct job j;
    job_default(&j);
    j.seq = seq;
    j.gbs = gbs;
    return j;
}

/* The unit tests' hand-countable model: h 1024, 8 heads of 128, 2 KV heads
 * (kv dim 256), SwiGLU f 4096, RMSNorm and RoPE, 4 layers, vocab 32000. */
static inline struct model small_model(void)
{
    return (struct model){ .name = "small", .layers = 4, .hidden = 1024,
                           .heads = 8, .kv_heads = 2, .ffn_hidden = 4096,
                           .vocab = 32000, .glu = true,
                           .norm = MODEL_NORM_RMSNORM, .position = MODEL_POS_ROPE };
}

/* A preset model on a preset system at (seq, gbs), the job's defaults
 * otherwise, every stack limit open (PLAN_ANY_STACK). */
static inline struct pred_ctx preset_ctx(const char *model, const char *system,
                                         int64_t seq, int64_t gbs)
{
    struct pred_ctx c;
    struct model m = load_model(model);
    struct hw_system h = load_system(system);
    struct job j = make_job(seq, gbs);
    pred_ctx_init(&c, &m, &h, &j, false);
    return c;
}

/* Round kernel rates for hand counts: no launch or collective base cost,
 * NVLink 100 GB/s (1 us), network 10 GB/s (10 us), HBM 1 TB/s, domain 8. */
static inline void round_rates(struct pred_ctx *c)
{
    c->k.coll_base_s = 0;
    c->k.launch_s = 0;
    c->k.intra_bytes_per_s = 1e11;
    c->k.pair_bytes_per_s = 1e11;
    c->k.intra_lat_s = 1e-6;
    c->k.inter_bytes_per_s = 1e10;
    c->k.inter_lat_s = 1e-5;
    c->k.mem_bytes_per_s = 1e12;
    c->k.domain = 8;
}

/* NCCL's LL128 and Simple per-hop latencies for those round LL hops
 * (src/graph/tuning.cc hwLat, ring: NVLink 0.6 / 1.9 / 3.4 us, network
 * 2.7 / 4.0 / 14.0 us for LL / LL128 / Simple; predictor/coll.c scales the
 * system's LL hop by them): a large message runs Simple. */
#define NV_LL128 (1e-6 * 1.9 / 0.6)
#define NV_SIMPLE (1e-6 * 3.4 / 0.6)
#define NET_SIMPLE (1e-5 * 14.0 / 2.7)

static inline struct plan make_plan(int tp, int pp, int dp, int mbs)
{
    return (struct plan){ .tp = tp, .cp = 1, .pp = pp, .dp = dp, .mbs = mbs, .vpp = 1,
                          .sp = false, .recompute = PLAN_RECOMPUTE_NONE, .zero = 0,
                          .overlap = dp > 1,    /* plan_overlap_default */
                          .replicas = 1, .ep = 1, .etp = 1 };
}

/* One layer of one micro-batch (mbs 1, pp 1, dp 1) at tp x cp, with
 * sequence parallelism and TP overlap as given. */
static inline struct pred_layer tp_layer(const struct pred_ctx *c, int tp,
                                         int cp, bool sp, bool tpo)
{
    struct plan p = make_plan(tp, 1, 1, 1);
    struct pred_layer o;
    p.cp = cp;
    p.sp = sp;
    p.tpo = tpo;
    pred_layer_time(c, &p, &o);
    return o;
}

/* A test that needs ../shared/data skips with its reason when the data is
 * absent, so a fresh clone passes; in CI (CI=true) the data must be there
 * and its absence fails the test. */
#define skip_without_shared(...) do { \
        const char *ci_ = getenv("CI"); \
        if (ci_ && !strcmp(ci_, "true")) \
            cr_assert_fail("CI=true: " __VA_ARGS__); \
        cr_skip_test(__VA_ARGS__); \
    } while (0)

#define assert_rel(a, b, tol) \
    cr_assert(fabs((a) - (b)) <= (tol) * fabs(b), \
              "%s = %.12g, expected %.12g (rel tol %g)", #a, (double)(a), \
              (double)(b), (double)(tol))

#endif
