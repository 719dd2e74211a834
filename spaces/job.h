/* spaces/job.h: the job, what to train: sequence, batch, precision and the
 * software behaviours that are not part of the parallel plan. */
#ifndef SPACE_JOB_H
#define SPACE_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum job_precision { JOB_PREC_BF16, JOB_PREC_FP16, JOB_PREC_FP8,
                     JOB_PREC_COUNT };
/* Megatron-Core's and Megatron-DeepSpeed's fused masked softmax takes keys
 * up to 4096 long (megatron/core/fusions/fused_softmax.py
 * FusedScaleMaskSoftmax.is_kernel_available: 16 < sk <= 4096; bigscience-
 * workshop/Megatron-DeepSpeed @ 8387ae1 megatron/model/fused_softmax.py
 * likewise); a stack file may say otherwise (stack field fused_softmax_max_seq). */
#define JOB_SOFTMAX_MAX_SEQ 4096

/* The optimizer step's HBM traffic a parameter of the GPU's shard: a fused
 * mixed-precision Adam (Megatron's distributed optimizer, Apex / Transformer
 * Engine FusedAdam) reads the fp32 master weight, m, v and gradient and
 * writes the master, m, v and the 16-bit weight, 30 bytes, plus 4 for the
 * gradient-norm pass of the clipping (predictor/compose.c); a stack file
 * may say otherwise (stack field optimizer_step_bytes). */
#define JOB_STEP_BYTES 34.0

enum job_attention { JOB_ATTN_FLASH, JOB_ATTN_UNFUSED, JOB_ATTN_COUNT };
/* How the stack exchanges keys and values under context parallelism
 * (predictor/cp.c): none (the stack has no cp), a p2p ring overlapped with
 * the attention steps, an all-gather up front, an all-to-all over heads. */
enum job_cp_comm { JOB_CP_NONE, JOB_CP_P2P, JOB_CP_ALLGATHER, JOB_CP_A2A,
                   JOB_CP_COUNT };
/* FSDP's parameters after a unit's forward (ZeRO-3; predictor/shard.c):
 * resharded, kept gathered for the backward, or torchtitan's "default"
 * (resharded without a pipeline, kept with one). */
enum job_reshard { JOB_RESHARD_ALWAYS, JOB_RESHARD_NEVER, JOB_RESHARD_DEFAULT,
                   JOB_RESHARD_COUNT };
/* What selective recompute rebuilds (predictor/pred.c, mem.c): the
 * attention core (Megatron, Korthikanti et al. 2023), or torchtitan's
 * op-level policy: every second matmul and all non-matmul ops, the
 * attention kept. */
enum job_selective { JOB_SELECTIVE_ATTENTION, JOB_SELECTIVE_OP,
                     JOB_SELECTIVE_COUNT };
/* What Megatron's selective recompute rebuilds (--recompute-modules,
 * megatron/core/transformer/transformer_config.py recompute_modules, default
 * ["core_attn"]; predictor/mem.c, pred.c): the attention core; the MoE
 * experts' activation; the two norms; MLA's up projections and rotary; the
 * dense MLP; the shared experts; the whole MoE layer. A bit set of them. */
enum job_rc_module { JOB_RC_CORE_ATTN, JOB_RC_MOE_ACT, JOB_RC_LAYERNORM,
                     JOB_RC_MLA_UP_PROJ, JOB_RC_MLP, JOB_RC_SHARED_EXPERTS,
                     JOB_RC_MOE, JOB_RC_COUNT };
#define JOB_RC_BIT(m) (1u << (m))
/* What CUDA graphs capture (Megatron-LM --cuda-graph-scope with
 * --cuda-graph-impl transformer_engine | local, megatron/training/
 * arguments.py; predictor/host.c): a layer's attention (TransformerLayer.
 * _forward_attention), the MoE router, the dispatcher's preprocessing, or
 * the whole iteration (full_iteration). A bit set of them. */
enum job_graph { JOB_GRAPH_ATTN, JOB_GRAPH_MOE_ROUTER,
                 JOB_GRAPH_MOE_PREPROCESS, JOB_GRAPH_FULL, JOB_GRAPH_COUNT };
#define JOB_GRAPH_BIT(g) (1u << (g))
/* How ZeRO-3 gathers a unit (predictor/shard.c): one collective over its
 * flat parameters (FSDP, Megatron-FSDP), or DeepSpeed's one per parameter
 * tensor, fetched again by every forward call, the recompute's too. */
enum job_zero3_gather { JOB_GATHER_UNIT, JOB_GATHER_PARAMETER,
                        JOB_GATHER_COUNT };
/* How an FP8 job's GEMM operands become FP8 (predictor/fp8cast.c): fused
 * into the kernels that produce them (Transformer Engine: no time of its
 * own), or torchao's dynamic tensorwise scaling, an amax pass and a cast
 * pass per operand in each direction. */
enum job_fp8_cast { JOB_FP8_CAST_FUSED, JOB_FP8_CAST_TORCHAO,
                    JOB_FP8_CAST_COUNT };
/* How TP communication overlap (plan tpo) splits the GEMMs it hides behind
 * (predictor/tpo.c pred_tpo_splits): Transformer Engine's userbuffers
 * (ring exchange in tp chunks, pipelined reduce-scatter in 4, bulk in the
 * backward of QKV and MLP-up) or PyTorch's micro-pipelined async TP (tp
 * chunks for every pair, both ways). */
enum job_tpo_method { JOB_TPO_USERBUFFERS, JOB_TPO_ASYNC, JOB_TPO_METHOD_COUNT };

/* How the stack moves routed tokens to their experts under expert
 * parallelism (predictor/moe.c): none (the stack has no expert
 * parallelism); an all-to-all over the ep group, a copy per routed expert
 * (Megatron-Core --moe-token-dispatcher-type alltoall, megatron/core/
 * transformer/moe/token_dispatcher.py MoEAlltoAllTokenDispatcher); or
 * DeepEP / HybridEP kernels, a copy per destination GPU, once per node
 * over the NIC and forwarded over NVLink inside it (--moe-token-
 * dispatcher-type flex with --moe-flex-dispatcher-backend deepep or
 * hybridep, token_dispatcher.py MoEFlexTokenDispatcher). */
enum job_moe_dispatch { JOB_MOE_NONE, JOB_MOE_ALLTOALL, JOB_MOE_FLEX,
                        JOB_MOE_COUNT };

struct job {                    /* a plain value */
    int64_t seq;                /* tokens per sequence */
    int64_t gbs;                /* global batch, sequences */
    enum job_precision precision;
    enum job_attention attention;
    double tokens;              /* tokens to train (reports) */
    bool overlap_grad_reduce;   /* DP grad reduce overlapped with backward */
    bool overlap_param_gather;  /* ZeRO-1/2/3 param all-gather overlapped
                                   with forward (prefetch) */
    enum job_reshard fsdp_reshard;
    double host_s;              /* host time to issue one kernel (0: never waits) */
    double grad_accum_bytes;    /* per parameter and micro-batch: weight
                                   gradients accumulated outside the GEMM
                                   (the stack's grad_accum_bytes; 0 fused) */
    double grad_accum_bf16_bytes;   /* the same for bf16 jobs */
    double reserve_bytes;       /* HBM the stack keeps off the plan's use
                                   (CUDA context, NCCL, allocator); < 0:
                                   the system's memory.reserve_gib */
    double grad_copy_bf16_bytes;    /* per parameter: a bf16 gradient kept
                                   beside the fp32 one (bf16 jobs, ZeRO < 2) */
    double grad_bytes;          /* per parameter: the gradient the optimizer
                                   reads (fp32 main_grad 4; predictor/
                                   shard.c) */
    double grad_fp16_bytes;     /* the same when the job is fp16 (< 0:
                                   grad_bytes) */
    double optim_bytes;         /* per parameter: optimizer states (fp32
                                   master weights and Adam m, v: 12) */
    double loss_logit_bytes;    /* per logit at the loss's peak (bf16
                                   logits and an fp32 copy: 6; mem.c) */
    bool bf16_grad_allreduce;   /* bf16 ZeRO-1: fp32 gradients all-reduced,
                                   not reduce-scattered (compose.c) */
    bool grad_reduce_16bit;     /* the data-parallel gradient reduce (and
                                   FSDP's reduce-scatter) in 16 bits, not
                                   fp32, and under zero 0 / 1 the gradient
                                   buffer too (Megatron-Core's DDP config
                                   grad_reduce_in_fp32 = False; the stack's
                                   grad_reduce_16bit; shard.c) */
    bool launch_blocking;       /* CUDA_LAUNCH_BLOCKING=1: the host waits
                                   for each kernel, so its issue time adds
                                   to the GPU's instead of overlapping */
    enum job_cp_comm cp_comm;   /* the stack's KV exchange under cp */
    enum job_moe_dispatch moe_dispatch; /* the stack's token dispatcher */
    double moe_host_s;          /* host time to issue one kernel of an MoE
                                   layer that no CUDA graph captures (0:
                                   the host never holds the GPU up there;
                                   predictor/host.c) */
    bool moe_host_sync;         /* the dispatcher makes the host wait for
                                   the GPU's token counts in each MoE
                                   layer's forward (dropless, no static
                                   budget: token_dispatcher.py) */
    unsigned cuda_graphs;       /* JOB_GRAPH_BIT set: what CUDA graphs
                                   capture */
    /* FSDP2 and op-level activation checkpointing (the stack's optional
     * fields; predictor/shard.c, pred.c) */
    bool fsdp_copy_out;         /* gathered units copied out on the compute stream */
    enum job_selective selective;
    enum job_zero3_gather zero3_gather;
    unsigned recompute_modules; /* JOB_RC_BIT set: what selective rebuilds
                                   under the attention policy */
    enum job_fp8_cast fp8_cast; /* FP8 operand casts (fp8cast.c) */
    enum job_tpo_method tpo_method; /* TP overlap's GEMM chunks (tpo.c) */
    double ddp_bucket_params;   /* gradient bucket, parameters (0: Megatron-
                                   Core's max(40M, 1M x dp); compose.c) */
    bool fp8_delayed;           /* FP8 with Transformer Engine's delayed
                                   scaling (DelayedScaling: scales from an
                                   amax history, TE 1.x, MLPerf): the GEMM
                                   factor efficiency.gemm_fp8; false (the
                                   default): per-tensor current or MXFP8
                                   block scaling (Float8CurrentScaling,
                                   MXFP8BlockScaling, TE 2.x; Megatron-
                                   Bridge's Blackwell recipes fp8cs / fp8mx):
                                   efficiency.gemm_fp8_cs */
    bool cp_merge_eager;        /* cp: PyTorch ring attention's fp32 merges
                                   of partial outputs (predictor/cp.c) */
    bool separate_proj;         /* q, k, v and gate, up as separate GEMMs
                                   (predictor/proj.c) */
    bool fp8_param_gather;      /* an FP8 job's distributed optimizer
                                   all-gathers the layers' GEMM weights in
                                   FP8, 1 byte each (Megatron-Core
                                   --fp8-param-gather; compose.c) */
    bool repeat_kv;             /* the model repeats K and V to every query
                                   head before the attention (GQA expanded:
                                   torchtitan's repeat_kv), so context
                                   parallelism moves them at the query
                                   width (cp.c) */
    double step_bytes;          /* the optimizer step's HBM traffic a
                                   parameter (JOB_STEP_BYTES) */
    int64_t softmax_max_seq;    /* unfused attention: the longest key length
                                   Megatron's fused masked softmax takes
                                   (ops.c pred_fused_softmax) */
};

#define JOB_MAX_SEQ  (1 << 20)
#define JOB_MAX_GBS  (1 << 24)

/* seq 2048, gbs 512, bf16, flash attention, both overlaps on, cp by p2p. */
void job_default(struct job *j);
const char *job_precision_name(enum job_precision p);
const char *job_attention_name(enum job_attention a);
int job_precision_parse(const char *s, enum job_precision *out);
int job_attention_parse(const char *s, enum job_attention *out);
/* Megatron's module names ("core_attn", ...). */
const char *job_rc_module_name(enum job_rc_module m);
/* A list of module names separated by spaces or commas, as Megatron's
 * --recompute-modules takes them: 0, or -1 with the first unknown name
 * (at most 'n' bytes) in bad. */
int job_rc_modules_parse(const char *s, unsigned *out, char *bad, size_t n);
/* The set as Megatron's list, space-separated, into buf. */
void job_rc_modules_format(unsigned set, char *buf, size_t n);

#endif /* SPACE_JOB_H */
