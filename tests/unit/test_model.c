/* tests/unit/test_model.c: parameter counts against published sizes. */
#include "helpers.h"

/* GPT-3 175B with Megatron's padded vocabulary 51200 (Narayanan et al. SC21
 * Table 1: 174.6 B). Hand count: 12 l h^2 + 13 l h + V h + 2048 h + 2 h. */
Test(model, gpt3_175b_is_174_6_billion)
{
    struct model m = load_model("gpt3-175b");
    cr_assert_eq(model_params(&m), 174615846912LL);
}

/* Narayanan et al. SC21 Eq. 2: P = 12 l h^2 (1 + 13/(12h) + (V + s)/(12 l h))
 * leaves out the final layer norm (2h); Table 1 states sizes to one decimal
 * (1.7 B, 3.6 B ... 1008.0 B), so the count must round to the stated size. */
Test(model, narayanan_table1_sizes)
{
    static const struct { const char *name; double billions; } t1[] = {
        { "gpt3-1.7b", 1.7 }, { "gpt3-3.6b", 3.6 }, { "gpt3-7.5b", 7.5 },
        { "gpt3-18b", 18.4 }, { "gpt3-39b", 39.1 }, { "gpt3-76b", 76.1 },
        { "gpt3-145b", 145.6 }, { "gpt3-310b", 310.1 }, { "gpt3-530b", 529.6 },
        { "gpt3-1t", 1008.0 },
    };
    for (size_t i = 0; i < sizeof t1 / sizeof t1[0]; i++) {
        struct model m = load_model(t1[i].name);
        double l = (double)m.layers, h = (double)m.hidden, v = (double)m.vocab;
        double eq2 = 12 * l * h * h * (1 + 13 / (12 * h) + (v + 2048) / (12 * l * h));
        double p = (double)model_params(&m);
        assert_rel(p, eq2 + 2 * h, 1e-13);
        /* within 1 %, or within the rounding of a two-digit label */
        cr_assert(fabs(p / 1e9 - t1[i].billions) <=
                  fmax(0.01 * t1[i].billions, 0.05 + 1e-9),
                  "%s: %.3f B vs Table 1 %.1f B", t1[i].name, p / 1e9,
                  t1[i].billions);
    }
}

/* Exact counts of the released checkpoints (model cards / config.json). */
Test(model, llama_counts_match_model_cards)
{
    struct model a = load_model("llama2-70b"), b = load_model("llama3-70b");
    struct model c = load_model("llama3-405b"), d = load_model("llama3-8b");
    struct model e = load_model("llama2-7b");
    cr_assert_eq(model_params(&a), 68976648192LL);
    cr_assert_eq(model_params(&b), 70553706496LL);
    cr_assert_eq(model_params(&c), 405853388800LL);
    cr_assert_eq(model_params(&d), 8030261248LL);
    cr_assert_eq(model_params(&e), 6738415616LL);
}

Test(model, bloom_176b)
{
    struct model m = load_model("bloom-176b");
    /* BigScience BLOOM paper Table 1: 176,247 M parameters; the model file
     * leaves out the embedding layer norm (2h = 28,672) */
    cr_assert_eq(model_params(&m) + 2 * m.hidden, 176247271424LL);
    /* trained with Megatron's inherited dropout 0.1 (tr11-176B-ml README) */
    cr_assert(m.dropout);
}

Test(model, gqa_kv_dim)
{
    struct model m = load_model("llama3-70b");
    cr_assert_eq(model_kv_dim(&m), 1024);
}

Test(model, every_preset_loads)
{
    for (size_t i = 0; i < model_presets_count; i++) {
        struct model m = load_model(model_presets[i].name);
        cr_assert_str_eq(m.name, model_presets[i].name);
        cr_assert_gt(model_params(&m), 0);
    }
}

/* Mixtures of experts against their published totals and active counts,
 * exact from the shapes (spaces/arch.c). DeepSeek-V3 (arXiv:2412.19437):
 * MLA per layer q_a 7168 x 1536 + 1536 + q_b 1536 x 128 x 192 + kv_a 7168 x
 * 576 + 512 + kv_b 512 x 128 x 256 + o 16384 x 7168 = 187,107,328; dense
 * SwiGLU 3 x 7168 x 18432; MoE 256 experts + 1 shared of 3 x 7168 x 2048
 * and a router 7168 x 256 + 256 (aux-free bias): 671.03 B, 37.55 B active
 * (published 671 B / 37 B), the MTP module 11.61 B (published 14 B with its
 * own embedding and head: 11.61 + 2 x 0.93). */
Test(model, moe_counts_match_published)
{
    struct model ds = load_model("deepseek-v3"), mx = load_model("mixtral-8x7b");
    struct model q3 = load_model("qwen3-235b-a22b"), q30 = load_model("qwen3-30b-a3b");
    struct model oss = load_model("gpt-oss-120b"), m22 = load_model("mixtral-8x22b");
    cr_assert(model_is_moe(&ds) && model_moe_layers(&ds) == 58);
    cr_assert(!model_layer_is_moe(&ds, 2) && model_layer_is_moe(&ds, 3));
    cr_assert_eq(model_attn_params(&ds), 187107328LL);
    cr_assert_eq(model_params(&ds), 671026419200LL);
    cr_assert_eq(model_active_params(&ds), 37552297472LL);
    cr_assert_eq(model_mtp_params(&ds), 11610061056LL);
    assert_rel((double)model_params(&ds) / 1e9, 671.0, 5e-3);
    /* Mixtral 8x7B (arXiv:2401.04088): 46.7 B, 12.9 B active */
    cr_assert_eq(model_params(&mx), 46702792704LL);
    cr_assert_eq(model_active_params(&mx), 12879925248LL);
    assert_rel((double)model_params(&m22) / 1e9, 141.0, 5e-3);
    assert_rel((double)model_active_params(&m22) / 1e9, 39.0, 5e-3);
    /* Qwen3 (arXiv:2505.09388 Table 2): head dim 128 beyond hidden / heads */
    cr_assert_eq(model_q_dim(&q3), 8192);
    assert_rel((double)model_params(&q3) / 1e9, 235.0, 5e-3);
    assert_rel((double)model_active_params(&q3) / 1e9, 22.2, 5e-3);
    assert_rel((double)model_params(&q30) / 1e9, 30.5, 5e-3);
    /* gpt-oss-120b (model card: 116.8 B, 5.1 B active without the
     * embedding table) */
    assert_rel((double)model_params(&oss) / 1e9, 116.8, 5e-3);
    assert_rel((double)(model_active_params(&oss) -
                        model_embedding_params(&oss)) / 1e9, 5.13, 5e-3);
    /* gpt-oss-20b (the same card: 20.9 B, 3.6 B active) */
    oss = load_model("gpt-oss-20b");
    assert_rel((double)model_params(&oss) / 1e9, 20.9, 5e-3);
    assert_rel((double)(model_active_params(&oss) -
                        model_embedding_params(&oss)) / 1e9, 3.6, 5e-3);
}

/* A dense file counts as before: attention, MLP and norms sum to the
 * layer; nothing is MoE. */
Test(model, dense_layer_is_attention_mlp_norms)
{
    struct model m = load_model("llama3-70b");
    cr_assert(!model_is_moe(&m) && model_moe_layers(&m) == 0);
    cr_assert_eq(model_layer_params(&m), model_attn_params(&m) +
                 model_mlp_params(&m, false, false) + 2 * m.hidden);
    cr_assert_eq(model_active_params(&m), model_params(&m));
    cr_assert_eq(model_q_dim(&m), m.hidden);
}

/* RoPE base: Llama 3's config.json rope_theta 500000, Llama 2's 10000; a
 * rope model that names none gets RoFormer's 10000 (Su et al. eq. 15); a
 * learned-position model has none. */
Test(model, rope_base)
{
    struct model a = load_model("llama3-8b"), b = load_model("llama2-7b");
    struct model g = load_model("gpt3-175b"), d;
    struct tpl_err err = { 0 };
    cr_assert_eq(a.rope_base, 500000.0);
    cr_assert_eq(b.rope_base, 10000.0);
    cr_assert_eq(g.rope_base, 0.0);
    /* tests/data/model-ok.cfg: rope, no rope_base */
    cr_assert_eq(model_load(&d, "tests/data/model-ok.cfg", NULL, 0, &err), 0,
                 "%s", err.msg);
    cr_assert_eq(d.rope_base, MODEL_ROPE_BASE_DEFAULT);
    cr_assert_eq(d.rope_base, 10000.0);
}

Test(model, rope_base_only_with_rope)
{
    struct model m;
    struct tpl_err err = { 0 };
    const char *set[] = { "model.rope_base=500000" };
    cr_assert_eq(model_load(&m, "gpt3-175b", set, 1, &err), TPL_ECONFIG);
    cr_assert(strstr(err.msg, "'rope_base' is only for position = \"rope\""),
              "%s", err.msg);
}
