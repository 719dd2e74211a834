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
