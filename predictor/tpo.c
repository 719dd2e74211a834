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

/* How each method runs a pair, forward and backward: the GEMM split in
 * chunks of the tokens pipelined with the collective's (exposed: one
 * chunk), or 'bulk': the collective beside the weight-gradient GEMM whole
 * (exposed: what outlasts it).
 * Userbuffers, Transformer Engine's defaults (transformer_engine/pytorch/
 * module/base.py initialize_ub: methods and get_default_config): the
 * all-gathers of qkv_fprop, fc1_fprop, proj_dgrad and fc2_dgrad by ring
 * exchange, num_splits = tp; the reduce-scatters of proj_fprop and
 * fc2_fprop pipelined, num_splits = 4; qkv_dgrad / fc1_dgrad and their
 * wgrad "bulk": the data gradient's reduce-scatter runs beside the weight
 * gradient's GEMM. A ring-exchanged all-gather in the backward hides
 * behind the data gradient only: the weight gradient needs all of it.
 * Async TP, PyTorch's micro-pipelined TP (torch/distributed/
 * _symmetric_memory/__init__.py _fused_all_gather_matmul_impl and
 * _fused_matmul_reduce_scatter_impl: one GEMM per rank's shard;
 * torch/_inductor/fx_passes/micro_pipeline_tp.py finds both patterns,
 * all-gather -> mm and mm -> reduce-scatter, in the compiled forward and
 * backward graphs alike): tp chunks for all eight pairs. What it adds on
 * the compute stream, exposed: before the first chunk, the copy of the
 * local shard into its symmetric buffer and a barrier
 * (_pipelined_multi_all_gather_and_consume: "giving up the chance to
 * overlap mv and b with the first shard_consumer"), a read and a write
 * of 1 / tp of the activation; after the last, the sum of the tp
 * partials each rank received (reduce_fn / reduce_partials over the
 * stacked partials after _pipelined_produce_and_all2all), one
 * memory-bound kernel that reads the whole GEMM output, tokens x width,
 * and writes its 1 / tp (timed as the residual add's fit, the
 * elementwise sum the samples have).
 * Both methods run the chunks' GEMMs on several streams at once (TE:
 * _NUM_MAX_UB_STREAMS = 3 compute streams round-robin, transformer_engine/
 * common/comm_gemm_overlap/comm_gemm_overlap.cpp split_overlap_ag /
 * split_overlap_rs; PyTorch: two streams, "allows for computation/
 * computation overlapping, greatly reducing quantization inefficiency"),
 * so one chunk's last wave of tiles runs beside the next one's first and
 * the chunked GEMM is timed as the whole one. Measured against the
 * torchtitan async-TP benchmark (benchmarks/asyncTP_llama3_h100_2025-06_
 * torchtitan.md, vanilla vs async TP on the same plans: tests/unit/
 * test_tpo.c). */
enum tpo_run { TPO_RING, TPO_PIPELINE, TPO_BULK };

#define UB_PIPELINE_SPLITS 4.0  /* get_default_config "num_splits" */

/* The layer's GEMMs paired with the collective each hides, in the order
 * above: all-gather (0) or reduce-scatter (1), and userbuffers' method. */
static const struct {
    enum pred_op op;
    int fwd_rs, bwd_rs;
    enum tpo_run fwd_ub, bwd_ub;
} pairs[] = {
    { PRED_OP_QKV, 0, 1, TPO_RING, TPO_BULK },
    { PRED_OP_PROJ, 1, 0, TPO_PIPELINE, TPO_RING },
    { PRED_OP_FC1, 0, 1, TPO_RING, TPO_BULK },
    { PRED_OP_FC2, 1, 0, TPO_PIPELINE, TPO_RING },
};

static enum tpo_run run_of(const struct pred_ctx *c, enum tpo_run ub)
{
    return c->job.tpo_method == JOB_TPO_ASYNC ? TPO_RING : ub;
}

static double run_splits(enum tpo_run r, double tp)
{
    return r == TPO_RING ? tp : r == TPO_PIPELINE ? UB_PIPELINE_SPLITS : 1.0;
}

/* What async TP exposes around one pair (header): the shard's copy before
 * an all-gather, the partials' sum after a reduce-scatter; 'bytes' the
 * whole activation. */
double pred_tpo_async_s(const struct pred_ctx *c, double bytes, double tp,
                        bool rs)
{
    return rs ? pred_memop_s(&c->k, HW_MEMOP_RESADD, 0,
                             bytes * (1.0 + 1.0 / tp), 1, 1)
              : pred_mem_s(&c->k, 2.0 * bytes / tp, 1);
}

/* One collective of 'comm' s hidden behind 'partner' s of the GEMM whose
 * total is *gemm, run as r; 'bytes' the activation it moves. */
static void hide(const struct pred_ctx *c, double *gemm, double partner,
                 double comm, int rs, enum tpo_run r, double tp,
                 double bytes, double *exposed)
{
    double extra, e;
    pred_overlap(partner, comm, pred_tpo_interference(c, rs), run_splits(r, tp),
                 &extra, &e);
    *gemm += extra;
    *exposed += e;
    if (*gemm > 0 && c->job.tpo_method == JOB_TPO_ASYNC)
        *exposed += pred_tpo_async_s(c, bytes, tp, rs);
}

void pred_tpo_layer(const struct pred_ctx *c, const struct plan *p,
                    double ag_s, double rs_s, double bytes,
                    struct pred_layer *o)
{
    double tp = (double)p->tp, ef = 0, eb = 0;
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        enum pred_op op = pairs[i].op;
        enum tpo_run rf = run_of(c, pairs[i].fwd_ub), rb = run_of(c, pairs[i].bwd_ub);
        double partner = rb == TPO_BULK ? o->bwd_s[op] - o->dgrad_s[op]
                                        : o->dgrad_s[op];
        hide(c, &o->fwd_s[op], o->fwd_s[op], pairs[i].fwd_rs ? rs_s : ag_s,
             pairs[i].fwd_rs, rf, tp, bytes, &ef);
        hide(c, &o->bwd_s[op], partner, pairs[i].bwd_rs ? rs_s : ag_s,
             pairs[i].bwd_rs, rb, tp, bytes, &eb);
    }
    o->fwd_s[PRED_OP_TP_COMM] = ef;
    o->bwd_s[PRED_OP_TP_COMM] = eb;
}
