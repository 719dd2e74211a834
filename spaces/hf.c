/* spaces/hf.c: a Hugging Face config.json as a model file (spaces/README.md
 * "Hugging Face config.json"). The JSON is read with jansson and mapped field
 * by field, per architecture, into the text of a model file, which then goes
 * the way every model file goes (--set, model_read's checks). Field names
 * and defaults are those of the transformers configuration classes:
 * transformers/models/llama/configuration_llama.py (LlamaConfig), mistral/,
 * qwen2/, qwen3/ (same fields), gpt2/configuration_gpt2.py (GPT2Config),
 * gpt_neox/configuration_gpt_neox.py (GPTNeoXConfig). */
#include "spaces/model.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* What an architecture's config calls each field, and what it fixes. */
struct hf_family {
    const char *arch;                   /* architectures[0] */
    const char *layers, *hidden, *heads, *kv_heads, *ffn, *vocab;
    const char *positions;              /* learned table rows, or NULL */
    const char *rope_base;              /* RoPE theta key, or NULL */
    const char *const *dropouts;        /* any > 0: dropout runs */
    double dropout_default;             /* of each, when absent */
    int64_t ffn_per_hidden;             /* ffn absent: this x hidden; 0: required */
    bool glu, tied_default, bias;
    const char *norm;                   /* the model file's word */
    const char *note;                   /* what the model file cannot say */
    /* mixture of experts (spaces/arch.c): NULL for a dense family */
    const char *experts, *topk, *moe_ffn;
    bool qkv_bias;                      /* Q, K, V biases only (Qwen2) */
    bool deepseek;                      /* MLA, shared experts, dense-first
                                           layers, MTP (put_deepseek) */
};

static const char *const llama_drop[] = { "attention_dropout", NULL };
static const char *const gpt2_drop[] = { "resid_pdrop", "attn_pdrop",
                                         "embd_pdrop", NULL };
static const char *const neox_drop[] = { "attention_dropout", "hidden_dropout",
                                         NULL };

#define LLAMA(a, note) { a, "num_hidden_layers", "hidden_size",               \
    "num_attention_heads", "num_key_value_heads", "intermediate_size",       \
    "vocab_size", NULL, "rope_theta", llama_drop, 0, 0, true, false, false,  \
    "rmsnorm", note, NULL, NULL, NULL, false, false }
/* Mixtral and Qwen3-MoE: every layer MoE, softmax router with an auxiliary
 * balancing loss (transformers' MixtralSparseMoeBlock, Qwen3MoeSparseMoeBlock
 * with decoder_sparse_step 1) */
#define LLAMA_MOE(a, note, e, k, f) { a, "num_hidden_layers", "hidden_size",  \
    "num_attention_heads", "num_key_value_heads", "intermediate_size",       \
    "vocab_size", NULL, "rope_theta", llama_drop, 0, 0, true, false, false,  \
    "rmsnorm", note, e, k, f, false, false }

static const struct hf_family families[] = {
    LLAMA("LlamaForCausalLM", NULL),
    LLAMA("MistralForCausalLM", "sliding-window attention is timed as full "
          "causal attention"),
    /* Qwen2Attention: q/k/v_proj with bias=True, o_proj and the MLP without
     * (transformers models/qwen2/modeling_qwen2.py) */
    { "Qwen2ForCausalLM", "num_hidden_layers", "hidden_size",
      "num_attention_heads", "num_key_value_heads", "intermediate_size",
      "vocab_size", NULL, "rope_theta", llama_drop, 0, 0, true, false, false,
      "rmsnorm", NULL, NULL, NULL, NULL, true, false },
    LLAMA("Qwen3ForCausalLM", NULL),
    LLAMA_MOE("MixtralForCausalLM", "sliding-window attention is timed as "
              "full causal attention", "num_local_experts",
              "num_experts_per_tok", "intermediate_size"),
    LLAMA_MOE("Qwen3MoeForCausalLM", "mlp_only_layers and decoder_sparse_step "
              "other than 1 are not read", "num_experts", "num_experts_per_tok",
              "moe_intermediate_size"),
    { "GPT2LMHeadModel", "n_layer", "n_embd", "n_head", NULL, "n_inner",
      "vocab_size", "n_positions", NULL, gpt2_drop, 0.1, 4, false, true, true,
      "layernorm", NULL, NULL, NULL, NULL, false, false },
    { "GPTNeoXForCausalLM", "num_hidden_layers", "hidden_size",
      "num_attention_heads", NULL, "intermediate_size", "vocab_size", NULL,
      "rotary_emb_base", neox_drop, 0, 0, false, false, true, "layernorm",
      "partial rotary (rotary_pct) and the parallel residual are not "
      "modelled; neither changes the counts", NULL, NULL, NULL, false, false },
    /* DeepSeek-V3 (configuration_deepseek.py of deepseek-ai/DeepSeek-V3):
     * MLA, n_routed_experts top num_experts_per_tok, n_shared_experts of
     * moe_intermediate_size, first_k_dense_replace dense layers of
     * intermediate_size, sigmoid scores with the aux-free bias (noaux_tc),
     * num_nextn_predict_layers MTP layers */
    { "DeepseekV3ForCausalLM", "num_hidden_layers", "hidden_size",
      "num_attention_heads", "num_key_value_heads", "intermediate_size",
      "vocab_size", NULL, "rope_theta", llama_drop, 0, 0, true, false, false,
      "rmsnorm", "YaRN rope_scaling (context extension) is not read",
      "n_routed_experts", "num_experts_per_tok", "moe_intermediate_size",
      false, true },
};

/* Mixture-of-experts architectures not mapped yet (Qwen2-MoE's shared
 * expert gate: use a preset). */
static const char *const moe_archs[] = {
    "Qwen2MoeForCausalLM", NULL,
};

struct hf_out {                 /* the model file's text being written */
    char *buf;
    size_t n, len;
};

static void put(struct hf_out *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void put(struct hf_out *o, const char *fmt, ...)
{
    va_list ap;
    int k;
    va_start(ap, fmt);
    k = vsnprintf(o->buf + o->len, o->n - o->len, fmt, ap);
    va_end(ap);
    if (k > 0)
        o->len = o->len + (size_t)k < o->n ? o->len + (size_t)k : o->n - 1;
}

/* Letters, digits, '.', '_' and '-' of s; others become '_'. */
static void clean(const char *s, char *out, size_t n)
{
    size_t i = 0;
    for (; s[i] && i + 1 < n; i++)
        out[i] = (strchr("._-", s[i]) || (s[i] >= '0' && s[i] <= '9') ||
                  ((s[i] | 32) >= 'a' && (s[i] | 32) <= 'z')) ? s[i] : '_';
    out[i] = '\0';
}

/* The family of architectures[0] (or model_type's capitalised guess). */
static int family_of(const json_t *root, const char *path,
                     const struct hf_family **out, struct tpl_err *err)
{
    const char *arch = json_string_value(json_array_get(
                       json_object_get(root, "architectures"), 0));
    char a[64];
    if (!arch)
        return tpl_errorf(err, TPL_ECONFIG, "%s: missing field 'architectures' "
                          "(a list naming the model class)", path);
    for (int i = 0; moe_archs[i]; i++)
        if (!strcmp(arch, moe_archs[i]))
            return tpl_errorf(err, TPL_ECONFIG, "%s: 'architectures' %s is a "
                              "mixture of experts whose config.json trainplan "
                              "does not map yet (see 'trainplan list models' "
                              "for presets)", path, arch);
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
        if (!strcmp(arch, families[i].arch)) {
            *out = &families[i];
            return 0;
        }
    clean(arch, a, sizeof a);
    return tpl_errorf(err, TPL_ECONFIG, "%s: unsupported 'architectures' %s "
                      "(supported: LlamaForCausalLM, MistralForCausalLM, "
                      "Qwen2ForCausalLM, Qwen3ForCausalLM, MixtralForCausalLM, "
                      "Qwen3MoeForCausalLM, DeepseekV3ForCausalLM, "
                      "GPT2LMHeadModel, GPTNeoXForCausalLM)", path, a);
}

struct hf_read {                /* one config being read */
    const json_t *root;
    const char *path;
    char missing[256];          /* "'a', 'b'" */
    char bad[160];              /* the first ill-typed field */
};

/* An integer field in [1, 2^30]; absent: 'dflt' when > 0, else missing. */
static int64_t get_int(struct hf_read *r, const char *key, int64_t dflt)
{
    const json_t *v = key ? json_object_get(r->root, key) : NULL;
    size_t len = strlen(r->missing);
    char quoted[72];
    snprintf(quoted, sizeof quoted, "'%s'", key ? key : "");
    if (!v || json_is_null(v)) {
        if (dflt <= 0 && !strstr(r->missing, quoted))   /* each name once */
            snprintf(r->missing + len, sizeof r->missing - len, "%s%s",
                     len ? ", " : "", quoted);
        return dflt > 0 ? dflt : 1;
    }
    if (json_is_integer(v) && json_integer_value(v) >= 1 &&
        json_integer_value(v) <= (1 << 30))
        return json_integer_value(v);
    if (!r->bad[0])
        snprintf(r->bad, sizeof r->bad, "'%s' must be an integer in [1, "
                 "1073741824]", key);
    return 1;
}

/* A number field >= 0, 'dflt' when absent. */
static double get_num(struct hf_read *r, const char *key, double dflt)
{
    const json_t *v = json_object_get(r->root, key);
    if (!v || json_is_null(v))
        return dflt;
    if (json_is_number(v) && json_number_value(v) >= 0)
        return json_number_value(v);
    if (!r->bad[0])
        snprintf(r->bad, sizeof r->bad, "'%s' must be a number >= 0", key);
    return dflt;
}

static bool get_bool(struct hf_read *r, const char *key, bool dflt)
{
    const json_t *v = json_object_get(r->root, key);
    if (!v || json_is_null(v))
        return dflt;
    if (json_is_boolean(v))
        return json_is_true(v);
    if (!r->bad[0])
        snprintf(r->bad, sizeof r->bad, "'%s' must be true or false", key);
    return dflt;
}

/* The shapes. GPT-2's n_inner is null for 4 n_embd (GPT2Config). */
static void put_sizes(struct hf_out *o, struct hf_read *r,
                      const struct hf_family *f)
{
    /* one at a time: 'missing' lists them in this order */
    int64_t layers = get_int(r, f->layers, 0), hidden = get_int(r, f->hidden, 0);
    int64_t heads = get_int(r, f->heads, 0);
    int64_t kv = get_int(r, f->kv_heads, heads);
    int64_t ffn = get_int(r, f->ffn, f->ffn_per_hidden * hidden);
    int64_t vocab = get_int(r, f->vocab, 0);
    put(o, "  layers = %lld;  # %s\n  hidden = %lld;  # %s\n"
        "  heads = %lld;  # %s\n", (long long)layers, f->layers,
        (long long)hidden, f->hidden, (long long)heads, f->heads);
    put(o, "  kv_heads = %lld;  # %s\n  ffn_hidden = %lld;  # %s\n"
        "  vocab = %lld;  # %s\n", (long long)kv, f->kv_heads ? f->kv_heads
        : "= heads", (long long)ffn, f->ffn, (long long)vocab, f->vocab);
    if (f->positions)
        put(o, "  position = \"learned\";\n  position_table = %lld;  # %s\n",
            (long long)get_int(r, f->positions, 0), f->positions);
    else
        put(o, "  position = \"rope\";\n  position_table = 0;\n"
            "  rope_base = %.17g;  # %s\n", get_num(r, f->rope_base, 10000),
            f->rope_base);
}

/* The kinds. Dropout defaults: GPT-2 0.1, the others 0. */
static void put_kinds(struct hf_out *o, struct hf_read *r,
                      const struct hf_family *f)
{
    bool dropout = false;
    for (int i = 0; f->dropouts[i]; i++)
        dropout |= get_num(r, f->dropouts[i], f->dropout_default) > 0;
    put(o, "  glu = %s;\n  tied_embeddings = %s;  # tie_word_embeddings\n"
        "  norm = \"%s\";\n  bias = %s;\n  dropout = %s;\n",
        f->glu ? "true" : "false",
        get_bool(r, "tie_word_embeddings", f->tied_default) ? "true" : "false",
        f->norm,
        f->bias || get_bool(r, "attention_bias", false) ? "true" : "false",
        dropout ? "true" : "false");
    if (f->qkv_bias)
        put(o, "  qkv_bias = true;  # %s: biases on q/k/v_proj only\n",
            f->arch);
    if (!strncmp(f->arch, "Qwen3", 5))  /* modeling_qwen3(_moe).py */
        put(o, "  qk_norm = true;  # %s: RMSNorm over each q and k head\n",
            f->arch);
}

/* The optional fields: a head width other than hidden / heads (Qwen3's
 * head_dim) and the experts. */
/* DeepSeek-V3's MLA ranks and head widths, shared experts (each of
 * moe_intermediate_size), dense-first layers, group-limited routing
 * (n_group, topk_group), router and MTP. */
static void put_deepseek(struct hf_out *o, struct hf_read *r, int64_t moe_ffn)
{
    static const char *const mla[] = { "q_lora_rank", "kv_lora_rank",
        "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim", NULL };
    const char *scoring = json_string_value(json_object_get(r->root,
                                                            "scoring_func"));
    const char *topk = json_string_value(json_object_get(r->root,
                                                         "topk_method"));
    for (int i = 0; mla[i]; i++)
        put(o, "  %s = %lld;  # %s\n", mla[i], (long long)get_int(r, mla[i], 0),
            mla[i]);
    put(o, "  moe_shared_ffn_hidden = %lld;  # n_shared_experts x "
        "moe_intermediate_size\n", (long long)(get_int(r, "n_shared_experts", 1)
        * moe_ffn));
    put(o, "  moe_dense_first = %lld;  # first_k_dense_replace\n",
        (long long)get_num(r, "first_k_dense_replace", 0));
    put(o, "  moe_layer_freq = %lld;  # moe_layer_freq\n",
        (long long)get_int(r, "moe_layer_freq", 1));
    put(o, "  moe_groups = %lld;  # n_group\n  moe_group_topk = %lld;  # "
        "topk_group\n", (long long)get_int(r, "n_group", 1),
        (long long)get_int(r, "topk_group", get_int(r, "n_group", 1)));
    put(o, "  moe_router = \"%s\";  # scoring_func\n  moe_balance = \"%s\";  "
        "# topk_method\n", scoring && !strcmp(scoring, "softmax") ? "softmax"
        : "sigmoid", topk && !strcmp(topk, "noaux_tc") ? "aux_free" : "aux_loss");
    put(o, "  mtp_layers = %lld;  # num_nextn_predict_layers\n",
        (long long)get_num(r, "num_nextn_predict_layers", 0));
}

static void put_arch(struct hf_out *o, struct hf_read *r,
                     const struct hf_family *f)
{
    const json_t *hd = json_object_get(r->root, "head_dim");
    int64_t hidden = get_int(r, f->hidden, 0), heads = get_int(r, f->heads, 0);
    if (hd && !json_is_null(hd) && get_int(r, "head_dim", 0) * heads != hidden)
        put(o, "  head_dim = %lld;  # head_dim\n",
            (long long)get_int(r, "head_dim", 0));
    if (!f->experts)
        return;
    put(o, "  experts = %lld;  # %s\n", (long long)get_int(r, f->experts, 0),
        f->experts);
    put(o, "  moe_topk = %lld;  # %s\n", (long long)get_int(r, f->topk, 0),
        f->topk);
    put(o, "  moe_ffn_hidden = %lld;  # %s\n", (long long)get_int(r, f->moe_ffn,
        0), f->moe_ffn);
    if (f->deepseek)
        put_deepseek(o, r, get_int(r, f->moe_ffn, 0));
    else
        put(o, "  moe_router = \"softmax\";\n  moe_balance = \"aux_loss\";\n");
}

int model_hf_text(const char *json, const char *path, const char *name,
                  char *out, size_t n, struct tpl_err *err)
{
    json_error_t jerr;
    json_t *root = json_loads(json, 0, &jerr);
    const struct hf_family *f = NULL;
    struct hf_read r = { .root = root, .path = path };
    struct hf_out o = { out, n, 0 };
    char nm[64], ar[64];
    int rc;
    if (!root || !json_is_object(root)) {
        json_decref(root);
        return tpl_errorf(err, TPL_ECONFIG, "%s:%d: not a JSON object%s%.80s",
                          path, root ? 1 : jerr.line, root ? "" : ": ",
                          root ? "" : jerr.text);
    }
    if ((rc = family_of(root, path, &f, err)) == 0) {
        clean(name, nm, sizeof nm);
        clean(f->arch, ar, sizeof ar);
        put(&o, "# %s: from a Hugging Face config.json (%s)\n", nm, ar);
        if (f->note)
            put(&o, "# not expressed: %s\n", f->note);
        put(&o, "model: {\n  name = \"%s\";\n  description = \"%s (config.json)"
            "\";\n", nm, ar);
        put_sizes(&o, &r, f);
        put_kinds(&o, &r, f);
        put_arch(&o, &r, f);
        put(&o, "};\n");
        rc = r.missing[0] ? tpl_errorf(err, TPL_ECONFIG, "%s: missing field%s "
                                       "%s (%s)", path, strchr(r.missing, ',') ?
                                       "s" : "", r.missing, f->arch)
           : r.bad[0] ? tpl_errorf(err, TPL_ECONFIG, "%s: %s", path, r.bad)
           : 0;
    }
    json_decref(root);
    return rc;
}

/* The model's name for a config.json: its folder's name when the file is
 * called config.json (as Hugging Face repositories have it), else the file
 * name without ".json". */
void model_hf_name(const char *path, char *out, size_t n)
{
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    const char *dir = base;
    size_t len = strlen(base) - 5;                      /* less ".json" */
    if (!strcmp(base, "config.json") && base > path) {
        for (dir = base - 1; dir > path && dir[-1] != '/'; dir--)
            ;
        len = (size_t)(base - 1 - dir);
    }
    snprintf(out, n, "%.*s", (int)(len < n ? len : n - 1), dir);
    if (!out[0])
        snprintf(out, n, "config");
}

