/* spaces/model.h: a dense decoder-only transformer as a model file describes
 * it (spaces/README.md), its loader and its parameter counts. */
#ifndef SPACE_MODEL_H
#define SPACE_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/conf.h"
#include "common/err.h"

enum model_norm { MODEL_NORM_LAYERNORM, MODEL_NORM_RMSNORM, MODEL_NORM_COUNT };
enum model_pos  { MODEL_POS_LEARNED, MODEL_POS_ROPE, MODEL_POS_ALIBI,
                  MODEL_POS_COUNT };

enum model_router { MODEL_ROUTER_SOFTMAX, MODEL_ROUTER_SIGMOID,
                    MODEL_ROUTER_COUNT };
enum model_balance { MODEL_BALANCE_AUX, MODEL_BALANCE_SEQ_AUX,
                     MODEL_BALANCE_AUX_FREE, MODEL_BALANCE_NONE,
                     MODEL_BALANCE_COUNT };

/* Mixture of experts (spaces/arch.c): experts 0 is a dense model. Layer i
 * (from 0) is an MoE layer when i >= dense_first and (i - dense_first) is
 * a multiple of layer_freq; the others are dense with ffn_hidden. */
struct model_moe {
    int64_t experts;            /* routed experts per MoE layer */
    int64_t topk;               /* experts each token is routed to */
    int64_t ffn_hidden;         /* each routed expert's FFN width */
    int64_t shared_ffn_hidden;  /* all shared experts together, 0 none */
    int64_t dense_first;        /* leading dense layers (first_k_dense) */
    int64_t layer_freq;         /* then every layer_freq-th layer is MoE */
    int64_t groups;             /* expert groups of the router (1: none) */
    int64_t group_topk;         /* groups a token may use (Megatron
                                   --moe-router-group-topk; = groups: all) */
    enum model_router router;
    enum model_balance balance;
    double capacity_factor;     /* 0: dropless */
};

/* Multi-head latent attention (DeepSeek-V2, arXiv:2405.04434 sec. 2.1):
 * kv_lora_rank 0 is none. */
struct model_mla {
    int64_t q_lora_rank;        /* 0: queries not compressed */
    int64_t kv_lora_rank;
    int64_t qk_nope_dim, qk_rope_dim, v_dim;    /* per head */
};

struct model {                  /* a plain value: nothing to free */
    char name[64];
    char description[160];
    int64_t layers, hidden, heads, kv_heads, ffn_hidden, vocab;
    int64_t position_table;     /* rows of a learned position table, else 0 */
    bool glu, tied_embeddings, bias, dropout;
    /* optional: biases on the Q, K and V projections only (Qwen2:
     * transformers' Qwen2Attention q/k/v_proj bias=True, o_proj False;
     * Megatron-LM --add-qkv-bias); 'bias' puts them on every projection */
    bool qkv_bias;
    /* optional: an RMSNorm over each query and key head before the
     * attention (Qwen3: transformers models/qwen3/modeling_qwen3.py
     * Qwen3Attention q_norm, k_norm, RMSNorm(head_dim); Megatron-LM
     * --qk-layernorm): 2 x head_dim weights a layer */
    bool qk_norm;
    enum model_norm norm;
    enum model_pos position;
    /* optional in a file (spaces/arch.c): 0 where absent */
    int64_t head_dim;           /* per attention head (kv_channels); 0:
                                   hidden / heads */
    int64_t sliding_window;     /* tokens a sliding-window layer sees, 0 none */
    int64_t sliding_every;      /* layer i slides when i % sliding_every == 0 */
    int64_t mtp_layers;         /* multi-token-prediction layers (DeepSeek-V3) */
    struct model_moe moe;
    struct model_mla mla;
    double rope_base;           /* RoPE base theta (position "rope"), else 0 */
};

/* RoPE's base when a file names none: Su et al., "RoFormer", arXiv:2104.09864,
 * eq. 15 (theta_i = 10000^(-2(i-1)/d)); Megatron-LM's --rotary-base default
 * (megatron/training/arguments.py). */
#define MODEL_ROPE_BASE_DEFAULT 10000.0

/* Limits that keep every count well inside 64-bit and double precision. */
#define MODEL_MAX_LAYERS  (1 << 14)
#define MODEL_MAX_HIDDEN  (1 << 17)
#define MODEL_MAX_VOCAB   (1 << 22)
#define MODEL_MAX_FFN     (1 << 20)

extern const struct conf_preset model_presets[];
extern const size_t model_presets_count;

/* Load a preset name or a file path, apply the --set assignments of section
 * "model" from 'sets' (n_sets of them; others are skipped) and validate.
 * Returns 0 or TPL_ECONFIG / TPL_EIO / TPL_EUSAGE with 'err' filled. */
int model_load(struct model *m, const char *name_or_path,
               const char *const *sets, int n_sets, struct tpl_err *err);
/* A Hugging Face config.json's text 'json' (read from 'path', named 'name')
 * as the text of a model file, into out (n bytes; 4096 is plenty): 0, or
 * TPL_ECONFIG naming the path and every missing field, the first ill-typed
 * one, or the unsupported architecture (spaces/hf.c). model_load takes a
 * path ending in ".json" this way. */
int model_hf_text(const char *json, const char *path, const char *name,
                  char *out, size_t n, struct tpl_err *err);

/* The name of a config.json's model: its folder's name when the file is
 * config.json, else the file name without ".json". */
void model_hf_name(const char *path, char *out, size_t n);

/* Validate an already parsed tree into m. */
int model_read(struct model *m, const struct conf *c, struct tpl_err *err);

const char *model_norm_name(enum model_norm n);
const char *model_pos_name(enum model_pos p);

const char *model_router_name(enum model_router r);
const char *model_balance_name(enum model_balance b);

/* ---- architecture (spaces/arch.c) ---- */
/* The optional fields of a model group (head_dim, experts, MLA, ...), read
 * and checked against the dense fields. */
int model_read_arch(struct model *m, const struct conf_group *g,
                    struct tpl_err *err);
bool model_is_moe(const struct model *m);
bool model_layer_is_moe(const struct model *m, int64_t layer);
int64_t model_moe_layers(const struct model *m);      /* how many are MoE */
int64_t model_head_dim(const struct model *m);        /* head_dim or h / heads */
int64_t model_q_dim(const struct model *m);           /* heads * head dim */
int64_t model_attn_params(const struct model *m);     /* one layer's attention */
/* One MLP block's parameters: dense (moe false) or MoE, all experts
 * (active false) or those one token uses (active true: top-k routed and
 * the shared ones, with the router). */
int64_t model_mlp_params(const struct model *m, bool moe, bool active);
/* Parameters one token uses (MoE: top-k experts), MTP layers left out as
 * in model_params. */
int64_t model_active_params(const struct model *m);
/* One FFN of width f (2 or, with a GLU, 3 h x f matrices, and biases):
 * a dense MLP, one routed expert or the shared experts. */
int64_t model_ffn_params(const struct model *m, int64_t f);
int64_t model_mtp_params(const struct model *m);      /* the MTP modules */

/* ---- parameter counts (exact, from the shapes) ---- */
int64_t model_kv_dim(const struct model *m);          /* kv_heads * head dim */
int64_t model_layer_params(const struct model *m);    /* one transformer layer */
int64_t model_embedding_params(const struct model *m);/* token (+ position) table */
int64_t model_head_params(const struct model *m);     /* LM head (0 when tied) + final norm */
int64_t model_params(const struct model *m);          /* all of it */

#endif /* SPACE_MODEL_H */
