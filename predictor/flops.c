/* predictor/flops.c: FLOPs per iteration, the numerators of MFU and HFU
 * (flops.h). Narayanan et al. SC21 Eq. 3 counts each layer's GEMMs and the
 * attention scores, forward plus a backward twice as costly; the attention
 * scores are counted causal, half of Eq. 3's dense 4 s h per token, as
 * current Megatron-LM's num_floating_point_operations does
 * (megatron/training/training.py on dev @ d48bd6be0a: the B s^2 C term with
 * C = 6 q, i.e. 3 x 2 s q per token; ../shared/data/RUNS.md, "Megatron-Core
 * model FLOPs") and as the time model charges it (pred.c). At seq 2048 the
 * difference is small; at 131,072 tokens dense counting would credit about
 * half the attention FLOPs for work a causal mask skips. For
 * mixtures of experts, multi-head latent attention and multi-token
 * prediction the terms follow Megatron-LM's num_floating_point_operations
 * (megatron/training/training.py; Megatron-Bridge's training/utils/
 * flop_utils.py): a token's routed top-k experts and the shared ones, not
 * the router; MLA's projections with their norms; each MTP layer as one
 * more layer plus its two norms and 2h x h projection, and one more
 * logits GEMM. */
#include "predictor/flops.h"

/* QK^T and AV, forward, per token, at 2 FLOPs per multiply-add: scores of
 * qk dims and values of v dims per head over the s / 2 keys a causal mask
 * leaves on average (dense: 2 s heads (qk + v), Eq. 3's 4 s h). */
static double core_flops(const struct model *m, double s, double qk, double v)
{
    return s * (double)m->heads * (qk + v);
}

/* MLA's projections per token, forward (megatron's q_term and kv term):
 * q down and up (or one q projection), kv down with the rope key, kv up,
 * out; the +1s are the two low-rank RMSNorms. */
static double mla_flops(const struct model *m)
{
    const struct model_mla *a = &m->mla;
    double h = (double)m->hidden, n = (double)m->heads;
    double qk = (double)(a->qk_nope_dim + a->qk_rope_dim), r = (double)a->q_lora_rank;
    double kv = (double)a->kv_lora_rank;
    double q = r > 0 ? r * (h + n * qk + 1.0) : h * n * qk;
    return 2.0 * (q + kv * (h + n * (double)(a->qk_nope_dim + a->v_dim) + 1.0) +
                  h * (double)a->qk_rope_dim + n * (double)a->v_dim * h);
}

/* Attention of one layer per token, forward: projections and core. */
static double attn_flops(const struct model *m, double s)
{
    const struct model_mla *a = &m->mla;
    double h = (double)m->hidden, q = (double)model_q_dim(m);
    double kv = (double)model_kv_dim(m), d = (double)model_head_dim(m);
    if (a->kv_lora_rank > 0)
        return mla_flops(m) +
               core_flops(m, s, (double)(a->qk_nope_dim + a->qk_rope_dim),
                          (double)a->v_dim);
    return 2.0 * h * (q + 2.0 * kv) + 2.0 * q * h + core_flops(m, s, d, d);
}

/* The MLP of one layer per token, forward: 2 (or 3 with a GLU) GEMMs of
 * h x f; an MoE layer runs its top-k experts and its shared ones. */
static double mlp_flops(const struct model *m, bool moe)
{
    double h = (double)m->hidden, g = m->glu ? 3.0 : 2.0;
    if (!moe)
        return 2.0 * g * h * (double)m->ffn_hidden;
    return 2.0 * g * h * ((double)m->moe.topk * (double)m->moe.ffn_hidden +
                          (double)m->moe.shared_ffn_hidden);
}

/* Forward FLOPs per token of every layer, the MTP layers included (an MoE
 * layer when the last layer is one, as Megatron counts them). */
static double layers_fwd_flops_per_token(const struct model *m, double s)
{
    double moe = (double)model_moe_layers(m), dense = (double)m->layers - moe;
    double mtp = (double)m->mtp_layers, h = (double)m->hidden;
    bool last_moe = model_layer_is_moe(m, m->layers - 1);
    return ((double)m->layers + mtp) * attn_flops(m, s) +
           dense * mlp_flops(m, false) + moe * mlp_flops(m, true) +
           mtp * (mlp_flops(m, last_moe) + 2.0 * (3.0 * h + 2.0 * h * h));
}

double pred_model_flops(const struct model *m, const struct job *j)
{
    double tokens = (double)j->gbs * (double)j->seq, s = (double)j->seq;
    double logits = 2.0 * (double)m->hidden * (double)m->vocab *
                    (1.0 + (double)m->mtp_layers);
    /* forward + backward = 3 x forward (backward GEMMs are twice forward) */
    return 3.0 * tokens * (layers_fwd_flops_per_token(m, s) + logits);
}

double pred_hw_flops(const struct model *m, const struct job *j,
                     enum plan_recompute recompute)
{
    double tokens = (double)j->gbs * (double)j->seq, s = (double)j->seq;
    double d = (double)model_head_dim(m), extra = 0;
    if (recompute == PLAN_RECOMPUTE_FULL)       /* one more forward of every layer */
        extra = layers_fwd_flops_per_token(m, s);
    else if (recompute == PLAN_RECOMPUTE_SELECTIVE &&
             j->selective == JOB_SELECTIVE_OP)  /* wk, wo, w3 (w2): pred.c */
        extra = (double)m->layers * 2.0 * (double)m->hidden *
                ((double)model_kv_dim(m) + (double)model_q_dim(m) +
                 (double)m->ffn_hidden);
    else if (recompute == PLAN_RECOMPUTE_SELECTIVE) /* the attention core's forward */
        extra = (double)m->layers * core_flops(m, s, d, d);
    return pred_model_flops(m, j) + tokens * extra;
}
