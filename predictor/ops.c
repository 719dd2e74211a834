/* predictor/ops.c: the operators of a transformer layer and the parts of an
 * iteration's time as data (pred.h): names, kinds, breakdown parts, kernel
 * launch counts, and the class each part folds into. Adding an operator or a
 * part is a row here (the static_asserts stop the build until it is) plus
 * its time model in pred.c or compose.c. */
#include "predictor/pred.h"

#include <assert.h>

/* Kernels per layer and micro-batch, as pred.c's models count them: a
 * backward GEMM is a data-gradient and a weight-gradient GEMM; a norm's
 * backward computes dx, then reduces the weight gradient; a collective is
 * one kernel.
 *
 * An MoE layer's routed part counts what Megatron-Core issues with the
 * Megatron-LM MoE recipes' flags (examples/moe_recipes/ YAMLs @ dev
 * d48bd6b: --moe-router-fusion, --moe-permute-fusion, --moe-grouped-gemm,
 * --moe-token-dispatcher-type flex, --moe-router-dtype fp32, aux_loss;
 * megatron/core/transformer/moe/ at that commit):
 *   router (router.py TopKRouter): forward the fp32 cast of the input
 *     (gating, moe_router_dtype), the router GEMM, TE's fused top-k with
 *     score function (moe_utils.py topk_routing_with_score_function,
 *     fused), and the load-balancing loss: the fused scores for the aux
 *     loss, the tokens-per-expert sum, its all-reduce over the tp cp group
 *     (reduce_group) and the fused aux loss (switch_load_balancing_loss_
 *     func, fused=moe_router_fusion): 7; backward the GEMM's two, the
 *     cast's, the top-k's and the two losses': 6;
 *   permute (token_dispatcher.py MoEFlexTokenDispatcher.dispatch_
 *     preprocess, _initialize_metadata): the routing map and the
 *     probabilities laid out over the tp x ep ranks, and their gradient;
 *   dispatch (fused_a2a.py hybrid_ep_dispatch / fused_dispatch): the
 *     layout (metadata) kernel, the dispatch and the fused permute
 *     forward; backward the combine and the unpermute (HybridEPDispatch.
 *     backward, combine_with_unpermute);
 *   experts (experts.py TEGroupedMLP; TE GroupedLinear, which launches
 *     one cuBLAS GEMM per local expert, transformer_engine/common/gemm/
 *     cublaslt_gemm.cu multi_stream_cublas_gemm, TE release_v2.14 as the
 *     recipes' Dockerfile pins): up and down one GEMM per local expert
 *     forward, two backward (data and weight gradient), and with FP8 one
 *     multi-tensor quantisation of the experts' inputs forward and of
 *     their output gradients backward (module/grouped_linear.py
 *     tex.split_quantize; csrc/extensions/cast.cpp multi_quantize_impl);
 *     the probability-weighted activation one kernel each way;
 *   combine (hybrid_ep_combine / fused_combine): the unpermute and the
 *     combine; backward the dispatch and permute with the cached handle.
 * The graph columns say which --cuda-graph-scope captures the kernels: an
 * attention graph holds TransformerLayer._forward_attention (input norm,
 * attention, its residual add: half the norms, residual adds and TP
 * collectives), moe_router the router, moe_preprocess the dispatcher's
 * preprocessing (megatron/core/transformer/moe/moe_layer.py route,
 * preprocess). The segment column is where the host must wait: the flex
 * and all-to-all dispatchers read the token counts on the host before the
 * dispatch (host.c), so the dispatch, the experts and the combine are
 * issued after that sync while the GPU has nothing queued. */
#define G0 PRED_GRAPH_NONE, 0.0
#define GA PRED_GRAPH_ATTN, 1.0
#define GA_HALF PRED_GRAPH_ATTN, 0.5
#define B PRED_SEG_BEFORE
#define A PRED_SEG_AFTER
const struct pred_op_info pred_ops[PRED_OP_COUNT] = {
    /* two norms */
    [PRED_OP_NORM] = { "norm", PRED_KIND_KERNEL, PRED_PART_COMPUTE, 2, 4,
                       PRED_LAUNCH_FIXED, GA_HALF, B },
    [PRED_OP_QKV] = { "qkv", PRED_KIND_KERNEL, PRED_PART_COMPUTE, 1, 2,
                      PRED_LAUNCH_FIXED, GA, B },
    /* q and k */
    [PRED_OP_ROPE] = { "rope", PRED_KIND_KERNEL, PRED_PART_COMPUTE, 2, 2,
                       PRED_LAUNCH_ROPE, GA, B },
    /* one flash kernel each way */
    [PRED_OP_ATTN] = { "attention", PRED_KIND_KERNEL, PRED_PART_COMPUTE, 1, 1,
                       PRED_LAUNCH_ATTN, GA, B },
    [PRED_OP_PROJ] = { "out_proj", PRED_KIND_KERNEL, PRED_PART_COMPUTE, 1, 2,
                       PRED_LAUNCH_FIXED, GA, B },
    [PRED_OP_FC1] = { "mlp_up", PRED_KIND_KERNEL, PRED_PART_COMPUTE, 1, 2,
                      PRED_LAUNCH_MLP, G0, B },
    [PRED_OP_ACT] = { "activation", PRED_KIND_KERNEL, PRED_PART_COMPUTE, 1, 1,
                      PRED_LAUNCH_MLP, G0, B },
    [PRED_OP_FC2] = { "mlp_down", PRED_KIND_KERNEL, PRED_PART_COMPUTE, 1, 2,
                      PRED_LAUNCH_MLP, G0, B },
    /* the routed experts (above) */
    [PRED_OP_ROUTER] = { "router", PRED_KIND_KERNEL, PRED_PART_COMPUTE, 7, 6,
                         PRED_LAUNCH_MOE, PRED_GRAPH_ROUTER, 1.0, B },
    [PRED_OP_PERMUTE] = { "permute", PRED_KIND_KERNEL, PRED_PART_COMPUTE,
                          2, 2, PRED_LAUNCH_MOE, PRED_GRAPH_PREPROCESS, 1.0,
                          B },
    [PRED_OP_DISPATCH] = { "dispatch", PRED_KIND_COLLECTIVE,
                           PRED_PART_EP_COMM, 3, 2, PRED_LAUNCH_MOE, G0, A },
    [PRED_OP_EXPERT_UP] = { "expert_up", PRED_KIND_KERNEL, PRED_PART_COMPUTE,
                            1, 2, PRED_LAUNCH_EXPERTS, G0, A },
    [PRED_OP_EXPERT_ACT] = { "expert_act", PRED_KIND_KERNEL,
                             PRED_PART_COMPUTE, 1, 1, PRED_LAUNCH_MOE, G0, A },
    [PRED_OP_EXPERT_DOWN] = { "expert_down", PRED_KIND_KERNEL,
                              PRED_PART_COMPUTE, 1, 2, PRED_LAUNCH_EXPERTS,
                              G0, A },
    [PRED_OP_COMBINE] = { "combine", PRED_KIND_COLLECTIVE, PRED_PART_EP_COMM,
                          2, 2, PRED_LAUNCH_MOE, G0, A },
    /* two (bias-dropout-)adds */
    [PRED_OP_RESIDUAL] = { "residual", PRED_KIND_KERNEL, PRED_PART_COMPUTE,
                           2, 2, PRED_LAUNCH_FIXED, GA_HALF, B },
    /* two all-reduces each way */
    [PRED_OP_TP_COMM] = { "tp_comm", PRED_KIND_COLLECTIVE, PRED_PART_TP_COMM,
                          2, 2, PRED_LAUNCH_TP, GA_HALF, B },
    /* one send (KV) forward, two (KV, its gradient) backward per step */
    [PRED_OP_CP_COMM] = { "cp_comm", PRED_KIND_COLLECTIVE, PRED_PART_CP_COMM,
                          1, 2, PRED_LAUNCH_CP, GA, B },
    [PRED_OP_HOST] = { "host_wait", PRED_KIND_HOST, PRED_PART_COMPUTE, 0, 0,
                       PRED_LAUNCH_FIXED, G0, B },
};
#undef G0
#undef GA
#undef GA_HALF
#undef B
#undef A
static_assert(PRED_OP_COUNT == 19, "add the operator's row to pred_ops and "
              "its time model to pred_layer_time");

/* Compare's three shares: the optimizer step counts with communication, as
 * the time outside the pipeline's compute that a better network shortens. */
const struct pred_part_info pred_parts[PRED_PART_COUNT] = {
    [PRED_PART_COMPUTE] = { "compute", PRED_CLASS_COMPUTE },
    [PRED_PART_RECOMPUTE] = { "recompute", PRED_CLASS_COMPUTE },
    [PRED_PART_TP_COMM] = { "tp_comm", PRED_CLASS_COMM },
    [PRED_PART_CP_COMM] = { "cp_comm", PRED_CLASS_COMM },
    [PRED_PART_EP_COMM] = { "ep_comm", PRED_CLASS_COMM },
    [PRED_PART_PP_BUBBLE] = { "pp_bubble", PRED_CLASS_BUBBLE },
    [PRED_PART_PP_P2P] = { "pp_p2p", PRED_CLASS_COMM },
    [PRED_PART_DP_EXPOSED] = { "dp_exposed", PRED_CLASS_COMM },
    [PRED_PART_OPTIMIZER] = { "optimizer", PRED_CLASS_COMM },
};
static_assert(PRED_PART_COUNT == 9, "add the part's row to pred_parts and "
              "its time to pred_compose");

static const char *const class_names[PRED_CLASS_COUNT] = {
    [PRED_CLASS_COMPUTE] = "compute", [PRED_CLASS_COMM] = "communication",
    [PRED_CLASS_BUBBLE] = "bubble",
};
static_assert(PRED_CLASS_COUNT == 3, "add the class's name to class_names");

const char *pred_op_name(enum pred_op op) { return pred_ops[op].name; }
const char *pred_part_name(enum pred_part p) { return pred_parts[p].name; }
const char *pred_class_name(enum pred_class c) { return class_names[c]; }

void pred_parts_fold(const double part_s[PRED_PART_COUNT],
                     double class_s[PRED_CLASS_COUNT])
{
    for (int c = 0; c < PRED_CLASS_COUNT; c++)
        class_s[c] = 0;
    for (int i = 0; i < PRED_PART_COUNT; i++)
        class_s[pred_parts[i].cls] += part_s[i];
}

static double launch_scale(const struct pred_ctx *c, const struct plan *p,
                           enum pred_launch_rule rule)
{
    switch (rule) {
    case PRED_LAUNCH_ROPE:
        return c->model.position == MODEL_POS_ROPE ? 1 : 0;
    case PRED_LAUNCH_TP:
        return p->tp == 1 ? 0 : p->sp ? 2 : 1;
    case PRED_LAUNCH_CP:
        return (double)(p->cp - 1);
    case PRED_LAUNCH_ATTN:      /* one kernel per ring step */
        return (double)p->cp;
    case PRED_LAUNCH_MLP:       /* the typical layer's (pred_layer_time) */
        return !model_is_moe(&c->model) || c->model.moe.shared_ffn_hidden;
    case PRED_LAUNCH_MOE:
        return model_is_moe(&c->model);
    case PRED_LAUNCH_EXPERTS:   /* one GEMM per local expert */
        return model_is_moe(&c->model) && p->ep > 0
               ? (double)(c->model.moe.experts / p->ep) : 0;
    case PRED_LAUNCH_FIXED:
    case PRED_LAUNCH_COUNT:
        break;
    }
    return 1;
}

/* Megatron's FusedScaleMaskSoftmax runs its fused kernel only where
 * is_kernel_available says so (NVIDIA/Megatron-LM v2.6 megatron/model/
 * fused_softmax.py; the same test in Megatron-Core's core/fusions/
 * fused_softmax.py and bigscience-workshop/Megatron-DeepSpeed @ 8387ae1):
 * 16-bit input, 16 < sk <= the stack's limit, sq % 4 == 0 and
 * b np % 4 == 0 (np = heads / tp), and, causal, b np a multiple of the
 * kernel's batches per block, 4 for keys over 128 (scaled_upper_triang_
 * masked_softmax.h: 128 threads, a warp per row). Otherwise it runs
 * forward_torch_softmax. BigScience met it: "NHEADS=108 breaks
 * constraints for invoking optimized fused softmax kernel" (tr11-176B-ml/
 * chronicles-prequel.md). */
bool pred_fused_softmax(const struct job *j, const struct model *m,
                        const struct plan *p)
{
    int64_t s = j->seq / p->cp, bnp = (int64_t)p->mbs * (m->heads / p->tp);
    return s > 16 && s <= j->softmax_max_seq && s % 4 == 0 && bnp % 4 == 0 &&
           (s > 128 || bnp % 8 == 0);
}

/* Unfused attention (Megatron's baddbmm QK^T, fused masked softmax, bmm AV)
 * launches 3 kernels forward and 5 backward, one more each way with
 * attention dropout, four more each way where the softmax falls back
 * (above). */
void pred_op_launches(const struct pred_ctx *c, const struct plan *p,
                      enum pred_op op, double *fwd, double *bwd)
{
    const struct pred_op_info *o = &pred_ops[op];
    double k = launch_scale(c, p, o->launch);
    double drop = c->model.dropout ? 1 : 0;
    if (o->launch == PRED_LAUNCH_ATTN && c->job.attention != JOB_ATTN_FLASH) {
        /* the fused softmax's one kernel, or its fallback's five (pred.c) */
        double sm = pred_fused_softmax(&c->job, &c->model, p) ? 0 : 4;
        *fwd = k * (3 + drop + sm);
        *bwd = k * (5 + drop + sm);
        return;
    }
    if (o->launch == PRED_LAUNCH_EXPERTS &&
        c->job.precision == JOB_PREC_FP8 && k > 0) {
        *fwd = k * o->launches_fwd + 1;     /* one multi-tensor quantisation */
        *bwd = k * o->launches_bwd + 1;
        return;
    }
    *fwd = k * o->launches_fwd;
    *bwd = k * o->launches_bwd;
}

void pred_layer_launches(const struct pred_ctx *c, const struct plan *p,
                         double *fwd, double *bwd)
{
    *fwd = *bwd = 0;
    for (int i = 0; i < PRED_OP_COUNT; i++) {
        double f, b;
        pred_op_launches(c, p, (enum pred_op)i, &f, &b);
        *fwd += f;
        *bwd += b;
    }
}

double pred_layer_part_s(const struct pred_layer *l, enum pred_part part)
{
    double t = 0;
    for (int i = 0; i < PRED_OP_COUNT; i++)
        if (pred_ops[i].part == part)
            t += l->fwd_s[i] + l->bwd_s[i];
    return t;
}
