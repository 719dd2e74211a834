/* tests/unit/test_flops.c: FLOPs per iteration (Narayanan et al. SC21
 * Eq. 3) and MFU. */
#include "helpers.h"

#include "predictor/flops.h"

/* Without recompute: Eq. 3, 72 B s l h^2 (1 + s/(6h) + V/(12 l h)), with
 * its attention-score term halved for the causal mask (flops.c: current
 * Megatron-LM counts causal): 72 B s l h^2 (1 + s/(12h) + V/(12 l h)). */
Test(flops, model_flops_narayanan_eq3_without_recompute)
{
    struct model m = load_model("gpt3-175b");
    struct job j = make_job(2048, 1536);
    double B = 1536, s = 2048, l = 96, h = 12288, V = 51200;
    assert_rel(pred_model_flops(&m, &j),
               72 * B * s * l * h * h * (1 + s / (12 * h) + V / (12 * l * h)),
               1e-12);
}

/* Eq. 3 as printed counts full recompute: 96 B s l h^2 (1 + s/6h + V/16lh);
 * causal: 96 B s l h^2 (1 + s/12h + V/16lh). */
Test(flops, hw_flops_full_recompute_is_eq3)
{
    struct model m = load_model("gpt3-530b");
    struct job j = make_job(2048, 2520);
    double B = 2520, s = 2048, l = 105, h = 20480, V = 51200;
    assert_rel(pred_hw_flops(&m, &j, PLAN_RECOMPUTE_FULL),
               96 * B * s * l * h * h * (1 + s / (12 * h) + V / (16 * l * h)),
               1e-12);
    cr_assert_gt(pred_hw_flops(&m, &j, PLAN_RECOMPUTE_SELECTIVE),
                 pred_model_flops(&m, &j));
    cr_assert_lt(pred_hw_flops(&m, &j, PLAN_RECOMPUTE_SELECTIVE),
                 pred_hw_flops(&m, &j, PLAN_RECOMPUTE_FULL));
}

/* GQA and GLU, hand count for Llama 3 8B, per token per layer forward:
 * QKV 2h(h + 2kv) + out 2h^2 + MLP 3 x 2hf + causal attention 2sh;
 * logits 2hV. */
Test(flops, gqa_glu_hand_count)
{
    struct model m = load_model("llama3-8b");
    struct job j = make_job(8192, 16);
    double h = 4096, kv = 1024, f = 14336, s = 8192, V = 128256;
    double layer = 2 * h * (h + 2 * kv) + 2 * h * h + 6 * h * f + 2 * s * h;
    assert_rel(pred_model_flops(&m, &j), 3 * 16 * s * (32 * layer + 2 * h * V),
               1e-12);
}

/* Selective recompute reruns the attention core's forward: QK^T and AV,
 * 2 x 2 s h FLOPs a token per layer dense (Korthikanti et al. sec. 5), half
 * of it causal. Llama 3 8B, B 16, s 8192: tokens 131,072 x 32 layers x 2 x
 * 8192 x 4096. */
Test(flops, selective_recompute_hand_count)
{
    struct model m = load_model("llama3-8b");
    struct job j = make_job(8192, 16);
    assert_rel(pred_hw_flops(&m, &j, PLAN_RECOMPUTE_SELECTIVE) - pred_model_flops(&m, &j),
               131072.0 * 32 * 2 * 8192 * 4096, 1e-9);
}

/* torchtitan's op-level policy rebuilds wk, wo and w3 of every layer:
 * 2 h (kv + q + f) = 2 x 4096 x (1024 + 4096 + 14336) = 159,383,552
 * FLOPs per token and layer, for 131,072 tokens and 32 layers. */
Test(flops, op_level_selective_hand_count)
{
    struct model m = load_model("llama3-8b");
    struct job j = make_job(8192, 16);
    j.selective = JOB_SELECTIVE_OP;
    assert_rel(pred_hw_flops(&m, &j, PLAN_RECOMPUTE_SELECTIVE) - pred_model_flops(&m, &j),
               131072.0 * 32 * 159383552.0, 1e-9);
}

/* MFU and HFU of a plan: the FLOPs an iteration needs over the time and
 * the dense peak of every GPU (Narayanan et al. SC21 sec. 5.1; Chowdhery et
 * al. 2022, PaLM, app. B, for MFU leaving the recompute out). GPT-3 175B,
 * B 1536, s 2048 (sec. 3.2): by Eq. 3, causal, without and with recompute,
 *   72 B s l h^2 (1 + s/12h + V/12lh) = 3.34059780016020e18 FLOPs,
 *   96 B s l h^2 (1 + s/12h + V/16lh) = 4.45017215835360e18 FLOPs,
 * on 8 x 8 x 24 = 1536 A100s at their bf16 dense peak, 312 TFLOP/s (NVIDIA
 * A100 datasheet): MFU = 3.34059780016020e18 / (t 1536 312e12). */
Test(flops, mfu_and_hfu_of_a_plan)
{
    struct model m = load_model("gpt3-175b");
    struct hw_system h = load_system("selene-a100");
    struct job j = make_job(2048, 1536);
    struct pred_ctx c;
    struct pred_result o;
    struct plan p = make_plan(8, 8, 24, 1);
    p.recompute = PLAN_RECOMPUTE_FULL;
    pred_ctx_init(&c, &m, &h, &j, false);
    pred_plan(&c, &p, &o);
    assert_rel(o.model_flops, 3.34059780016020e18, 1e-12);
    assert_rel(o.hw_flops, 4.45017215835360e18, 1e-12);
    assert_rel(o.mfu, 3.34059780016020e18 / (o.iteration_s * 1536 * 312e12), 1e-12);
    assert_rel(o.hfu, 4.45017215835360e18 / (o.iteration_s * 1536 * 312e12), 1e-12);
    assert_rel(o.tokens_per_s, 1536.0 * 2048 / o.iteration_s, 1e-12);
}

/* Mixtral 8x7B, a token's forward per layer: QKV 2h(h + 2kv) + out 2h^2 +
 * the top-2 experts' SwiGLU 2 x 3 x 2hf + causal attention 2sh (s 4096);
 * logits 2hV: 26,568,818,688 a token (27,642,560,512 with the dense 4sh),
 * x 3 for training. The router is not
 * counted (as Megatron-LM's num_floating_point_operations). */
Test(flops, moe_top_k_hand_count)
{
    struct model m = load_model("mixtral-8x7b");
    struct job j = make_job(4096, 1);
    assert_rel(pred_model_flops(&m, &j), 3.0 * 4096 * 26568818688.0, 1e-12);
}

/* DeepSeek-V3 at s 4096, against Megatron-LM's num_floating_point_operations
 * (megatron/training/training.py; MLA, 58 + 1 MTP MoE layers, shared
 * expert, MTP norms and projection, two logits GEMMs): 259,992,950,784
 * FLOPs a token. That formula counts causal attention (s/2 keys per query),
 * as this one does: they agree exactly (the dense count, Eq. 3, would add
 * 2 s heads (192 + 128) per layer and token forward). */
Test(flops, deepseek_v3_matches_megatron)
{
    struct model m = load_model("deepseek-v3");
    struct job j = make_job(4096, 1);
    assert_rel(pred_model_flops(&m, &j), 4096 * 259992950784.0, 1e-12);
}
