/* tests/unit/test_host.c: the host's share of an MoE layer's time
 * (predictor/host.c): the kernels Megatron-Core's MoE layer issues with the
 * MoE recipes' flags, counted by hand from the operator table's sources
 * (predictor/ops.c), what CUDA graphs take off them, the GPU's idle time
 * after the dispatcher's sync in hand-computed cases, and the stack fields
 * that switch it on. */
#include "helpers.h"

#include <math.h>

static struct pred_ctx q30_ctx(enum job_precision prec, unsigned graphs)
{
    struct model m = load_model("qwen3-30b-a3b");
    struct hw_system h = load_system("dgx-h100");
    struct job j = make_job(4096, 256);
    struct pred_ctx c;
    j.precision = prec;
    j.cuda_graphs = graphs;
    pred_ctx_init(&c, &m, &h, &j, false);
    return c;
}

static struct plan q30_plan(int32_t ep)
{
    struct plan p = make_plan(1, 1, 32, 1);
    p.ep = ep;
    return p;
}

/* Qwen3-30B-A3B (128 experts, no shared experts, rotary), tp 1, ep 8: 16
 * local experts. Forward before the sync: norms 2, QKV 1, rotary 2, flash
 * 1, out-projection 1, router 7 (fp32 cast, GEMM, fused top-k, aux-loss
 * scores, token counts, their all-reduce, fused aux loss), dispatch
 * preprocessing 2, residual adds 2 = 18; after it: dispatch 3 (layout,
 * dispatch, permute), up 16 (a cuBLAS GEMM per local expert), activation
 * 1, down 16, combine 2 = 38. Backward: 4 + 2 + 2 + 1 + 2 + 6 + 2 + 2 = 21
 * before, 2 + 32 + 1 + 32 + 2 = 69 after. FP8 adds one multi-tensor
 * quantisation per grouped GEMM each way; ep 32 leaves 4 experts. */
Test(host, moe_layer_kernels_by_hand)
{
    struct pred_ctx c = q30_ctx(JOB_PREC_BF16, 0);
    struct pred_ctx f = q30_ctx(JOB_PREC_FP8, 0);
    struct plan p = q30_plan(8), p32 = q30_plan(32);
    cr_assert_float_eq(pred_host_kernels(&c, &p, false, PRED_SEG_BEFORE), 18, 1e-12);
    cr_assert_float_eq(pred_host_kernels(&c, &p, false, PRED_SEG_AFTER), 38, 1e-12);
    cr_assert_float_eq(pred_host_kernels(&c, &p, true, PRED_SEG_BEFORE), 21, 1e-12);
    cr_assert_float_eq(pred_host_kernels(&c, &p, true, PRED_SEG_AFTER), 69, 1e-12);
    cr_assert_float_eq(pred_host_kernels(&f, &p, false, PRED_SEG_AFTER), 40, 1e-12);
    cr_assert_float_eq(pred_host_kernels(&f, &p, true, PRED_SEG_AFTER), 71, 1e-12);
    cr_assert_float_eq(pred_host_kernels(&c, &p32, false, PRED_SEG_AFTER), 14, 1e-12);
}

/* The Qwen3-30B H100 FP8 recipe's scopes attn, moe_router and
 * moe_preprocess: what stays eager before the sync is the pre-MLP norm
 * and its residual add (half of each row), plus one launch of the
 * attention graph and one of the router-and-preprocess graph: 1 + 1 + 2
 * = 4 forward, 2 + 1 + 2 = 5 backward; after the sync nothing changes. */
Test(host, graph_scopes_take_their_kernels)
{
    unsigned g = JOB_GRAPH_BIT(JOB_GRAPH_ATTN) |
                 JOB_GRAPH_BIT(JOB_GRAPH_MOE_ROUTER) |
                 JOB_GRAPH_BIT(JOB_GRAPH_MOE_PREPROCESS);
    struct pred_ctx c = q30_ctx(JOB_PREC_BF16, g);
    struct plan p = q30_plan(8);
    cr_assert_float_eq(pred_host_kernels(&c, &p, false, PRED_SEG_BEFORE), 4, 1e-12);
    cr_assert_float_eq(pred_host_kernels(&c, &p, true, PRED_SEG_BEFORE), 5, 1e-12);
    cr_assert_float_eq(pred_host_kernels(&c, &p, false, PRED_SEG_AFTER), 38, 1e-12);
}

/* Segments by hand (ms). GPU-bound: F_a = max(0.4, 1.0 + 0.01) = 1.01,
 * F = max(1.01 + 0.9, 0.4 + 0.3) = 1.91, idle 1.91 - 1.9 = 0.01 = one
 * kernel's host time. Host-bound after the sync: F_a = 2.4, F = max(2.4 +
 * 0.9, 2.4 + 1.2) = 3.6, idle 1.7. The sync's point: host-bound after it
 * (2.0 against 1.0) with slack before the next (0.2 against 1.5) idles 1.0
 * (F = max(2.0 + 1.5, 2.2) = 3.5), where a host running ahead over the
 * whole layer would hide it all (2.2 < 2.5). */
Test(host, sync_wait_by_hand)
{
    cr_assert_float_eq(pred_host_sync_wait(0.4, 1.0, 0.3, 0.9, 0.01), 0.01, 1e-12);
    cr_assert_float_eq(pred_host_sync_wait(2.4, 1.0, 1.2, 0.9, 0.064), 1.7, 1e-12);
    cr_assert_float_eq(pred_host_sync_wait(2.0, 1.0, 0.2, 1.5, 0.05), 1.0, 1e-12);
    cr_assert_float_eq(pred_host_sync_wait(0, 0, 0, 0, 0), 0, 1e-12);
}

/* The layer's host wait: the forward's from the segments (the table's
 * counts times 64 us against the GPU time of the same operators), the
 * backward's what its host time exceeds its GPU time by; without the sync
 * the forward's too; a full-iteration graph none. */
Test(host, layer_wait_from_segments)
{
    struct pred_ctx c = q30_ctx(JOB_PREC_BF16, 0);
    struct plan p = q30_plan(8);
    struct pred_layer l;
    double h = 64e-6, ga = 0, gb = 0, bwd = 0;
    c.job.moe_host_s = h;
    c.job.moe_host_sync = true;
    cr_assert(pred_moe_host_applies(&c));
    pred_layer_time(&c, &p, &l);
    for (int i = 0; i < PRED_OP_COUNT; i++) {
        if (pred_ops[i].kind == PRED_KIND_HOST)
            continue;
        *(pred_ops[i].seg == PRED_SEG_AFTER ? &ga : &gb) += l.fwd_s[i];
        bwd += l.bwd_s[i];
    }
    cr_assert_float_eq(l.fwd_s[PRED_OP_HOST],
                       pred_host_sync_wait(38 * h, ga, 18 * h, gb, h), 1e-12);
    cr_assert_float_eq(l.bwd_s[PRED_OP_HOST], fmax(0.0, 90 * h - bwd), 1e-12);
    cr_assert_gt(l.fwd_s[PRED_OP_HOST], h);     /* host-bound at 64 us */
    c.job.moe_host_sync = false;
    pred_layer_time(&c, &p, &l);
    cr_assert_float_eq(l.fwd_s[PRED_OP_HOST], fmax(0.0, 56 * h - ga - gb), 1e-12);
    c.job.cuda_graphs = JOB_GRAPH_BIT(JOB_GRAPH_FULL);
    cr_assert(!pred_moe_host_applies(&c));
    pred_layer_time(&c, &p, &l);
    cr_assert_eq(l.fwd_s[PRED_OP_HOST], 0);
    cr_assert_eq(l.bwd_s[PRED_OP_HOST], 0);
}

/* megatron-core carries the host time and the sync and captures nothing
 * by default; --set stack.cuda_graph_scope takes Megatron's scope names. */
Test(host, stack_fields)
{
    struct stack s;
    struct tpl_err err = { 0 };
    const char *sets[] = { "stack.cuda_graph_scope=attn,moe_router",
                           "stack.moe_host_sync=false" };
    const char *bad[] = { "stack.cuda_graph_scope=mlp" };
    cr_assert_eq(stack_load(&s, "megatron-core", NULL, 0, &err), 0, "%s", err.msg);
    {   /* the eager stacks' fitted host time (calibrate --runs fits one) */
        struct stack lm;
        cr_assert_eq(stack_load(&lm, "megatron-lm-2021", NULL, 0, &err), 0);
        cr_assert(s.moe_host_s > 0 && s.moe_host_s == lm.host_s);
    }
    cr_assert(s.moe_host_sync);
    cr_assert_eq(s.cuda_graphs, 0);
    cr_assert_eq(stack_load(&s, "megatron-core", sets, 2, &err), 0, "%s", err.msg);
    cr_assert_eq(s.cuda_graphs, JOB_GRAPH_BIT(JOB_GRAPH_ATTN) |
                                JOB_GRAPH_BIT(JOB_GRAPH_MOE_ROUTER));
    cr_assert(!s.moe_host_sync);
    cr_assert_neq(stack_load(&s, "megatron-core", bad, 1, &err), 0);
    cr_assert(strstr(err.msg, "cuda_graph_scope"), "%s", err.msg);
    cr_assert_eq(stack_load(&s, "torchtitan", NULL, 0, &err), 0, "%s", err.msg);
    cr_assert_eq(s.moe_host_s, 0);
}
