/* tests/unit/test_ops.c: the operator and part tables (predictor/ops.c):
 * every row filled, parts fold into exactly one class, and a layer's kernel
 * launches as counted by hand. */
#include "helpers.h"

#include <string.h>

Test(ops, every_operator_has_a_row)
{
    int host = 0;
    for (int i = 0; i < PRED_OP_COUNT; i++) {
        const struct pred_op_info *o = &pred_ops[i];
        cr_assert(o->name && *o->name, "operator %d has no name", i);
        cr_assert_str_eq(pred_op_name((enum pred_op)i), o->name);
        cr_assert_lt((int)o->kind, PRED_KIND_COUNT, "%s", o->name);
        cr_assert_lt((int)o->part, PRED_PART_COUNT, "%s", o->name);
        cr_assert_lt((int)o->launch, PRED_LAUNCH_COUNT, "%s", o->name);
        cr_assert_eq(o->kind == PRED_KIND_COLLECTIVE,
                     o->part == PRED_PART_TP_COMM ||
                     o->part == PRED_PART_CP_COMM ||
                     o->part == PRED_PART_EP_COMM, "%s", o->name);
        cr_assert(o->launches_fwd >= 0 && o->launches_bwd >= 0, "%s", o->name);
        cr_assert_eq(o->launches_fwd + o->launches_bwd == 0,
                     o->kind == PRED_KIND_HOST, "%s", o->name);
        host += o->kind == PRED_KIND_HOST;
        for (int k = 0; k < i; k++)
            cr_assert_str_neq(pred_ops[k].name, o->name);
    }
    cr_assert_eq(host, 1);
}

/* Each part lands in exactly one class, and every class has a part. */
Test(ops, every_part_has_exactly_one_class)
{
    int used[PRED_CLASS_COUNT] = { 0 };
    for (int i = 0; i < PRED_PART_COUNT; i++) {
        double part[PRED_PART_COUNT] = { 0 }, cls[PRED_CLASS_COUNT];
        int hit = -1, n = 0;
        cr_assert(pred_parts[i].name && *pred_parts[i].name, "part %d", i);
        cr_assert_str_eq(pred_part_name((enum pred_part)i), pred_parts[i].name);
        for (int k = 0; k < i; k++)
            cr_assert_str_neq(pred_parts[k].name, pred_parts[i].name);
        part[i] = 1;
        pred_parts_fold(part, cls);
        for (int c = 0; c < PRED_CLASS_COUNT; c++)
            if (cls[c] != 0) {
                cr_assert_eq(cls[c], 1);
                hit = c;
                n++;
            }
        cr_assert_eq(n, 1, "part %s", pred_parts[i].name);
        cr_assert_eq(hit, (int)pred_parts[i].cls);
        used[hit]++;
    }
    for (int c = 0; c < PRED_CLASS_COUNT; c++) {
        cr_assert_gt(used[c], 0, "class %s", pred_class_name((enum pred_class)c));
        cr_assert(*pred_class_name((enum pred_class)c));
    }
}

/* The classes compare and the charts show: compute with recompute;
 * tp, cp, ep, p2p, exposed dp and the optimizer; the bubble. */
Test(ops, fold_matches_compare_shares)
{
    double part[PRED_PART_COUNT], cls[PRED_CLASS_COUNT];
    for (int i = 0; i < PRED_PART_COUNT; i++)
        part[i] = 1 << i;
    pred_parts_fold(part, cls);
    cr_assert_eq(cls[PRED_CLASS_COMPUTE], 1 + 2);
    cr_assert_eq(cls[PRED_CLASS_COMM], 4 + 8 + 16 + 64 + 128 + 256);
    cr_assert_eq(cls[PRED_CLASS_BUBBLE], 32);
}

static void launches(const char *model, enum job_attention attn, int tp,
                     bool sp, double *fwd, double *bwd)
{
    struct model m = load_model(model);
    struct hw_system h = load_system("dgx-h100");
    struct job j = make_job(2048, 512);
    struct pred_ctx c;
    struct plan p = make_plan(tp, 1, 1, 1);
    p.sp = sp;
    j.attention = attn;
    pred_ctx_init(&c, &m, &h, &j, false);
    pred_layer_launches(&c, &p, fwd, bwd);
}

/* Llama 3 (rotary, no dropout), flash attention, tp 8 with sp:
 * forward norms 2, four GEMMs 4, rope 2, attention 1, activation 1,
 * residuals 2, all-gather + reduce-scatter twice 4 = 16; backward 4 + 8 +
 * 2 + 1 + 1 + 2 + 4 = 22. GPT-3 (learned positions, dropout), unfused
 * attention, tp 8 without sp: 2 + 4 + (3 + 1) + 1 + 2 + 2 = 15 forward,
 * 4 + 8 + (5 + 1) + 1 + 2 + 2 = 23 backward; at tp 1 no collectives. */
Test(ops, layer_launches_counted_by_hand)
{
    double f, b;
    launches("llama3-70b", JOB_ATTN_FLASH, 8, true, &f, &b);
    cr_assert_eq(f, 16);
    cr_assert_eq(b, 22);
    launches("gpt3-175b", JOB_ATTN_UNFUSED, 8, false, &f, &b);
    cr_assert_eq(f, 15);
    cr_assert_eq(b, 23);
    launches("gpt3-175b", JOB_ATTN_UNFUSED, 1, false, &f, &b);
    cr_assert_eq(f, 13);
    cr_assert_eq(b, 21);
    /* GPT 1.7B's 24 heads over tp 8 at mbs 1: 3 a GPU, so Megatron's
     * softmax falls back to five PyTorch kernels each way (ops.c pred_fused_softmax) */
    launches("gpt3-1.7b", JOB_ATTN_UNFUSED, 8, false, &f, &b);
    cr_assert_eq(f, 15 + 4);
    cr_assert_eq(b, 23 + 4);
}

/* A host too slow for the kernels sets the layer's time at launches times
 * the host's time per kernel (the hard maximum: a system without an
 * eager-call knee), and the host wait (the last operator) counts in the
 * totals like every other. */
Test(ops, host_wait_counts_every_launch)
{
    struct model m = load_model("llama3-8b");
    struct hw_system h = load_system("dgx-h100");
    struct job j = make_job(2048, 512);
    struct pred_ctx c;
    struct pred_layer l;
    struct plan p = make_plan(8, 1, 1, 1);
    double nf, nb, sf = 0, sb = 0;
    p.sp = true;
    j.host_s = 1.0;
    pred_ctx_init(&c, &m, &h, &j, false);
    c.k.memop_fitted[HW_MEMOP_ROPE] = false;    /* no knee: max(H, G) */
    pred_layer_time(&c, &p, &l);
    pred_layer_launches(&c, &p, &nf, &nb);
    assert_rel(l.fwd_total_s, nf * j.host_s, 1e-12);
    assert_rel(l.bwd_total_s, nb * j.host_s, 1e-12);
    cr_assert_gt(l.fwd_s[PRED_OP_HOST], 0);
    for (int i = 0; i < PRED_OP_COUNT; i++) {
        sf += l.fwd_s[i];
        sb += l.bwd_s[i];
    }
    assert_rel(l.fwd_total_s, sf, 1e-12);
    assert_rel(l.bwd_total_s, sb, 1e-12);
}

/* CUDA_LAUNCH_BLOCKING=1 (the job's launch_blocking): each launch returns
 * when its kernel has run, so the host's time adds to the GPU's. A fast
 * host (1 us a kernel) waits for nothing asynchronously; blocking, the
 * layer takes its GPU time plus launches x 1 us, forward and backward. */
Test(ops, launch_blocking_adds_the_host)
{
    struct model m = load_model("llama3-8b");
    struct hw_system h = load_system("dgx-h100");
    struct job j = make_job(2048, 512);
    struct pred_ctx c;
    struct pred_layer async, blocking;
    struct plan p = make_plan(8, 1, 1, 1);
    double nf, nb;
    p.sp = true;
    j.host_s = 1e-6;
    pred_ctx_init(&c, &m, &h, &j, false);
    c.k.memop_fitted[HW_MEMOP_ROPE] = false;    /* no knee: max(H, G) */
    pred_layer_time(&c, &p, &async);
    pred_layer_launches(&c, &p, &nf, &nb);
    cr_assert_eq(async.fwd_s[PRED_OP_HOST], 0.0);
    cr_assert_eq(async.bwd_s[PRED_OP_HOST], 0.0);
    c.job.launch_blocking = true;
    pred_layer_time(&c, &p, &blocking);
    assert_rel(blocking.fwd_s[PRED_OP_HOST], nf * 1e-6, 1e-12);
    assert_rel(blocking.bwd_s[PRED_OP_HOST], nb * 1e-6, 1e-12);
    assert_rel(blocking.fwd_total_s, async.fwd_total_s + nf * 1e-6, 1e-12);
    assert_rel(blocking.bwd_total_s, async.bwd_total_s + nb * 1e-6, 1e-12);
}

/* With the system's eager-call knee p (kernel.h pred_host_knee: the
 * rotary samples' fit), a layer whose host time H nears its GPU time G
 * takes (H^p + G^p)^(1/p): by hand with p 2 forward and 3 backward and the
 * host set to G / 2 an operator's launch on average, the wait is G
 * (sqrt(1 + r^2) - 1) forward, r = H / G, and G ((1 + r^3)^(1/3) - 1)
 * backward; a host far slower still sets the pace (within 1e-6 of H). */
Test(ops, host_wait_soft_maximum)
{
    struct model m = load_model("gpt3-1.7b");
    struct hw_system h = load_system("dgx-a100");
    struct job j = make_job(2048, 512);
    struct pred_ctx c;
    struct pred_layer l;
    struct plan p = make_plan(1, 1, 1, 1);
    double nf, nb, gf = 0, gb = 0, rf, rb;
    j.host_s = 0;
    pred_ctx_init(&c, &m, &h, &j, false);
    cr_assert(c.k.memop_fitted[HW_MEMOP_ROPE]);     /* the preset has the fit */
    c.k.memop_knee[HW_MEMOP_ROPE][0] = 2;
    c.k.memop_knee[HW_MEMOP_ROPE][1] = 3;
    pred_layer_time(&c, &p, &l);
    pred_layer_launches(&c, &p, &nf, &nb);
    gf = l.fwd_total_s, gb = l.bwd_total_s;
    c.job.host_s = 0.5 * gf / nf;
    pred_layer_time(&c, &p, &l);
    rf = nf * c.job.host_s / gf, rb = nb * c.job.host_s / gb;
    assert_rel(l.fwd_s[PRED_OP_HOST], gf * (sqrt(1 + rf * rf) - 1), 1e-9);
    assert_rel(l.bwd_s[PRED_OP_HOST], gb * (cbrt(1 + rb * rb * rb) - 1), 1e-9);
    c.job.host_s = 1.0;
    pred_layer_time(&c, &p, &l);
    assert_rel(l.fwd_total_s, nf * 1.0, 1e-6);
}
