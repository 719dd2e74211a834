/* tests/unit/test_offload.c: the plan's optimizer offload (Megatron-Core
 * --chunked-optimizer-state-offload): the host link a system file says,
 * the step's time over it, the memory of the forward / backward and of the
 * step, the rules, the search's choice (on only where a plan fits in no
 * other way) and the launch settings. Hand counts: DGX H100's host link is
 * PCIe Gen5 x16, 63 GB/s a direction at the measured 0.88 (55.44 GB/s),
 * and its host memory 614.4 GB/s, which 8 GPUs copying both ways share:
 * 614.4 / 16 = 38.4 GB/s each way; Adam keeps 12 bytes a parameter (fp32
 * master 4, m 4, v 4), all of which cross the link each way per step. */
#include "helpers.h"

#include <stdio.h>

#include "exporttext.h"
#include "search/search.h"
#include "spaces/stack.h"

#define HOST_BPS (63e9 * 0.88)
#define NODE8_BPS (614.4e9 / 16.0)
#define MIB (1024.0 * 1024.0)

/* llama3-8b on DGX H100, seq 4096, gbs 64 */
static struct pred_ctx ctx8b(void)
{
    return preset_ctx("llama3-8b", "dgx-h100", 4096, 64);
}

/* ZeRO-1 over dp 8, one stage: the rank steps P / 8 parameters. */
static struct plan z1(int32_t offload)
{
    struct plan p = make_plan(1, 1, 8, 1);
    p.zero = 1;
    p.offload = offload;
    return p;
}

/* ---- the host link ---- */

/* The presets say it (dgx-h100: 63 GB/s at 0.88; dgx-a100: Gen4 x16,
 * 31.5 GB/s), and the kernel rates carry the achievable product. */
Test(offload, presets_give_the_host_link)
{
    struct hw_system h = load_system("dgx-h100");
    struct pred_ctx c = ctx8b();
    assert_rel(h.host_bytes_per_s, 63e9, 1e-15);
    assert_rel(h.eff_host, 0.88, 1e-15);
    assert_rel(c.k.host_bytes_per_s, HOST_BPS, 1e-15);
    assert_rel(h.host_mem_bytes_per_s, 614.4e9, 1e-15);
    cr_assert(c.limits.host_link);
    h = load_system("dgx-a100");
    assert_rel(h.host_bytes_per_s, 31.5e9, 1e-15);
    h = load_system("vista-gh200");         /* NVLink-C2C */
    assert_rel(h.host_bytes_per_s, 450e9, 1e-15);
}

/* ---- time ---- */

/* The rate a GPU gets: 8 GPUs of a node share its host memory, 38.4 GB/s
 * each way, below the link's 55.44; 4 GPUs get 76.8 from it, so the link's
 * 55.44; a system file without host_mem_gbs, the link's. */
Test(offload, host_copy_rate)
{
    struct pred_ctx c = ctx8b();
    struct plan p = z1(1);
    assert_rel(pred_host_copy_bytes_per_s(&c, &p), NODE8_BPS, 1e-12);
    p.dp = 4;
    assert_rel(pred_host_copy_bytes_per_s(&c, &p), HOST_BPS, 1e-12);
    p.dp = 16;                          /* two nodes: 8 GPUs share each */
    assert_rel(pred_host_copy_bytes_per_s(&c, &p), NODE8_BPS, 1e-12);
    c.hw.host_mem_bytes_per_s = 0;
    assert_rel(pred_host_copy_bytes_per_s(&c, &p), HOST_BPS, 1e-12);
}

/* The step of 1e9 parameters on 8 GPUs: 12e9 bytes each way at 38.4 GB/s,
 * 0.3125 s, above the GPU's own step; 8 bytes with bf16 moments; a link
 * and memory faster than HBM leave the GPU's step; without offload, the
 * GPU's. */
Test(offload, step_time_over_the_host_link)
{
    struct pred_ctx c = ctx8b();
    struct plan off = z1(1), on_gpu = z1(0);
    double gpu = pred_optimizer_step_s(&c, &on_gpu, 1e9);
    cr_assert_gt(gpu, 0.0);
    cr_assert_lt(gpu, 12e9 / NODE8_BPS);
    assert_rel(pred_optimizer_step_s(&c, &off, 1e9), 0.3125, 1e-12);
    c.job.optim_bytes = 8;
    assert_rel(pred_optimizer_step_s(&c, &off, 1e9), 8e9 / NODE8_BPS, 1e-12);
    c.k.host_bytes_per_s = 1e15;
    c.hw.host_mem_bytes_per_s = 1e17;
    cr_assert_eq(pred_optimizer_step_s(&c, &off, 1e9), gpu);
}

/* The whole plan: the optimizer part is the step of the rank's shard,
 * P / 8 (the one stage holds every parameter, embedding and head untied),
 * and nothing else moves. */
Test(offload, plan_time_adds_only_the_step)
{
    struct pred_ctx c = ctx8b();
    struct plan p = z1(0), q = z1(1);
    struct pred_result a, b;
    pred_plan(&c, &p, &a);
    pred_plan(&c, &q, &b);
    cr_assert_eq(a.rule, PLAN_OK);
    cr_assert_eq(b.rule, PLAN_OK);
    assert_rel(b.part_s[PRED_PART_OPTIMIZER], 12.0 * c.params / 8.0 / NODE8_BPS,
               1e-9);
    for (int i = 0; i < PRED_PART_COUNT; i++)
        if (i != PRED_PART_OPTIMIZER)
            cr_assert_eq(a.part_s[i], b.part_s[i], "part %d", i);
    assert_rel(b.iteration_s - a.iteration_s, b.part_s[PRED_PART_OPTIMIZER] -
               a.part_s[PRED_PART_OPTIMIZER], 1e-9);
}

/* ---- memory ---- */

/* Forward and backward without the states: the 12 P / 8 bytes go. The
 * step holds the master weights 4 P / 8 and two state windows after the
 * activations are freed, each the larger of the 256 MiB chunk and one
 * parameter's moments: the word embedding, 128256 x 4096 = 525,336,576
 * parameters, its 1/8 at 8 bytes = 525,336,576 bytes. Without recompute
 * the activations are larger (optimizer part 0); with full recompute over
 * dp 2 (windows of 2,101,346,304 bytes) the step, 4 P / 2 and the
 * windows, is the peak, and the optimizer part is what it holds beyond
 * them. */
Test(offload, memory_of_both_peaks)
{
    struct pred_ctx c = ctx8b();
    struct plan p = z1(0), q = z1(1);
    struct pred_mem a, b;
    double step;
    pred_memory(&c, &p, &a);
    pred_memory(&c, &q, &b);
    assert_rel(a.optimizer_bytes, 12.0 * c.params / 8.0, 1e-12);
    cr_assert_eq(b.weights_bytes, a.weights_bytes);
    cr_assert_eq(b.grads_bytes, a.grads_bytes);
    cr_assert_eq(b.activations_bytes, a.activations_bytes);
    assert_rel(pred_offload_window_bytes(&c, &q), 525336576.0, 1e-15);
    step = 4.0 * c.params / 8.0 + 2.0 * 525336576.0;
    cr_assert_gt(a.activations_bytes + a.embed_logits_bytes, step);
    cr_assert_eq(b.optimizer_bytes, 0.0);
    assert_rel(b.total_bytes, a.total_bytes - a.optimizer_bytes, 1e-12);
    p.recompute = q.recompute = PLAN_RECOMPUTE_FULL;
    p.dp = q.dp = 2;
    assert_rel(pred_offload_window_bytes(&c, &q), 2101346304.0, 1e-15);
    step = 4.0 * c.params / 2.0 + 2.0 * 2101346304.0;
    pred_memory(&c, &p, &a);
    pred_memory(&c, &q, &b);
    cr_assert_lt(a.activations_bytes + a.embed_logits_bytes, step);
    assert_rel(b.optimizer_bytes, step - (b.activations_bytes +
                                          b.embed_logits_bytes), 1e-12);
    assert_rel(b.total_bytes, b.weights_bytes + b.grads_bytes + step, 1e-12);
}

/* ---- rules ---- */

Test(offload, rules)
{
    struct pred_ctx c = ctx8b();
    struct plan p = z1(1);
    char why[256];
    cr_assert_eq(plan_check(&p, &c.model, &c.job, &c.limits), PLAN_OK);
    for (int i = 0; i < 3; i++) {       /* zero 0, 2, 3 */
        p.zero = (int32_t[]){ 0, 2, 3 }[i];
        cr_assert_eq(plan_check(&p, &c.model, &c.job, &c.limits),
                     PLAN_RULE_OFFLOAD_ZERO, "zero %d", (int)p.zero);
    }
    p.zero = 0;
    plan_rule_explain(PLAN_RULE_OFFLOAD_ZERO, &p, &c.model, &c.job, &c.limits,
                      why, sizeof why);
    cr_assert_str_eq(why, "offload-zero: optimizer offload needs the "
                     "distributed optimizer (zero 1), zero 0");
    c.limits.stack_offload = false;     /* named before zero 0: it cannot change */
    cr_assert_eq(plan_check(&p, &c.model, &c.job, &c.limits),
                 PLAN_RULE_STACK_OFFLOAD);
    plan_rule_explain(PLAN_RULE_STACK_OFFLOAD, &p, &c.model, &c.job, &c.limits,
                      why, sizeof why);
    cr_assert_str_eq(why, "stack-offload: the stack cannot offload optimizer "
                     "states (optimizer_offload false, or a full-iteration "
                     "CUDA graph)");
    c.limits.stack_offload = true;
    c.limits.host_link = false;
    cr_assert_eq(plan_check(&p, &c.model, &c.job, &c.limits),
                 PLAN_RULE_OFFLOAD_HOST);
    plan_rule_explain(PLAN_RULE_OFFLOAD_HOST, &p, &c.model, &c.job, &c.limits,
                      why, sizeof why);
    cr_assert_str_eq(why, "offload-host: the system file gives no host link "
                     "(node.host_gbs) to time the offload over");
    p.zero = 1;
    cr_assert_str_eq(plan_rule_name(PLAN_RULE_OFFLOAD_HOST), "offload-host");
    p.offload = 0;                      /* nothing to refuse */
    cr_assert_eq(plan_check(&p, &c.model, &c.job, &c.limits), PLAN_OK);
}

/* Megatron-Core offloads (unless a full-iteration CUDA graph runs: the
 * README says they do not go together); the others' offloads move the
 * step to the CPU, not modelled. */
Test(offload, stack_presets)
{
    static const struct { const char *name; bool off; } want[] = {
        { "megatron-core", true }, { "megatron-lm-2021", false },
        { "megatron-deepspeed", false }, { "torchtitan", false },
        { "nemo-automodel", false },
    };
    const char *graph[] = { "stack.cuda_graph_scope=full_iteration" };
    struct stack s;
    struct plan_limits lim = { 0 };
    struct tpl_err err = { 0 };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        cr_assert_eq(stack_load(&s, want[i].name, NULL, 0, &err), 0, "%s", err.msg);
        stack_limits(&s, &lim);
        cr_assert_eq(lim.stack_offload, want[i].off, "%s", want[i].name);
    }
    cr_assert_eq(stack_load(&s, "megatron-core", graph, 1, &err), 0, "%s", err.msg);
    stack_limits(&s, &lim);
    cr_assert(!lim.stack_offload);
}

/* ---- search ---- */

/* The top k plans of space s on one GPU count. */
static void search_at(const struct pred_ctx *c, const struct space *s,
                      int64_t gpus, int k, struct search_result *r)
{
    struct search_cfg cfg = { .ctx = c, .space = s, .gpus = &gpus,
                              .n_gpus = 1, .top_k = k };
    struct tpl_err err = { 0 };
    cr_assert_eq(search_run(&cfg, r, &err), 0, "%s", err.msg);
}

static void search8(const struct pred_ctx *c, const struct space *s,
                    struct search_result *r)
{
    search_at(c, s, 8, 5, r);
}

/* Mixtral-8x7B (46.7 B parameters) on 8 H100s fits in no plan with Adam's
 * states on the GPU: the search offloads, and each plan it offloads does
 * not fit without; listed off only, nothing fits; listed on only, every
 * plan offloads. */
Test(offload, search_offloads_where_nothing_else_fits)
{
    static struct space s;
    struct pred_ctx c = preset_ctx("mixtral-8x7b", "dgx-h100", 4096, 64);
    struct search_result r;
    memset(&s, 0, sizeof s);
    s.dim[PLAN_DIM_PP] = (struct space_list){ .n = 2, .v = { 1, 2 } };
    s.dim[PLAN_DIM_VPP] = (struct space_list){ .n = 1, .v = { 1 } };
    search8(&c, &s, &r);
    cr_assert_eq(r.per_gpu[0].n_hits, 5);
    for (int i = 0; i < r.per_gpu[0].n_hits; i++) {
        struct plan q = r.per_gpu[0].hits[i].plan;
        struct pred_mem mem;
        cr_assert_eq(q.offload, 1);
        q.offload = 0;
        q.recompute = PLAN_RECOMPUTE_FULL;  /* the least memory without */
        q.rc_layers = 0;
        q.epo = 0;
        pred_memory(&c, &q, &mem);
        cr_assert(!mem.fits);
    }
    search_result_release(&r);
    s.dim[PLAN_DIM_OFFLOAD] = (struct space_list){ .n = 1, .v = { 0 } };
    search8(&c, &s, &r);
    cr_assert_eq(r.per_gpu[0].n_hits, 0);
    cr_assert_eq(r.per_gpu[0].feasible, 0);
    search_result_release(&r);
    s.dim[PLAN_DIM_OFFLOAD] = (struct space_list){ .n = 1, .v = { 1 } };
    search8(&c, &s, &r);
    cr_assert_gt(r.per_gpu[0].rule[PLAN_RULE_OFFLOAD_ZERO], 0);
    cr_assert_eq(r.per_gpu[0].n_hits, 5);
    search_result_release(&r);
}

/* A model that fits keeps its states on the GPU: Llama 3 8B's best plan on
 * 8 GPUs does not offload, nor does the search try it on a stack that
 * cannot. */
Test(offload, search_keeps_states_where_they_fit)
{
    static struct space s;
    struct pred_ctx c = ctx8b();
    struct search_result r;
    memset(&s, 0, sizeof s);
    search8(&c, &s, &r);
    cr_assert_gt(r.per_gpu[0].n_hits, 0);
    cr_assert_eq(r.per_gpu[0].hits[0].plan.offload, 0);
    search_result_release(&r);
}

/* ---- key and launch settings ---- */

Test(offload, key)
{
    struct plan p = z1(1);
    char key[96];
    plan_key(&p, key, sizeof key);
    cr_assert_str_eq(key, "tp1.pp1.dp8.mb1.z1.offload");
    p.offload = 0;
    plan_key(&p, key, sizeof key);
    cr_assert_str_eq(key, "tp1.pp1.dp8.mb1.z1");
}

/* Megatron-LM's flags and Megatron-Core's OptimizerConfig fields (the
 * README of megatron/core/optimizer/cpu_offloading), the chunk the memory
 * counted; torchtitan has no such offload. */
Test(offload, export_spellings)
{
    struct pred_ctx c = ctx8b();
    struct plan p = z1(1);
    assert_has(export_text(RES_FW_MEGATRON, &c, &p),
               "# the chunked optimizer-state offload is Megatron-LM's dev "
               "branch's (#6244)");
    assert_has(export_text(RES_FW_MEGATRON, &c, &p),
               "--use-distributed-optimizer \\\n"
               "--chunked-optimizer-state-offload \\\n"
               "--optimizer-state-offload-fraction 1.0 \\\n"
               "--optimizer-state-offload-chunk-size-mb 256 \\\n"
               "--ckpt-format torch_dist \\\n");
    assert_has(export_text(RES_FW_NEMO, &c, &p),
               "optimizer:\n  use_distributed_optimizer: true\n"
               "  chunked_optimizer_state_offload: true\n"
               "  optimizer_state_offload_fraction: 1.0\n"
               "  optimizer_state_offload_chunk_size_mb: 256\n"
               "checkpoint:\n  ckpt_format: torch_dist\n");
    assert_has(refused(RES_FW_TORCHTITAN, &c, &p), "torchtitan has no chunked optimizer-state offload");
    p.offload = 0;
    cr_assert_null(strstr(export_text(RES_FW_MEGATRON, &c, &p), "offload"));
    cr_assert_null(strstr(export_text(RES_FW_NEMO, &c, &p), "offload"));
}

/* ---- with block recompute ---- */

/* Llama 3 405B on 128 H100s (seq 8192, gbs 512) with tp 8, pp 'pp', one
 * sequence a micro-batch, no interleaving, ZeRO-1; the best plan's
 * recompute_layers and offload (a search of one plan a GPU count). */
static struct plan best_405b(int32_t pp, int32_t recompute, int32_t offload)
{
    static struct space s;
    struct pred_ctx c = preset_ctx("llama3-405b", "dgx-h100", 8192, 512);
    struct search_result r;
    struct plan best;
    memset(&s, 0, sizeof s);
    s.dim[PLAN_DIM_TP] = (struct space_list){ .n = 1, .v = { 8 } };
    s.dim[PLAN_DIM_PP] = (struct space_list){ .n = 1, .v = { pp } };
    s.dim[PLAN_DIM_MBS] = (struct space_list){ .n = 1, .v = { 1 } };
    s.dim[PLAN_DIM_VPP] = (struct space_list){ .n = 1, .v = { 1 } };
    s.dim[PLAN_DIM_ZERO] = (struct space_list){ .n = 1, .v = { 1 } };
    if (recompute >= 0)
        s.dim[PLAN_DIM_RECOMPUTE] = (struct space_list){ .n = 1, .v = { recompute } };
    if (offload >= 0)
        s.dim[PLAN_DIM_OFFLOAD] = (struct space_list){ .n = 1, .v = { offload } };
    search_at(&c, &s, 128, 1, &r);
    cr_assert_eq(r.per_gpu[0].n_hits, 1);
    best = r.per_gpu[0].hits[0].plan;
    search_result_release(&r);
    return best;
}

/* A plan that fits by rebuilding several layers a chunk: offloaded, fewer
 * need rebuilding, and the search weighs both (search.c offload_twin).
 * Llama 3 405B on 128 H100s, tp 8, pp 16, ZeRO-1: with the states on the
 * GPU the stages rebuild 6 layers; offloaded they fit rebuilding one
 * (the closed form's need is the activations', mem.c act_peak), faster by
 * more than the host copies cost; that plan does not fit on the GPU. */
Test(offload, search_weighs_recompute_against_offload)
{
    struct pred_ctx c = preset_ctx("llama3-405b", "dgx-h100", 8192, 512);
    struct plan best = best_405b(16, -1, -1), q;
    struct pred_result a, b;
    cr_assert_eq(best.offload, 1);
    cr_assert_eq(best.recompute, PLAN_RECOMPUTE_FULL);
    cr_assert_eq(best.rc_layers, 1);
    q = best;                           /* on the GPU: one layer misses */
    q.offload = 0;
    pred_plan(&c, &q, &a);
    cr_assert(!a.mem.fits);
    q.rc_layers = 6;                    /* six rebuilt: fits, slower */
    pred_plan(&c, &q, &a);
    pred_plan(&c, &best, &b);
    cr_assert(a.mem.fits && b.mem.fits);
    cr_assert_lt(b.iteration_s, a.iteration_s);
    cr_assert_eq(best_405b(16, -1, 0).rc_layers, 6);
}

/* The windows: the 256 MiB chunk where every parameter's states are
 * smaller (Llama 3 8B over tp 8, dp 8: the embedding's 1/64, 65.7 MB of
 * moments), one expert's where it is larger (Mixtral-8x7B on ep 8 without
 * expert data parallelism: w1 and w3 of one expert, 2 x 14336 x 4096 =
 * 117,440,512 parameters, 939,524,096 bytes of moments; with bf16 moments,
 * 4 bytes a parameter, half). */
Test(offload, state_windows)
{
    struct pred_ctx c = ctx8b(), m;
    struct plan p = z1(1);
    p.tp = 8;
    assert_rel(pred_offload_window_bytes(&c, &p), 256.0 * MIB, 1e-15);
    m = preset_ctx("mixtral-8x7b", "dgx-h100", 4096, 256);
    p = z1(1);
    p.ep = 8;
    assert_rel(pred_offload_window_bytes(&m, &p), 939524096.0, 1e-15);
    m.job.optim_bytes = 8;
    assert_rel(pred_offload_window_bytes(&m, &p), 469762048.0, 1e-15);
}

/* The twin of a plan that fits only by rebuilding every layer (its
 * recompute_layers 0): Llama 3 405B on 128 H100s, tp 8, pp 8, full
 * recompute only: on the GPU every layer is rebuilt; offloaded, 5 of each
 * stage's 15-16 suffice, and that plan is the faster. */
Test(offload, twin_of_every_layer_rebuilt)
{
    struct plan best = best_405b(8, PLAN_RECOMPUTE_FULL, 0);
    cr_assert_eq(best.rc_layers, 0);    /* on the GPU: every layer */
    best = best_405b(8, PLAN_RECOMPUTE_FULL, -1);
    cr_assert_eq(best.offload, 1);
    cr_assert_eq(best.rc_layers, 5);
}

/* A stack that cannot offload, or a system without a host link: no plan
 * of the search offloads (Mixtral-8x7B on 8 H100s then has none at all). */
Test(offload, search_never_offloads_where_it_cannot)
{
    static struct space s;
    struct pred_ctx c = preset_ctx("mixtral-8x7b", "dgx-h100", 4096, 64);
    struct search_result r;
    memset(&s, 0, sizeof s);
    s.dim[PLAN_DIM_PP] = (struct space_list){ .n = 1, .v = { 1 } };
    c.limits.stack_offload = false;
    search8(&c, &s, &r);
    cr_assert_eq(r.per_gpu[0].feasible, 0);
    search_result_release(&r);
    c.limits.stack_offload = true;
    c.limits.host_link = false;
    search8(&c, &s, &r);
    cr_assert_eq(r.per_gpu[0].feasible, 0);
    search_result_release(&r);
    c.limits.host_link = true;
    search8(&c, &s, &r);
    cr_assert_gt(r.per_gpu[0].feasible, 0);
    cr_assert_eq(r.per_gpu[0].hits[0].plan.offload, 1);
    search_result_release(&r);
}

/* The nearest miss is the nearer of the plan and its offloaded twin
 * (search.c offload_miss): GPT-3 175B on 16 A100s fits in no way; offloaded
 * the best misses by 25.75 GiB (its step: weights, gradients and the
 * restored master shard), on the GPU by far more. */
Test(offload, nearest_miss_offloaded)
{
    static struct space s;
    struct pred_ctx c = preset_ctx("gpt3-175b", "selene-a100", 2048, 1536);
    struct search_result r;
    memset(&s, 0, sizeof s);
    search_at(&c, &s, 16, 1, &r);
    cr_assert_eq(r.per_gpu[0].feasible, 0);
    cr_assert_eq(r.per_gpu[0].nearest.offload, 1);
    cr_assert_lt(r.per_gpu[0].nearest_short_bytes, 30.0 * 1073741824.0);
    search_result_release(&r);
}
