/* predictor/mem.c: memory per GPU for the worst pipeline stage.
 *
 * Model states (Rajbhandari et al. SC20, ZeRO, sec. 3.1: mixed-precision Adam
 * holds 2 + 2 + 12 bytes per parameter; Megatron-LM accumulates gradients in
 * an fp32 main_grad buffer, so gradients take 4): weights 2, gradients 4,
 * optimizer 12 (fp32 master weights, Adam m and v), divided over dp by ZeRO-1
 * / the distributed optimizer, and gradients and weights too by ZeRO-2 and
 * ZeRO-3 / FSDP (predictor/shard.c).
 *
 * Activations: Korthikanti et al., "Reducing Activation Recomputation in Large
 * Transformer Models", MLSys 2023, sec. 4 and Table 2, per layer and
 * micro-batch (s sequence, b micro-batch, h hidden, a heads, t tp):
 *   no recompute, tp only:  sbh (10 + 24/t + 5as/(ht))
 *   with sp:                sbh/t (34 + 5as/h)
 *   selective recompute:    sbh (10 + 24/t),  with sp sbh 34/t
 *   full recompute:         2sbh,             with sp 2sbh/t
 * built from its sec. 4.1 inventory so that GQA (K and V of kv_dim), GLU
 * (three h x f matrices) and models without dropout follow, and flash
 * attention (Dao et al. 2022) replaces the 5as^2b softmax terms by the
 * per-row log-sum-exp (4 bytes per head and token).
 * In flight: 1F1B keeps pp - r micro-batches on pipeline rank r; the
 * interleaved schedule keeps 2(pp - r - 1) + (vpp - 1) pp + 1 model chunks of
 * l/(pp vpp) layers (Megatron-LM schedules.py warm-up counts), which for
 * rank 0 is Korthikanti's l(1 + (pp - 1)/(pp vpp)).
 *
 * FP8 (precision fp8): Megatron-Core's layers on Transformer Engine (TE) with
 * the delayed-scaling recipe, attention in 16 bits (recipe fp8_dpa = False,
 * TE common/recipe/__init__.py). Read in TE v1.11 (NGC 24.09, MLPerf v4.1):
 * - Saved GEMM inputs are FP8, 1 byte: module/linear.py keeps the FP8 cast
 *   of its input (or only its FP8 transpose) for the weight gradient, and
 *   module/layernorm_linear.py keeps the FP8 norm output ln_out beside the
 *   16-bit norm input. So the QKV and fc1 inputs take sbh each instead of
 *   2sbh, the fc2 input sbf instead of 2sbf; the 16-bit tensors that other
 *   kernels save stay: the norm inputs, Q, K, V, the fc1 output the
 *   activation's backward reads (Megatron-Core transformer/mlp.py:
 *   bias_gelu_impl / bias_swiglu_impl save their input). Flash attention
 *   (TE attention.py FusedAttnFunc) keeps its 16-bit output O for its
 *   backward, and out-proj's FP8 copy of it is a second tensor: 2sbh + sbh
 *   where 16-bit training shares one 2sbh. Korthikanti's GPT layer (dropout,
 *   unfused attention, sp) keeps sbh/t (27 + 5as/h) instead of
 *   sbh/t (34 + 5as/h).
 * - Weights: FP8 primary weights, as NeMo's FP8 recipe (NVIDIA/NeMo
 *   llm/recipes/precision/mixed_precision.py bf16_with_fp8_mixed:
 *   fp8_param_gather = True) and NVIDIA's MLPerf GPT-3 runs (FP8_PARAMS=True
 *   in config_common.sh, training_results v4.0 and v4.1) train: each GEMM
 *   weight is a Float8Tensor, 1 byte, with a cached FP8 transpose for the
 *   backward's data gradient, 1 byte (module/base.py reset_parameters:
 *   to_float8(with_transpose_cache=...)); embeddings, norms and biases stay
 *   16-bit. 2 bytes per parameter either way; fp32 master weights stay in
 *   the optimizer's 12. (Without FP8 primary weights TE would add an FP8
 *   workspace and its transpose to the 16-bit weight, base.py
 *   get_fp8_workspace: 4 bytes.)
 * - Scaling state: per FP8 GEMM, 3 forward tensors (input, weight, output)
 *   and 2 backward (grad output, grad input), each an fp32 scale, scale_inv
 *   and amax history of amax_history_len entries (module/base.py
 *   set_meta_tensor; length 1024, the recipe's default and NeMo's), for the
 *   4 GEMMs of a dense layer: 4 x 5 x (1024 + 2) x 4 = 82,080 bytes per
 *   layer, kept with the weights. */
#include "predictor/pred.h"

#include <math.h>

#define GIB 1073741824.0        /* bytes */

/* ---- activations of one layer ---- */

/* Bytes per element of a GEMM input saved for the backward pass: 16-bit, or
 * Transformer Engine's FP8 cast (header). */
static double gemm_input_bytes(const struct job *j)
{
    return j->precision == JOB_PREC_FP8 ? 1.0 : 2.0;
}

/* Per element of the attention output: out-proj's saved input, and with
 * flash attention the kernel's own 16-bit O, the same tensor unless the
 * GEMM input is an FP8 copy. */
static double attn_out_bytes(const struct job *j)
{
    double g = gemm_input_bytes(j);
    return j->attention == JOB_ATTN_FLASH && g < 2.0 ? 2.0 + g : g;
}

static double attn_core_bytes(const struct model *m, const struct job *j,
                              const struct plan *p, double s, double b)
{
    double a = (double)m->heads;
    if (j->attention == JOB_ATTN_FLASH)
        return 4.0 * a * s * b;                 /* fp32 log-sum-exp */
    /* softmax out (+ mask, dropout out); the PyTorch fallback's softmax
     * keeps its fp32 output for its backward, beside the 16-bit copy the
     * next operator keeps (pred.c torch_softmax_s) */
    return ((m->dropout ? 5.0 : 2.0) +
            (pred_fused_softmax(j, m, p) ? 0.0 : 4.0)) * a * s * s * b;
}

/* torchtitan's op-level selective checkpointing (predictor/pred.c
 * op_sac_time) keeps the block's input, the outputs of wq, wv and w1 (the
 * mms it does not rebuild that a backward reads), the attention's output
 * and log-sum-exp, and with tp the reduce-scatter output after wo, which
 * the rebuilt residual add reads; all 16-bit (mm outputs are, FP8 or
 * not). Per layer and micro-batch, an MLP of width f. */
static double op_sac_bytes(const struct model *m, const struct plan *p,
                           double s, double b, double f, double core)
{
    double h = (double)m->hidden, t = (double)p->tp;
    double q = (double)model_q_dim(m), kv = (double)model_kv_dim(m);
    double sp_div = p->sp ? t : 1.0;
    double rs = p->tp > 1 ? 2.0 * s * b * h / t : 0.0;
    return 2.0 * s * b * h / sp_div + rs +
           (2.0 * s * b * (2.0 * q + kv + f) + core) / t;
}

/* Multi-head latent attention's saved tensors (Megatron-Core
 * multi_latent_attention.py): the compressed q and kv (inputs of the up
 * projections and their norms, 16-bit, q_lora + kv_lora + rope per token,
 * duplicated over tp as the down projections are) into *rep, and per tp
 * rank Q and K (heads (nope + rope)), V and the output (heads v) into
 * *split, in place of the Q, K, V and output of an ordinary layer. */
static void mla_act(const struct model *m, const struct job *j, double sb,
                    bool up_rc, double *rep, double *split)
{
    const struct model_mla *a = &m->mla;
    double n = (double)m->heads, qk = (double)(a->qk_nope_dim + a->qk_rope_dim);
    *rep = 2.0 * sb * (double)(a->q_lora_rank + a->kv_lora_rank +
                               a->qk_rope_dim);
    *split = (up_rc ? 0.0 : 2.0 * 2.0 * sb * n * qk + 2.0 * sb * n *
              (double)a->v_dim) + attn_out_bytes(j) * sb * n * (double)a->v_dim;
}

/* One layer with an MLP of width f (the dense FFN, or an MoE layer's
 * shared experts; 0 none). Megatron's selective modules (job.h,
 * transformer_config.py recompute_modules; the layers' checkpoints in
 * transformer_layer.py, multi_latent_attention.py, moe/experts.py) drop
 * what they rebuild: core_attn the attention core; layernorm the two norm
 * outputs, the QKV and MLP GEMM inputs (rebuilt from the residual input
 * kept anyway); mla_up_proj MLA's decompressed Q, K and V (rebuilt from
 * the latents); mlp (a dense layer's), shared_experts and moe (an MoE
 * layer's) the MLP's input and intermediates. */
static double act_layer_bytes(const struct model *m, const struct job *j,
                              const struct plan *p, double f, bool moe)
{
    double s = (double)j->seq / p->cp;      /* tokens per cp rank (cp.c) */
    double b = (double)p->mbs, h = (double)m->hidden;
    double t = (double)p->tp, g = gemm_input_bytes(j);
    double kv = (double)model_kv_dim(m), sbh = s * b * h;
    double sp_div = p->sp ? t : 1.0, mla_rep = 0, attn, mlp;
    double rep, ln_qkv = g * sbh, ln_mlp = f > 0 ? g * sbh : 0.0;
    double core = attn_core_bytes(m, j, p, s, b);
    bool mlp_rc = moe ? pred_rc_has(j, p, JOB_RC_SHARED_EXPERTS) ||
                        pred_rc_has(j, p, JOB_RC_MOE)
                      : pred_rc_has(j, p, JOB_RC_MLP);

    if (p->recompute == PLAN_RECOMPUTE_FULL)
        return 2.0 * sbh / sp_div;              /* the layer input only */
    if (p->recompute == PLAN_RECOMPUTE_SELECTIVE &&
        j->selective == JOB_SELECTIVE_OP)
        return op_sac_bytes(m, p, s, b, f, core);
    /* Q, K, V, the attention output; MLP: the activation's 16-bit input
     * (GeLU 2sbf, the fused SwiGLU's [gate, up] 4sbf) and fc2's input g sbf */
    attn = 2.0 * sbh + 4.0 * s * b * kv + attn_out_bytes(j) * sbh;
    if (m->mla.kv_lora_rank > 0)
        mla_act(m, j, s * b, pred_rc_has(j, p, JOB_RC_MLA_UP_PROJ), &mla_rep,
                &attn);
    mlp = ((m->glu ? 4.0 : 2.0) + g) * s * b * f;
    if (pred_rc_has(j, p, JOB_RC_LAYERNORM))
        ln_qkv = ln_mlp = 0;
    if (mlp_rc)
        mlp = ln_mlp = 0;
    if (pred_rc_has(j, p, JOB_RC_CORE_ATTN))
        core = 0;                               /* attention core recomputed */
    /* 2 norm inputs (4sbh), the QKV and MLP GEMM inputs, 2 dropout masks */
    rep = 4.0 * sbh + ln_qkv + ln_mlp + (m->dropout ? 2.0 * sbh : 0.0);
    return rep / sp_div + mla_rep + (attn + mlp + core) / t;
}

double pred_act_layer_bytes(const struct model *m, const struct job *j,
                            const struct plan *p)
{
    return act_layer_bytes(m, j, p, (double)m->ffn_hidden, false);
}

/* One MoE layer: attention, the shared experts as an MLP, the routed
 * experts (moe.c). */
static double act_moe_layer_bytes(const struct pred_ctx *c,
                                  const struct plan *p)
{
    return act_layer_bytes(&c->model, &c->job, p,
                           (double)c->model.moe.shared_ffn_hidden, true) +
           pred_moe_act_bytes(c, p);
}

double pred_inflight_chunks(const struct plan *p, int64_t microbatches,
                            int64_t rank)
{
    double chunks, cap = (double)microbatches * (double)p->vpp;
    if (p->pp == 1)
        return 1.0;                     /* gradient accumulation: one at a time */
    if (p->vpp == 1)
        chunks = (double)(p->pp - rank);
    else
        chunks = 2.0 * (double)(p->pp - rank - 1) +
                 (double)(p->vpp - 1) * (double)p->pp + 1.0;
    return fmin(chunks, fmax(cap, 1.0));
}

/* ---- parameters per GPU ---- */

double pred_layer_params(const struct model *m, const struct plan *p)
{
    double h = (double)m->hidden;
    double norm = m->norm == MODEL_NORM_LAYERNORM ? 2.0 * h : h;
    /* norms and the row-parallel biases are replicated over tp */
    double repl = 2.0 * norm + (m->bias ? 2.0 * h : 0.0);
    return ((double)model_layer_params(m) - repl) / (double)p->tp + repl;
}

/* An MoE layer's parameters on one GPU but its routed experts
 * (pred_stage_expert_params): attention and shared experts split over
 * tp, the router and norms replicated (Megatron-Core moe/router.py keeps
 * the router's weight whole on every rank). */
static double moe_layer_params(const struct model *m, const struct plan *p)
{
    double h = (double)m->hidden;
    double norm = m->norm == MODEL_NORM_LAYERNORM ? 2.0 * h : h;
    double shared = m->moe.shared_ffn_hidden
                  ? (double)model_ffn_params(m, m->moe.shared_ffn_hidden) : 0;
    double routed = (double)m->moe.experts *
                    (double)model_ffn_params(m, m->moe.ffn_hidden);
    double router = (double)model_mlp_params(m, true, false) - routed - shared;
    return ((double)model_attn_params(m) + shared) / (double)p->tp + router +
           2.0 * norm;
}

double pred_layer_params_kind(const struct model *m, const struct plan *p,
                              bool moe)
{
    return moe ? moe_layer_params(m, p) : pred_layer_params(m, p);
}

/* The MTP block but its routed experts, on the last rank: per MTP layer
 * two norms and the 2h x h projection, and an MoE layer's parameters. */
static double mtp_params(const struct model *m, const struct plan *p)
{
    double h = (double)m->hidden;
    return (double)m->mtp_layers * (2.0 * h + 2.0 * h * h / (double)p->tp +
                                    moe_layer_params(m, p));
}

double pred_stage_params(const struct model *m, const struct plan *p,
                         const struct stage_layout *s, int64_t rank)
{
    double h = (double)m->hidden, t = (double)p->tp;
    double norm = m->norm == MODEL_NORM_LAYERNORM ? 2.0 * h : h;
    double n = stage_rank_layers(s, rank), params;
    double moe = pred_stage_moe_layers(m, s, rank);     /* 0 when dense */
    params = pred_layer_params(m, p) * (n - moe);
    if (moe > 0)                /* a dense model skips the MoE counts */
        params += moe_layer_params(m, p) * moe;
    if (rank == p->pp - 1 && model_is_moe(m))
        params += mtp_params(m, p);
    double table = (double)m->vocab * h / t;    /* vocab-parallel */
    if (rank == 0)
        params += table + (double)m->position_table * h;
    if (rank == p->pp - 1) {
        params += norm;
        if (!m->tied_embeddings || p->pp > 1)  /* tied: last stage keeps a copy */
            params += table;
    }
    return params;
}

/* FP8 scaling state of one stage's layers (header). */
double pred_fp8_scaling_bytes(const struct job *j, double layers)
{
    const double gemms = 4.0, tensors = 3.0 + 2.0, history = 1024.0;
    if (j->precision != JOB_PREC_FP8)
        return 0;
    return layers * gemms * tensors * (history + 2.0) * 4.0;
}

/* ---- one stage ---- */

/* The last stage's logits at the loss, bytes per logit (the job's
 * loss_logit_bytes, the stack's): Megatron's fused vocab-parallel cross
 * entropy takes the bf16 logits as an fp32 copy and works in place on it
 * (megatron/core/tensor_parallel/cross_entropy.py, the exp-logits it saves
 * are that copy): 2 + 4 = 6. torchtitan (train.py @ 9dec370 loss_fn:
 * cross_entropy(pred.flatten(0, 1).float(), ...)) runs PyTorch's
 * log_softmax on the fp32 upcast and saves its fp32 output; its backward
 * holds that output, the nll gradient and the log_softmax input gradient
 * at once, 3 x 4 = 12, the forward's bf16 logits, fp32 copy and output
 * 2 + 4 + 4 = 10 before it. */

static double end_stage_act(const struct pred_ctx *c, const struct plan *p,
                             int64_t rank, double inflight_mb)
{
    const struct model *m = &c->model;
    double s = (double)c->job.seq / p->cp, b = (double)p->mbs;
    double h = (double)m->hidden, t = (double)p->tp, sp_div = p->sp ? t : 1.0, bytes = 0;
    if (rank == 0 && m->dropout)            /* embedding dropout mask */
        bytes += inflight_mb * s * b * h / sp_div;
    if (rank == p->pp - 1)                  /* final norm and head inputs, */
        bytes += 4.0 * s * b * h / sp_div + /* the logits at the loss (below) */
                 c->job.loss_logit_bytes * s * b * (double)m->vocab / t;
    return bytes;
}

/* With recompute, one layer is rebuilt at a time: all of it (full), or its
 * attention core (selective), on top of what the stage keeps ('act' bytes
 * per layer). */
/* The model's typical layer (an MoE layer in an MoE model). */
static double typical_act(const struct pred_ctx *c, const struct plan *p)
{
    return model_is_moe(&c->model) ? act_moe_layer_bytes(c, p)
                                   : pred_act_layer_bytes(&c->model, &c->job, p);
}

static double rebuilt_act(const struct pred_ctx *c, const struct plan *p,
                          double act)
{
    struct plan q = *p;
    if (p->recompute == PLAN_RECOMPUTE_NONE)
        return 0;
    q.recompute = PLAN_RECOMPUTE_NONE;
    return typical_act(c, &q) -
           (p->recompute == PLAN_RECOMPUTE_SELECTIVE ? act : 0.0);
}

/* Saved activations per layer of rank 'rank': an MoE model's mix of MoE
 * and dense layers, else the dense layer's. */
static double rank_act(const struct pred_ctx *c, const struct plan *p,
                       const struct stage_layout *s, int64_t rank)
{
    double n = stage_rank_layers(s, rank), moe;
    double dense = pred_act_layer_bytes(&c->model, &c->job, p);
    if (!model_is_moe(&c->model) || n <= 0)
        return dense;
    moe = pred_stage_moe_layers(&c->model, s, rank);
    return (moe * act_moe_layer_bytes(c, p) + (n - moe) * dense) / n;
}

/* ---- Megatron's block recompute (the plan's rc_layers) ---- */

/* Saved activations of rank 'rank' holding 'chunks' model chunks in flight,
 * each counted at the rank's largest chunk of cl layers. Full recompute of
 * every layer keeps each layer's input and rebuilds one layer at a time
 * (rebuilt_act). Megatron's block method (megatron/core/transformer/
 * transformer_block.py _checkpointed_forward, recompute_method 'block')
 * checkpoints layers l < N of each chunk, one checkpoint a layer, and runs
 * the others plainly: N layers keep their input, cl - N everything. The
 * backward goes through a chunk last layer first, so it frees a plain
 * layer's activations before it rebuilds the first checkpointed one: for
 * N < cl the rebuild never adds to the peak. N >= cl is every layer. */
static double stage_act(const struct pred_ctx *c, const struct plan *p,
                        const struct stage_layout *s, int64_t rank,
                        double chunks)
{
    double cl = stage_rank_chunk(s, rank), act = rank_act(c, p, s, rank);
    double n = p->rc_layers;
    struct plan q;
    if (p->recompute != PLAN_RECOMPUTE_FULL || n <= 0 || n >= cl)
        return chunks * cl * act + rebuilt_act(c, p, act);
    q = *p;
    q.recompute = PLAN_RECOMPUTE_NONE;
    q.rc_layers = 0;
    return chunks * (n * act + (cl - n) * rank_act(c, &q, s, rank));
}

/* DeepSeek-V3's MTP layers on the last rank: each in-flight micro-batch's
 * MoE layer, and the fp32 logits of one more head (compose.c add_mtp). */
static double mtp_act(const struct pred_ctx *c, const struct plan *p,
                      double inflight_mb)
{
    double s = (double)c->job.seq / p->cp, b = (double)p->mbs;
    if (c->model.mtp_layers <= 0)
        return 0;
    return (double)c->model.mtp_layers *
           (inflight_mb * act_moe_layer_bytes(c, p) +
            c->job.loss_logit_bytes * s * b * (double)c->model.vocab / p->tp);
}

/* The routed experts' model states, sharded over the expert-data-parallel
 * group (pred_expert_plan), added to out; returns their master weights
 * restored for an offloaded step. */
static double expert_states(const struct pred_ctx *c, const struct plan *p,
                            const struct stage_layout *s, int64_t rank,
                            struct pred_mem *out)
{
    struct pred_shard_mem sm;
    struct plan q;
    double e = pred_stage_expert_params(&c->model, p, s, rank);
    if (e <= 0)
        return 0;
    pred_expert_plan(p, &q);
    pred_shard_mem(c, &q, e, pred_layer_expert_params(&c->model, p), &sm);
    out->weights_bytes += sm.weights_bytes;
    out->grads_bytes += sm.grads_bytes;
    out->optimizer_bytes += sm.optimizer_bytes;
    return sm.restore_bytes;
}

/* An offloaded optimizer's step (shard.c): after the backward has freed
 * the activations and logits, the step holds the restored master weights
 * and the state windows (pred_offload_window_bytes) beside the weights and
 * gradients. The optimizer part is what that holds beyond the freed
 * activations, so that the parts still add up to the larger of the two
 * peaks. */
static double offload_step_bytes(const struct pred_mem *m, double restore,
                                 double window)
{
    double step = restore + PRED_OFFLOAD_WINDOWS * window;
    return fmax(0.0, step - (m->activations_bytes + m->embed_logits_bytes));
}

/* A stack that keeps each parameter's bf16 gradient beside the fp32
 * gradient counted above (the stack's grad_copy_bf16_bytes): DeepSpeed's
 * BF16_Optimizer holds the model's bf16 param.grad and a flat fp32 copy of
 * all of the rank's gradients (deepspeed/runtime/bf16_optimizer.py:
 * fp32_groups_gradients_flat, zeros_like of the bf16 flat group in fp32;
 * update_hp_grads adds lp.grad into it). ZeRO-2/3 shard gradients:
 * predictor/shard.c. */
static double grad_copy_bytes(const struct pred_ctx *c, const struct plan *p,
                              double params)
{
    if (c->job.precision != JOB_PREC_BF16 || p->zero >= 2)
        return 0;
    return c->job.grad_copy_bf16_bytes * params;
}

static void stage_mem(const struct pred_ctx *c, const struct plan *p,
                      const struct stage_layout *s, int64_t rank, int64_t mb,
                      struct pred_mem *out)
{
    double params = pred_stage_params(&c->model, p, s, rank);
    double chunks = pred_inflight_chunks(p, mb, rank);
    double mbs_in = ceil(chunks / (double)p->vpp), restore;
    struct pred_shard_mem sm;
    pred_shard_mem(c, p, params, pred_layer_params_kind(&c->model, p,
                   model_is_moe(&c->model)), &sm);
    out->weights_bytes = sm.weights_bytes +
                         pred_fp8_scaling_bytes(&c->job, stage_rank_layers(s, rank));
    out->grads_bytes = sm.grads_bytes + grad_copy_bytes(c, p, params);
    out->optimizer_bytes = sm.optimizer_bytes;     /* over dp * cp: cp.c */
    restore = sm.restore_bytes + expert_states(c, p, s, rank, out);
    out->activations_bytes = stage_act(c, p, s, rank, chunks);
    out->embed_logits_bytes = end_stage_act(c, p, rank, mbs_in);
    if (rank == p->pp - 1)
        out->activations_bytes += mtp_act(c, p, mbs_in);
    if (p->offload)
        out->optimizer_bytes = offload_step_bytes(out, restore,
                                                  pred_offload_window_bytes(c, p));
    out->total_bytes = out->weights_bytes + out->grads_bytes +
                       out->optimizer_bytes + out->activations_bytes +
                       out->embed_logits_bytes;
    out->worst_stage = (int)rank;
}

/* What the block method's fit gathers over the worst ranks (pred_rc_layers_
 * fit): the fewest layers per chunk, the largest chunk, the budget; for a
 * dense model the layer's activations with every layer recomputed, without
 * recompute and rebuilt, the same on every rank (< 0: per rank). */
struct block_fit { double need, limit; int32_t top;
                   double a_full, a_none, rebuilt; };

/* Rank 'rank' of plan p (full recompute of every layer), whose stage memory
 * is m: without recompute it would hold T0 = m - k (cl a_full + rebuilt) +
 * k cl a_none (k chunks in flight of cl layers, stage_act), and each layer
 * of a chunk recomputed saves k (a_none - a_full); the ceiling of the
 * shortfall over the saving, the quotient taken 1e-12 smaller so that
 * rounding can only make the answer one too small (a check by pred_memory
 * steps over it), never too large. */
static void rank_need(const struct pred_ctx *c, const struct plan *p,
                      const struct stage_layout *s, int64_t rank, int64_t mb,
                      double total, struct block_fit *f)
{
    struct plan q = *p;
    double k = pred_inflight_chunks(p, mb, rank), cl = stage_rank_chunk(s, rank);
    double a_full = f->a_full, a_none = f->a_none, rebuilt = f->rebuilt, t0, save;
    q.recompute = PLAN_RECOMPUTE_NONE;
    if (a_full < 0) {
        a_full = rank_act(c, p, s, rank);
        a_none = rank_act(c, &q, s, rank);
        rebuilt = rebuilt_act(c, p, a_full);
    }
    t0 = total - (k * cl * a_full + rebuilt) + k * cl * a_none;
    save = k * (a_none - a_full);
    f->top = (int32_t)fmax(f->top, cl);
    if (t0 > f->limit)
        f->need = fmax(f->need, save > 0
                       ? ceil((t0 - f->limit) / save * (1 - 1e-12))
                       : PLAN_MAX_DEGREE);
}

/* The peak the block method's need reads: with the optimizer offloaded,
 * the forward / backward one (the step's, offload_step_bytes, does not
 * move with the layers recomputed). */
static double act_peak(const struct plan *p, const struct pred_mem *m)
{
    return m->total_bytes - (p->offload ? m->optimizer_bytes : 0.0);
}

/* pred_memory, and with f the block method's need in the same pass. */
static void memory_pass(const struct pred_ctx *c, const struct plan *p,
                        struct pred_mem *out, struct block_fit *f)
{
    int64_t mb = plan_microbatches(p, &c->job), ranks[3];
    struct stage_layout s;
    struct pred_mem other;
    int n;
    mb = mb < 1 ? 1 : mb;
    pred_layout(c, p, &s);
    n = stage_worst_ranks(&s, ranks);
    for (int i = 0; i < n; i++) {           /* the worst stage, lowest rank */
        stage_mem(c, p, &s, ranks[i], mb, i ? &other : out);
        if (f)
            rank_need(c, p, &s, ranks[i], mb, act_peak(p, i ? &other : out), f);
        if (i && other.total_bytes > out->total_bytes)
            *out = other;
    }
    out->reserve_bytes = pred_reserve_bytes(c);
    out->usable_bytes = c->hw.hbm_bytes - out->reserve_bytes;
    out->headroom_bytes = c->headroom_bytes;
    out->margin_bytes = out->usable_bytes - out->headroom_bytes -
                        out->total_bytes;
    out->fits = out->margin_bytes >= 0;
}

void pred_memory(const struct pred_ctx *c, const struct plan *p,
                 struct pred_mem *out)
{
    memory_pass(c, p, out, NULL);
}

/* The block method's need (header), beside the memory of every layer
 * recomputed (rank_need). */
int32_t pred_rc_layers_fit(const struct pred_ctx *c, const struct plan *p,
                           int32_t *top, struct pred_mem *full)
{
    struct block_fit f = { 0, (c->hw.hbm_bytes - pred_reserve_bytes(c)) -
                              c->headroom_bytes, 0, -1, -1, -1 };
    struct plan q = *p, none;
    struct pred_mem m;
    q.recompute = PLAN_RECOMPUTE_FULL;
    q.rc_layers = 0;
    none = q;
    none.recompute = PLAN_RECOMPUTE_NONE;
    if (!model_is_moe(&c->model)) {     /* rank_act: the dense layer's */
        f.a_full = pred_act_layer_bytes(&c->model, &c->job, &q);
        f.a_none = pred_act_layer_bytes(&c->model, &c->job, &none);
        f.rebuilt = rebuilt_act(c, &q, f.a_full);
    }
    memory_pass(c, &q, full ? full : &m, &f);
    *top = f.top;
    return (int32_t)fmin(f.need, PLAN_MAX_DEGREE);
}

double pred_reserve_bytes(const struct pred_ctx *c)
{
    return c->job.reserve_bytes >= 0 ? c->job.reserve_bytes
                                     : c->hw.reserve_bytes;
}

void pred_ctx_headroom(struct pred_ctx *c, struct pred_headroom h)
{
    c->headroom_bytes = h.pct ? h.value / 100.0 * c->hw.hbm_bytes
                              : h.value * GIB;
}
