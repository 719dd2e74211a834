/* tests/unit/test_hf.c: Hugging Face config.json import (spaces/hf.c)
 * against published parameter counts and the presets made from the same
 * configs. The configs under tests/data/hf/ were written for these tests
 * with the public values of each checkpoint's config.json. */
#include "helpers.h"

static struct model load_hf(const char *path)
{
    struct model m;
    struct tpl_err err = { 0 };
    cr_assert_eq(model_load(&m, path, NULL, 0, &err), 0, "%s: %s", path, err.msg);
    return m;
}

/* Llama-3-8B's config.json is the llama3-8b preset, field by field. */
Test(hf, llama3_8b_is_the_preset)
{
    struct model a = load_hf("tests/data/hf/llama-3-8b/config.json");
    struct model b = load_model("llama3-8b");
    cr_assert_str_eq(a.name, "llama-3-8b");
    cr_assert_eq(model_params(&a), 8030261248LL);    /* model card: 8.03 B */
    cr_assert_eq(model_params(&a), model_params(&b));
    cr_assert_eq(a.rope_base, 500000.0);
    cr_assert(a.glu && !a.tied_embeddings && !a.bias && !a.dropout);
    cr_assert_eq(a.norm, MODEL_NORM_RMSNORM);
    cr_assert_eq(a.kv_heads, 8);
}

/* GPT-2 small: 124,439,808 parameters (the count of the released
 * checkpoint: 12 x 7,087,872 per layer + 50257 x 768 + 1024 x 768 + the
 * final LayerNorm 2 x 768, tied head); n_inner null is 4 x n_embd;
 * GPT2Config's dropouts default to 0.1. */
Test(hf, gpt2_small)
{
    struct model m = load_hf("tests/data/hf/gpt2/config.json");
    cr_assert_eq(model_params(&m), 124439808LL);
    cr_assert_eq(m.ffn_hidden, 3072);
    cr_assert_eq(m.position, MODEL_POS_LEARNED);
    cr_assert_eq(m.position_table, 1024);
    cr_assert(m.tied_embeddings && m.bias && m.dropout && !m.glu);
}

/* Pythia-1B (GPT-NeoX): 1,011,781,632 parameters, the total of the Pythia
 * suite's table (Biderman et al. 2023, arXiv:2304.01373, Table 1 counts
 * "1,011,781,632" with embeddings). */
Test(hf, pythia_1b)
{
    struct model m = load_hf("tests/data/hf/pythia-1b/config.json");
    cr_assert_eq(model_params(&m), 1011781632LL);
    cr_assert_eq(m.rope_base, 10000.0);
    cr_assert(!m.tied_embeddings && m.bias && !m.dropout);
}

/* Qwen2: rope_theta 1e6; biases on Q, K and V only (Qwen2Attention).
 * By hand, h 3584, q 3584, kv 4 x 128 = 512, f 18944, 28 layers, vocab
 * 152064, untied: per layer 2h q + 2h kv + (q + 2 kv) + 3 h f + 2 h =
 * 29,364,736 + 203,685,888 + 7,168 = 233,057,792; x 28 + 2 x 152064 x 3584
 * + 3584 = 7,615,616,512 (the model card of the same shape, Qwen2.5-7B:
 * 7.61 B, 6.53 B without embeddings). Without the q/k/v biases: 4,608 per
 * layer fewer; with biases everywhere (bias = true): o and MLP biases too. */
Test(hf, qwen2_7b)
{
    struct model m = load_hf("tests/data/hf/qwen2-7b/config.json");
    cr_assert_eq(m.rope_base, 1e6);
    cr_assert_eq(m.kv_heads, 4);
    cr_assert(!m.bias && m.qkv_bias);
    cr_assert_eq(model_attn_params(&m), 29364736LL);
    cr_assert_eq(model_params(&m), 7615616512LL);
    m.qkv_bias = false;
    cr_assert_eq(model_params(&m), 7615616512LL - 28 * 4608LL);
    m.bias = true;
    cr_assert_eq(model_attn_params(&m), 29364736LL + 3584);
}

/* Mistral-7B-v0.1 (MistralForCausalLM): 7,241,732,096 parameters, by
 * hand: per layer 2 x 4096^2 + 2 x 4096 x 1024 + 3 x 4096 x 14336 + 2 x
 * 4096 = 218,112,000; x 32 + 2 x 32000 x 4096 + 4096 (the "7.24 B" of its
 * model card); GQA 8, RoPE theta 10000; its 4096-token sliding window is
 * named as not expressed (timed as full causal attention). */
Test(hf, mistral_7b)
{
    struct model m = load_hf("tests/data/hf/mistral-7b/config.json");
    cr_assert_eq(model_params(&m), 7241732096LL);
    cr_assert_eq(m.kv_heads, 8);
    cr_assert_eq(m.rope_base, 10000.0);
    cr_assert(m.glu && !m.tied_embeddings && !m.bias && !m.qkv_bias);
}

/* DeepSeek-V3's config.json (deepseek-ai/DeepSeek-V3, fields copied for the
 * tests) is the deepseek-v3 preset: MLA ranks, 256 routed experts top-8 and
 * one shared of 2048, 3 dense-first layers of 18432, sigmoid scores with
 * the aux-free bias (noaux_tc), one MTP layer: the same 671,026,419,200
 * parameters (the preset's count; published 671 B + the MTP module). */
Test(hf, deepseek_v3_is_the_preset)
{
    struct model a = load_hf("tests/data/hf/deepseek-v3/config.json");
    struct model b = load_model("deepseek-v3");
    cr_assert_eq(model_params(&a), 671026419200LL);
    cr_assert_eq(model_params(&a), model_params(&b));
    cr_assert_eq(a.mla.kv_lora_rank, 512);
    cr_assert_eq(a.mla.q_lora_rank, 1536);
    cr_assert_eq(a.moe.experts, 256);
    cr_assert_eq(a.moe.topk, 8);
    cr_assert_eq(a.moe.shared_ffn_hidden, 2048);
    cr_assert_eq(a.moe.dense_first, 3);
    cr_assert_eq(a.moe.balance, MODEL_BALANCE_AUX_FREE);
    cr_assert_eq(a.moe.router, b.moe.router);
    cr_assert_eq(a.mtp_layers, 1);
    cr_assert_eq(a.moe.groups, 8);          /* n_group, topk_group */
    cr_assert_eq(a.moe.group_topk, 4);
    cr_assert_eq(a.moe.group_topk, b.moe.group_topk);
}

static void refused(const char *path, const char *want)
{
    struct model m;
    struct tpl_err err = { 0 };
    cr_assert_eq(model_load(&m, path, NULL, 0, &err), TPL_ECONFIG, "%s", path);
    cr_assert(strstr(err.msg, want), "%s: '%s' lacks '%s'", path, err.msg, want);
}

/* Mixtral 8x7B's config.json is the mixtral-8x7b preset: 8 experts, top-2,
 * 46,702,792,704 parameters (main's spaces/params.c count of the preset,
 * published 46.7 B, arXiv:2401.04088). Qwen3's head_dim 128 beyond
 * hidden / heads = 64 is kept: queries of 16 x 128. */
Test(hf, moe_and_head_dim)
{
    struct model a = load_hf("tests/data/hf/mixtral-8x7b/config.json");
    struct model b = load_model("mixtral-8x7b");
    struct model q = load_hf("tests/data/hf/qwen3-0.6b/config.json");
    cr_assert(model_is_moe(&a));
    cr_assert_eq(a.moe.experts, 8);
    cr_assert_eq(a.moe.topk, 2);
    cr_assert_eq(model_params(&a), 46702792704LL);
    cr_assert_eq(model_params(&a), model_params(&b));
    cr_assert_eq(model_active_params(&a), model_active_params(&b));
    cr_assert_eq(a.rope_base, 1e6);
    cr_assert_eq(q.head_dim, 128);
    cr_assert_eq(model_q_dim(&q), 2048);
    /* Qwen3's q_norm and k_norm, RMSNorm(head_dim) each: Q 1024 x 2048,
     * K and V 1024 x 1024, O 2048 x 1024, and 2 x 128 norm weights */
    cr_assert(q.qk_norm && !a.qk_norm);
    cr_assert_eq(model_attn_params(&q), 2LL * 1024 * 2048 + 2LL * 1024 * 1024 + 256);
}

/* Every missing field at once; MoE, other head widths, unknown classes,
 * wrong types and non-JSON refused with the field named. */
Test(hf, refusals)
{
    refused("tests/data/hf/missing.json", "missing fields 'num_hidden_layers', "
            "'intermediate_size', 'vocab_size' (LlamaForCausalLM)");
    refused("tests/data/hf/bert.json", "unsupported 'architectures' BertForMaskedLM");
    refused("tests/data/hf/bad-type.json", "'tie_word_embeddings' must be true or false");
    refused("tests/data/hf/broken.json", "broken.json:4: not a JSON object");
    refused("tests/data/hf/array.json", "array.json:1: not a JSON object");
    refused("tests/data/hf/zero-layers.json", "'n_layer' must be an integer");
    refused("tests/data/hf/heads.json", "'heads' must be a divisor of 'hidden' "
            "(config.json: num_attention_heads)");
}

/* The text is a model file: --set applies to it like to any other. */
Test(hf, set_applies)
{
    struct model m;
    struct tpl_err err = { 0 };
    const char *set[] = { "model.layers=16" };
    cr_assert_eq(model_load(&m, "tests/data/hf/llama-3-8b/config.json", set, 1,
                            &err), 0, "%s", err.msg);
    cr_assert_eq(m.layers, 16);
}
