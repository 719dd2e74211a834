/* predictor/tpo.c: communication overlapped with computation, and TP
 * communication overlap (plan switch tpo: Transformer Engine userbuffers,
 * Megatron-LM --tp-comm-overlap; torchtitan's
 * parallelism.enable_async_tensor_parallel).
 *
 * With sequence parallelism each TP GEMM pairs with one collective: forward,
 * the all-gather of the input before QKV and MLP-up and the reduce-scatter
 * of the output after out-proj and MLP-down; backward the mirror images
 * (reduce-scatter after QKV and MLP-up's data gradient, all-gather before
 * out-proj's and MLP-down's). Userbuffers split each pair into tp chunks
 * and pipeline them (the GEMM of chunk i while chunk i+1 moves:
 * transformer_engine/pytorch/module/base.py initialize_ub, ring-exchange
 * overlap; Wang et al. ASPLOS 2023, "Overlap communication with dependent
 * computation via decomposition"), so of a collective of time C beside a
 * GEMM of time G what stays exposed is the part longer than the GEMM, plus
 * one chunk that cannot overlap: max(0, C - G) + min(C, G) / tp.
 *
 * Interference: while communication kernels run they take SMs from the
 * GEMM beside them. Transformer Engine's userbuffers reserve a number of
 * SMs per overlapped GEMM (transformer_engine/pytorch/module/base.py
 * initialize_ub, get_default_config: "num_sm": 1 if method ==
 * "ring_exchange" else 16, with set_sm_margin for the others, so the GEMM
 * runs on the rest). The ring-exchange method moves the all-gathers of
 * qkv_fprop, fc1_fprop, proj_dgrad and fc2_dgrad with the copy engines
 * ("use_ce": True) and one SM for its flags; the pipeline method
 * (proj_fprop, fc2_fprop) and the bulk one (qkv_dgrad, fc1_dgrad) reduce-
 * scatter with 16 SMs. A GEMM sharing the GPU with them runs on the SMs
 * left, at 1 - u of its speed with u = n_sm / SMs (1/132 and 16/132 on an
 * H100), so it lasts longer by min(C, G) u / (1 - u). NeMo's tuned
 * userbuffers configurations move these counts (2 to 32 SMs,
 * nemo/collections/llm/recipes/tp_overlap_configs/userbuffers.py); the
 * defaults stand for them. torchtitan's async TP (PyTorch symmetric
 * memory, torch/distributed/_symmetric_memory: the all-gather by copy
 * engine, the reduce-scatter's sums by kernels) is given the same shares.
 * The collectives that are not TP overlap (FSDP, context parallelism, MoE
 * all-to-all) are NCCL kernels beside the computation, for which the share
 * is Calculon's fraction of the processor NVLink collectives use
 * ('processor_usage' in calculon-ai/calculon systems/h100_80g_nvl8.json:
 * 0.15, about 20 of an H100's 132 SMs; Isaev et al. SC23) on either tier:
 * NCCL runs a collective as one CTA per channel whatever carries it, and
 * over the network those CTAs still move every byte between the user
 * buffer and the proxy's staging buffers (NCCL src/transport/net.cc, the
 * network send / receive primitives run by the same kernel), holding
 * their SMs for as long as the slower link takes. Calculon's 0.02 for the
 * InfiniBand tier would let an FSDP or cp collective across nodes run
 * nearly free beside the compute, which an NCCL kernel is not. */
#include "predictor/pred.h"

#include <math.h>

/* calculon-ai/calculon systems/h100_80g_nvl8.json 'processor_usage' of
 * NVLink, for the NICs' tier too (header) */
#define INTERFERENCE_NVLINK 0.15
#define INTERFERENCE_NIC 0.15

/* Transformer Engine's userbuffers defaults (header): SMs a ring exchange
 * (all-gather) and a pipelined or bulk reduce-scatter take */
#define UB_SMS_RING 1.0
#define UB_SMS_RS 16.0

double pred_interference(bool inter)
{
    return inter ? INTERFERENCE_NIC : INTERFERENCE_NVLINK;
}

double pred_tpo_interference(const struct pred_ctx *c, bool rs)
{
    double sms = c->k.sms > 0 ? (double)c->k.sms : 132.0;
    return (rs ? UB_SMS_RS : UB_SMS_RING) / sms;
}

void pred_overlap(double compute, double comm, double u, double chunks,
                  double *compute_extra, double *exposed)
{
    double both = fmin(compute, comm);
    *compute_extra = both * u / (1.0 - u);
    *exposed = fmax(0.0, comm - compute - *compute_extra) +
               (chunks > 1 ? fmin(comm, compute + *compute_extra) / chunks : 0);
}

/* The layer's GEMMs paired with the collective each hides, in the order
 * above: all-gather (0) or reduce-scatter (1). */
static const struct { enum pred_op op; int fwd_rs, bwd_rs; } pairs[] = {
    { PRED_OP_QKV, 0, 1 }, { PRED_OP_PROJ, 1, 0 },
    { PRED_OP_FC1, 0, 1 }, { PRED_OP_FC2, 1, 0 },
};

static void hide(const struct pred_ctx *c, double *gemm, double ag_s,
                 double rs_s, int rs, double tp, double *exposed)
{
    double extra, e;
    pred_overlap(*gemm, rs ? rs_s : ag_s, pred_tpo_interference(c, rs), tp,
                 &extra, &e);
    *gemm += extra;
    *exposed += e;
}

void pred_tpo_layer(const struct pred_ctx *c, const struct plan *p,
                    double ag_s, double rs_s, struct pred_layer *o)
{
    double tp = (double)p->tp, ef = 0, eb = 0;
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        hide(c, &o->fwd_s[pairs[i].op], ag_s, rs_s, pairs[i].fwd_rs, tp, &ef);
        hide(c, &o->bwd_s[pairs[i].op], ag_s, rs_s, pairs[i].bwd_rs, tp, &eb);
    }
    o->fwd_s[PRED_OP_TP_COMM] = ef;
    o->bwd_s[PRED_OP_TP_COMM] = eb;
}
