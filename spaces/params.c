/* spaces/params.c: parameter counts, exact sums over the weight shapes
 * of a model (model.h), dense or with the parts spaces/arch.c reads: they
 * reproduce the published sizes (GPT-3 175B: 174.6 B with V = 51200,
 * Narayanan et al. SC21 Table 1; DeepSeek-V3 671.0 B, arXiv:2412.19437
 * sec. 1, 37 B active, the MTP module's 14 B apart). The MoE and MLA counts
 * follow the Hugging Face implementations (modeling_mixtral.py,
 * modeling_deepseek_v3.py, modeling_qwen3_moe.py, modeling_gpt_oss.py). */
#include "spaces/model.h"

int64_t model_head_dim(const struct model *m)
{
    return m->head_dim > 0 ? m->head_dim : m->hidden / m->heads;
}

int64_t model_q_dim(const struct model *m)
{
    return m->heads * model_head_dim(m);
}

/* ---- dense parts ---- */

int64_t model_kv_dim(const struct model *m)
{
    return m->kv_heads * model_head_dim(m);
}

static int64_t norm_params(const struct model *m)
{
    return m->norm == MODEL_NORM_LAYERNORM ? 2 * m->hidden : m->hidden;
}

/* One dense layer: attention (model_attn_params), the MLP and two norms. */
int64_t model_layer_params(const struct model *m)
{
    return model_attn_params(m) + model_mlp_params(m, false, false) +
           2 * norm_params(m);
}

int64_t model_embedding_params(const struct model *m)
{
    return m->vocab * m->hidden + m->position_table * m->hidden;
}

int64_t model_head_params(const struct model *m)
{
    return (m->tied_embeddings ? 0 : m->vocab * m->hidden) + norm_params(m);
}

/* Every layer's attention and norms; dense and MoE MLPs (all experts); the
 * MTP modules are left out, as the published totals leave them out. */
int64_t model_params(const struct model *m)
{
    int64_t moe = model_moe_layers(m), dense = m->layers - moe;
    return m->layers * (model_attn_params(m) + 2 * norm_params(m)) +
           dense * model_mlp_params(m, false, false) +
           moe * model_mlp_params(m, true, false) +
           model_embedding_params(m) + model_head_params(m);
}

/* ---- attention, MLPs, experts ---- */

/* MLA (modeling_deepseek_v3.py DeepseekV3Attention): q_a_proj h x q_lora
 * with its RMSNorm, q_b_proj q_lora x heads (nope + rope) (or q_proj h x
 * heads (nope + rope) without q_lora); kv_a_proj_with_mqa h x (kv_lora +
 * rope) with its RMSNorm over kv_lora; kv_b_proj kv_lora x heads (nope +
 * v); o_proj heads v x h. */
static int64_t mla_params(const struct model *m)
{
    const struct model_mla *a = &m->mla;
    int64_t h = m->hidden, n = m->heads, qk = a->qk_nope_dim + a->qk_rope_dim;
    int64_t q = a->q_lora_rank > 0
              ? h * a->q_lora_rank + a->q_lora_rank + a->q_lora_rank * n * qk
              : h * n * qk;
    return q + h * (a->kv_lora_rank + a->qk_rope_dim) + a->kv_lora_rank +
           a->kv_lora_rank * n * (a->qk_nope_dim + a->v_dim) + n * a->v_dim * h;
}

/* Q h x q_dim, K and V h x kv_dim (GQA: Ainslie et al. 2023), O q_dim x h;
 * with biases on Q, K, V and O, or on Q, K and V only (qkv_bias: Qwen2,
 * transformers' Qwen2Attention); the q and k head norms' weights, one
 * head_dim each (qk_norm: Qwen3Attention q_norm, k_norm). */
int64_t model_attn_params(const struct model *m)
{
    int64_t h = m->hidden, q = model_q_dim(m), kv = model_kv_dim(m);
    if (m->mla.kv_lora_rank > 0)
        return mla_params(m);
    return 2 * h * q + 2 * h * kv + (m->bias ? q + 2 * kv + h
                                     : m->qkv_bias ? q + 2 * kv : 0) +
           (m->qk_norm ? 2 * model_head_dim(m) : 0);
}

/* One FFN of width f: 2 matrices h x f, or 3 with a GLU (Shazeer 2020),
 * with biases (the GLU's gate and up: 2 f; down: h). */
static int64_t ffn_params(const struct model *m, int64_t f)
{
    int64_t h = m->hidden;
    return (m->glu ? 3 : 2) * h * f + (m->bias ? (m->glu ? 2 : 1) * f + h : 0);
}

int64_t model_ffn_params(const struct model *m, int64_t f)
{
    return ffn_params(m, f);
}

/* The router: h x experts (with a bias when the model has biases: GPT-OSS;
 * or DeepSeek-V3's aux-free balancing bias, e_score_correction_bias). */
static int64_t router_params(const struct model *m)
{
    int64_t e = m->moe.experts;
    bool bias = m->bias || m->moe.balance == MODEL_BALANCE_AUX_FREE;
    return m->hidden * e + (bias ? e : 0);
}

int64_t model_mlp_params(const struct model *m, bool moe, bool active)
{
    const struct model_moe *e = &m->moe;
    if (!moe)
        return ffn_params(m, m->ffn_hidden);
    return (active ? e->topk : e->experts) * ffn_params(m, e->ffn_hidden) +
           (e->shared_ffn_hidden ? ffn_params(m, e->shared_ffn_hidden) : 0) +
           router_params(m);
}

int64_t model_active_params(const struct model *m)
{
    int64_t moe = model_moe_layers(m), dense = m->layers - moe;
    return m->layers * (model_attn_params(m) + 2 * norm_params(m)) +
           dense * model_mlp_params(m, false, true) +
           moe * model_mlp_params(m, true, true) +
           model_embedding_params(m) + model_head_params(m);
}

/* DeepSeek-V3's MTP module (arXiv:2412.19437 sec. 2.2, Fig. 3): two
 * RMSNorms and a projection 2h x h before one transformer layer (MoE when
 * the last layer is), sharing the embedding and the output head. */
int64_t model_mtp_params(const struct model *m)
{
    bool moe = model_layer_is_moe(m, m->layers - 1);
    return m->mtp_layers * (2 * m->hidden + 2 * m->hidden * m->hidden +
                            model_attn_params(m) + 2 * norm_params(m) +
                            model_mlp_params(m, moe, false));
}

