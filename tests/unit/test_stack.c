/* tests/unit/test_stack.c: spaces/stack.c, the stack loader, its effects
 * on the job and the model, and the plan rules stack-schedule and
 * stack-zero. Expected values are read off the preset files
 * (spaces/stacks/) and the texts below by hand; the rules' cases are
 * worked out from their definitions in spaces/plan.c. */
#include "helpers.h"

#include "common/conf.h"
#include "spaces/stack.h"

static struct stack load_stack(const char *name, const char *const *sets,
                               int n)
{
    struct stack s;
    struct tpl_err err = { 0 };
    cr_assert_eq(stack_load(&s, name, sets, n, &err), 0, "%s", err.msg);
    return s;
}

/* Every preset loads and names itself; the default is among them. */
Test(stack, presets_load)
{
    bool have_default = false;
    cr_assert_eq(stack_presets_count, 5);
    for (size_t i = 0; i < stack_presets_count; i++) {
        struct stack s = load_stack(stack_presets[i].name, NULL, 0);
        cr_assert_str_eq(s.name, stack_presets[i].name);
        have_default |= !strcmp(s.name, STACK_DEFAULT);
    }
    cr_assert(have_default);
}

/* What RUNS.md "Stacks" says of each, field by field. */
Test(stack, preset_fields)
{
    struct stack lm = load_stack("megatron-lm-2021", NULL, 0);
    struct stack ds = load_stack("megatron-deepspeed", NULL, 0);
    struct stack mc = load_stack("megatron-core", NULL, 0);
    struct stack tt = load_stack("torchtitan", NULL, 0);
    cr_assert_eq(lm.attention, JOB_ATTN_UNFUSED);
    cr_assert(lm.dropout && !lm.overlap_grad_reduce && !lm.overlap_param_gather);
    assert_rel(lm.host_s, 61.1e-6, 1e-12);     /* fitted: calibrate --runs */
    assert_rel(ds.band_lo, -0.140, 1e-12);     /* fitted: calibrate --runs */
    assert_rel(ds.band_hi, 0.100, 1e-12);
    assert_rel(mc.band_lo, -0.174, 1e-12);
    assert_rel(mc.band_hi, 0.105, 1e-12);
    cr_assert_eq(lm.zero, (1u << 0) | (1u << 3));       /* [0, 3] */
    cr_assert_eq(lm.zero_pp, 0);                        /* ZeRO-3 without PP */
    cr_assert_eq(lm.fsdp_reshard, JOB_RESHARD_ALWAYS);
    cr_assert_eq(ds.schedules, 1u << STACK_SCHED_1F1B); /* no interleaved */
    cr_assert_eq(ds.zero, 15u);                         /* [0, 1, 2, 3] */
    cr_assert_eq(ds.zero_pp, 1);                        /* PipelineEngine */
    cr_assert_eq(ds.frameworks, 0u);                    /* [] */
    cr_assert_eq(mc.attention, JOB_ATTN_FLASH);
    cr_assert(!mc.dropout && mc.overlap_grad_reduce && mc.overlap_param_gather);
    cr_assert_eq(mc.host_s, 0.0);
    /* FP8 primary weights gathered in FP8 (--fp8-param-gather, the NeMo
     * and Bridge FP8 recipes'); the others have no such setting */
    cr_assert(mc.fp8_param_gather && !lm.fp8_param_gather &&
              !ds.fp8_param_gather && !tt.fp8_param_gather);
    /* torchtitan's Llama repeats K and V to the query heads before SDPA;
     * Transformer Engine runs grouped-query attention as it is */
    cr_assert(tt.repeat_kv && !mc.repeat_kv);
    /* gradients in fp32 unless a stack file or --set says 16 bits
     * (Megatron's --grad-reduce-in-bf16); it reaches the job */
    cr_assert(!mc.grad_reduce_16bit && !lm.grad_reduce_16bit &&
              !ds.grad_reduce_16bit && !tt.grad_reduce_16bit);
    {
        const char *const g16[] = { "stack.grad_reduce_16bit=true" };
        struct stack b = load_stack("megatron-core", g16, 1);
        struct model bm = { .dropout = false };
        struct job bj;
        job_default(&bj);
        cr_assert(b.grad_reduce_16bit && !bj.grad_reduce_16bit);
        stack_apply(&b, &bm, &bj);
        cr_assert(bj.grad_reduce_16bit);
        stack_apply(&mc, &bm, &bj);
        cr_assert(!bj.grad_reduce_16bit);
    }
    /* the fused masked softmax's longest keys: Megatron-LM v2.6's 2048,
     * the later Megatron-Core's and DeepSpeed forks' 4096 */
    cr_assert_eq(lm.softmax_max_seq, 2048);
    cr_assert_eq(ds.softmax_max_seq, 4096);
    cr_assert_eq(mc.softmax_max_seq, 4096);
    /* the optimizer step: a fused mixed-precision Adam's 34 bytes a
     * parameter, torchtitan's foreach AdamW and clipping 92 */
    assert_rel(mc.step_bytes, 34.0, 0);
    assert_rel(tt.step_bytes, 92.0, 0);
    /* gradient accumulation outside the GEMM, bytes per parameter (the
     * presets' comments derive each): Megatron-Core fuses it */
    cr_assert_eq(mc.grad_accum_bytes, 0.0);
    cr_assert_eq(mc.grad_accum_bf16_bytes, 0.0);
    cr_assert_eq(lm.grad_accum_bytes, 10.0);            /* fp32 main_grad add */
    cr_assert_eq(ds.grad_accum_bytes, 6.0);             /* AccumulateGrad */
    cr_assert_eq(ds.grad_accum_bf16_bytes, 18.0);       /* BF16_Optimizer */
    cr_assert_eq(ds.grad_copy_bf16_bytes, 2.0);         /* its bf16 grads */
    cr_assert(ds.bf16_grad_allreduce && !mc.bf16_grad_allreduce);
    cr_assert_eq(mc.grad_copy_bf16_bytes, 0.0);
    cr_assert_eq(mc.tp_comm_overlap, STACK_TPO_OFF);
    cr_assert(stack_has_framework(&mc, STACK_FW_MEGATRON) &&
              stack_has_framework(&mc, STACK_FW_NEMO) &&
              !stack_has_framework(&mc, STACK_FW_TORCHTITAN));
    cr_assert_eq(tt.zero, (1u << 0) | (1u << 3));       /* DDP, FSDP */
    cr_assert_eq(tt.zero_pp, 3);
    cr_assert_eq(tt.fsdp_reshard, JOB_RESHARD_DEFAULT);
    cr_assert_eq(mc.zero, 15u);                         /* + Megatron-FSDP */
    cr_assert(tt.schedules >> STACK_SCHED_INTERLEAVED & 1);
    cr_assert(stack_has_framework(&tt, STACK_FW_TORCHTITAN));
}

/* --set stack.FIELD: a scalar, a comma list for a list field. */
Test(stack, overrides)
{
    const char *sets[] = { "stack.host_us=25", "stack.schedules=1f1b",
                           "stack.zero=0,1", "stack.dropout=true",
                           "model.layers=2" };
    struct stack s = load_stack("megatron-core", sets, 5);
    assert_rel(s.host_s, 25e-6, 1e-12);
    cr_assert_eq(s.schedules, 1u << STACK_SCHED_1F1B);
    cr_assert_eq(s.zero, 3u);
    cr_assert(s.dropout);
}

static int read_text(struct stack *s, const char *text, struct tpl_err *err)
{
    struct conf c;
    int rc;
    cr_assert_eq(conf_load_string(&c, "k", text, err), 0, "%s", err->msg);
    rc = stack_read(s, &c, err);
    conf_release(&c);
    return rc;
}

#define FIELDS_BUT_ZERO \
    "stack: { name = \"k\"; description = \"d\"; attention = \"flash\";\n" \
    "  dropout = false; overlap_grad_reduce = true;\n" \
    "  overlap_param_gather = true; host_us = 0;\n" \
    "  schedules = [\"1f1b\"]; tp_comm_overlap = \"off\"; pipeline_split = \"megatron\";\n" \
    "  cp_comm = \"p2p\"; framework = []; band_low_pct = -20; band_high_pct = 25;\n" \
    "  zero_pp = 3; fsdp_reshard = \"always\";\n"
#define FIELDS_BUT_ZERO_BAND \
    "stack: { name = \"k\"; description = \"d\"; attention = \"flash\";\n" \
    "  dropout = false; overlap_grad_reduce = true;\n" \
    "  overlap_param_gather = true; host_us = 0;\n" \
    "  schedules = [\"1f1b\"]; tp_comm_overlap = \"off\"; pipeline_split = \"megatron\";\n" \
    "  cp_comm = \"p2p\"; framework = []; zero = [1];\n" \
    "  zero_pp = 3; fsdp_reshard = \"always\";\n"

/* Bad fields name the file, the line and the field (exit code 3). */
Test(stack, bad_fields_name_line)
{
    struct stack s;
    struct tpl_err err = { 0 };
    cr_assert_eq(read_text(&s, FIELDS_BUT_ZERO "  zero = [1]; };", &err), 0,
                 "%s", err.msg);
    cr_assert_eq(read_text(&s, FIELDS_BUT_ZERO "  zero = [1];\n  bogus = 1; };",
                           &err), TPL_ECONFIG);
    cr_assert_str_eq(err.msg, "k:8: unknown field 'bogus' in 'stack'");
    cr_assert_eq(read_text(&s, FIELDS_BUT_ZERO "  zero = [1, 5]; };", &err),
                 TPL_ECONFIG);
    cr_assert_str_eq(err.msg, "k:7: 'zero' must be a list of '0', '1', '2', '3'");
    cr_assert_eq(read_text(&s, FIELDS_BUT_ZERO "  zero = []; };", &err),
                 TPL_ECONFIG);
    cr_assert_eq(read_text(&s, FIELDS_BUT_ZERO "  zero = [1]; };\n", &err), 0);
    cr_assert_eq(read_text(&s, "stack: { name = \"k\"; };", &err), TPL_ECONFIG);
    cr_assert_str_eq(err.msg, "k:1: missing field 'description' in 'stack'");
}

/* The error band: both fields required, each in [-90, 900] %, low not
 * above high; kept as fractions. */
Test(stack, band_fields)
{
    struct stack s;
    struct tpl_err err = { 0 };
    cr_assert_eq(read_text(&s, FIELDS_BUT_ZERO "  zero = [1]; };", &err), 0,
                 "%s", err.msg);
    assert_rel(s.band_lo, -0.20, 1e-12);
    assert_rel(s.band_hi, 0.25, 1e-12);
    cr_assert_eq(read_text(&s, FIELDS_BUT_ZERO_BAND "  band_low_pct = -20;\n"
                           "  band_high_pct = -30; };", &err), TPL_ECONFIG);
    cr_assert_str_eq(err.msg, "k:8: 'band_high_pct' (-30) must not be below "
                     "'band_low_pct' (-20)");
    cr_assert_eq(read_text(&s, FIELDS_BUT_ZERO_BAND "  band_low_pct = -95;"
                           " band_high_pct = 0; };", &err), TPL_ECONFIG);
    cr_assert(strstr(err.msg, "k:7: 'band_low_pct' must be a number in "
                     "[-90, 900]"), "%s", err.msg);
    cr_assert_eq(read_text(&s, FIELDS_BUT_ZERO_BAND "  band_low_pct = 0; };",
                           &err), TPL_ECONFIG);
    cr_assert_str_eq(err.msg, "k:1: missing field 'band_high_pct' in 'stack'");
}

/* The optional fields: gradient accumulation (absent 0, each a number of
 * bytes per parameter in [0, 64]) and launch_blocking (absent false);
 * stack_apply hands them to the job. */
Test(stack, grad_accum_fields)
{
    struct stack s;
    struct tpl_err err = { 0 };
    struct model m = load_model("gpt3-175b");
    struct job j = make_job(2048, 8);
    cr_assert_eq(read_text(&s, FIELDS_BUT_ZERO "  zero = [1]; };", &err), 0,
                 "%s", err.msg);
    cr_assert(s.grad_accum_bytes == 0 && s.grad_accum_bf16_bytes == 0);
    cr_assert(!s.launch_blocking);
    cr_assert_lt(s.reserve_bytes, 0);           /* the system's */
    cr_assert_eq(read_text(&s, FIELDS_BUT_ZERO "  zero = [1]; grad_accum_bytes"
                           " = 6; grad_accum_bf16_bytes = 18;"
                           " launch_blocking = true; reserve_gib = 6.5;"
                           " bf16_grad_allreduce = true; };",
                           &err), 0,
                 "%s", err.msg);
    stack_apply(&s, &m, &j);
    cr_assert(j.grad_accum_bytes == 6 && j.grad_accum_bf16_bytes == 18);
    cr_assert(j.launch_blocking && j.bf16_grad_allreduce);
    assert_rel(j.reserve_bytes, 6.5 * 1073741824.0, 1e-12);
    cr_assert_eq(read_text(&s, FIELDS_BUT_ZERO "  zero = [1];\n"
                           "  grad_accum_bytes = -1; };", &err), TPL_ECONFIG);
    cr_assert(strstr(err.msg, "k:8: 'grad_accum_bytes' must be a number in "
                     "[0, 64]"), "%s", err.msg);
}

/* A schedule that does not exist, and an unknown stack name. */
Test(stack, bad_schedule_and_name)
{
    struct stack s;
    struct tpl_err err = { 0 };
    const char *sets[] = { "stack.schedules=1f1b,zb" };
    cr_assert_eq(stack_load(&s, "megatron-core", sets, 1, &err), TPL_ECONFIG);
    cr_assert(strstr(err.msg, "--set stack.schedules: 'schedules' must be a "
                     "list of 'gpipe', '1f1b'") == err.msg, "%s", err.msg);
    cr_assert_eq(stack_load(&s, "nosuch", NULL, 0, &err), TPL_ECONFIG);
    cr_assert_str_eq(err.msg, "unknown stack 'nosuch': not a preset (see "
                     "'trainplan list stacks') nor a file");
}

/* The effective dropout is the model's and the stack's: a GPT-3 model
 * (dropout 0.1) under Megatron-Core runs none, under Megatron-LM 2021 its
 * own; a model without dropout gets none from any stack. The job takes
 * the stack's kernel, overlaps and host time. */
Test(stack, dropout_and_job)
{
    struct stack mc = load_stack("megatron-core", NULL, 0);
    struct stack lm = load_stack("megatron-lm-2021", NULL, 0);
    struct model gpt = load_model("gpt3-175b"), llama = load_model("llama3-8b");
    struct model m;
    struct job j = make_job(2048, 8);
    cr_assert(gpt.dropout && !llama.dropout);
    m = gpt;
    stack_apply(&mc, &m, &j);
    cr_assert(!m.dropout);
    cr_assert_eq(j.attention, JOB_ATTN_FLASH);
    cr_assert(j.overlap_grad_reduce && j.overlap_param_gather);
    m = gpt;
    stack_apply(&lm, &m, &j);
    cr_assert(m.dropout);
    cr_assert_eq(j.attention, JOB_ATTN_UNFUSED);
    cr_assert(!j.overlap_grad_reduce && !j.overlap_param_gather);
    assert_rel(j.host_s, 61.1e-6, 1e-12);
    m = llama;
    stack_apply(&lm, &m, &j);
    cr_assert(!m.dropout);
}

/* Dropout off removes what Korthikanti et al. (2023) Table 2 counts for
 * it outside attention: per layer the two dropout masks, one byte per
 * element, 2sbh; and the embedding's dropout mask, sbh, on the first stage
 * (predictor/mem.c). With flash attention nothing of the scores is kept
 * either way, so at pp 1, tp 1, one micro-batch the difference is exactly
 * 2sbh per layer plus sbh. */
Test(stack, dropout_memory)
{
    struct stack mc = load_stack("megatron-core", NULL, 0);
    struct model m = load_model("gpt3-1.7b");
    struct hw_system h = load_system("dgx-a100");
    struct job j = make_job(2048, 8);
    struct plan p = make_plan(1, 1, 1, 1);
    struct pred_ctx a, b;
    struct pred_mem ma, mb;
    double sbh = 2048.0 * 1 * (double)m.hidden;
    pred_ctx_init(&a, &m, &h, &j, false);
    stack_apply(&mc, &m, &j);
    pred_ctx_init(&b, &m, &h, &j, false);
    pred_memory(&a, &p, &ma);
    pred_memory(&b, &p, &mb);
    /* per layer 2sbh, on the first stage also the embedding's sbh mask */
    assert_rel(ma.activations_bytes + ma.embed_logits_bytes -
               mb.activations_bytes - mb.embed_logits_bytes,
               2.0 * sbh * (double)m.layers + sbh, 1e-9);
}

/* The rules: a stack without interleaving refuses vpp > 1 (only once the
 * plan is otherwise valid), one without 1F1B refuses pp > 1; a zero value
 * outside the stack's modes is refused; the explanations name the rule. */
Test(stack, plan_rules)
{
    struct stack ds = load_stack("megatron-deepspeed", NULL, 0);
    struct stack tt = load_stack("torchtitan", NULL, 0);
    struct model m = load_model("llama3-70b");          /* 80 layers */
    struct job j = make_job(8192, 512);
    struct plan_limits lim = { .tp_domain = 8 };
    struct plan p = make_plan(8, 4, 8, 1);              /* 64 micro-batches */
    char why[200];
    stack_limits(&ds, &lim);
    /* DeepSpeed's engine overlaps no DP communication: overlap off only */
    cr_assert_eq(plan_check(&p, &m, &j, &lim), PLAN_RULE_STACK_OVERLAP);
    plan_rule_explain(PLAN_RULE_STACK_OVERLAP, &p, &m, &j, &lim, why, sizeof why);
    cr_assert_str_eq(why, "stack-overlap: the stack overlaps no data-parallel "
                     "communication (overlap n)");
    p.overlap = plan_overlap_default(&p, &lim);
    cr_assert_eq(p.overlap, 0);
    cr_assert_eq(plan_check(&p, &m, &j, &lim), PLAN_OK);
    p.vpp = 2;                                          /* 80 % 8 = 0, 64 % 4 = 0 */
    cr_assert_eq(plan_check(&p, &m, &j, &lim), PLAN_RULE_STACK_SCHEDULE);
    plan_rule_explain(PLAN_RULE_STACK_SCHEDULE, &p, &m, &j, &lim, why, sizeof why);
    cr_assert(strstr(why, "stack-schedule: vpp (2)") == why, "%s", why);
    p.vpp = 1;                  /* DeepSpeed: 82 slots cannot fill 81 stages */
    p.pp = 81;
    cr_assert_eq(plan_check(&p, &m, &j, &lim), PLAN_RULE_LAYERS_PP);
    p.pp = 4;
    lim.stack_1f1b = false;
    cr_assert_eq(plan_check(&p, &m, &j, &lim), PLAN_RULE_STACK_SCHEDULE);
    p.pp = 1;
    p.dp = 32;
    cr_assert_eq(plan_check(&p, &m, &j, &lim), PLAN_OK);  /* no pipeline */
    stack_limits(&tt, &lim);
    p.zero = 1;
    cr_assert_eq(plan_check(&p, &m, &j, &lim), PLAN_RULE_STACK_ZERO);
    plan_rule_explain(PLAN_RULE_STACK_ZERO, &p, &m, &j, &lim, why, sizeof why);
    cr_assert(strstr(why, "stack-zero: the stack cannot run zero 1") == why,
              "%s", why);
    p.zero = 0;
    cr_assert_eq(plan_check(&p, &m, &j, &lim), PLAN_OK);
    /* torchtitan overlaps: on is its default with dp > 1; with dp 1 there
     * is nothing to overlap (overlap-dp) */
    cr_assert_eq(plan_overlap_default(&p, &lim), 1);
    p.overlap = 1;
    cr_assert_eq(plan_check(&p, &m, &j, &lim), PLAN_OK);
    p.dp = 1;
    j.gbs = 64;
    cr_assert_eq(plan_check(&p, &m, &j, &lim), PLAN_RULE_OVERLAP_DP);
    cr_assert_eq(plan_overlap_default(&p, &lim), 0);
}

/* The validated region: optional as a whole, all four once one is there,
 * each minimum not above its maximum; kept as written. */
Test(stack, validated_region)
{
    struct stack s;
    struct tpl_err err;
    cr_assert_eq(read_text(&s, FIELDS_BUT_ZERO "  zero = [1]; };", &err), 0);
    cr_assert(s.region.gpus_hi == 0, "no fields: no region");
    cr_assert_eq(read_text(&s, FIELDS_BUT_ZERO "  zero = [1];\n"
                           "  validated_gpus_min = 8; validated_gpus_max = 1024;\n"
                           "  validated_params_b_min = 1.5;"
                           " validated_params_b_max = 70; };", &err), 0);
    cr_assert(s.region.gpus_lo == 8 && s.region.gpus_hi == 1024 &&
              s.region.params_b_lo == 1.5 && s.region.params_b_hi == 70);
    cr_assert_eq(read_text(&s, FIELDS_BUT_ZERO "  zero = [1];\n"
                           "  validated_gpus_min = 8; };", &err), TPL_ECONFIG);
    cr_assert_str_eq(err.msg, "k:1: missing field 'validated_gpus_max' in 'stack'");
    cr_assert_eq(read_text(&s, FIELDS_BUT_ZERO "  zero = [1];\n"
                           "  validated_gpus_min = 8; validated_gpus_max = 4;\n"
                           "  validated_params_b_min = 1;"
                           " validated_params_b_max = 2; };", &err), TPL_ECONFIG);
    cr_assert_str_eq(err.msg, "k:8: 'validated_gpus_max' (4) must not be "
                     "below 'validated_gpus_min' (8)");
}

/* validated_archs: optional (none: every architecture inside), a list of
 * 1 to 8 different lower-case names or one name alone; anything else
 * names its line. The presets carry the architectures of their rows. */
Test(stack, validated_archs)
{
    struct stack s;
    struct tpl_err err = { 0 };
    static const char *const bad[] = {
        "[]", "[\"Hopper\"]", "[\"hopper\", \"hopper\"]", "[1]", "5",
        "[\"a\", \"b\", \"c\", \"d\", \"e\", \"f\", \"g\", \"h\", \"i\"]",
        "[\"a-very-long-arch-name\"]",
    };
    char text[1024];
    cr_assert_eq(read_text(&s, FIELDS_BUT_ZERO "  zero = [1]; };", &err), 0);
    cr_assert(s.region.n_archs == 0 && stack_region_has_arch(&s.region, "hopper"));
    cr_assert_eq(read_text(&s, FIELDS_BUT_ZERO "  zero = [1];\n"
                           "  validated_archs = [\"ampere\", \"hopper\"]; };", &err), 0,
                 "%s", err.msg);
    cr_assert(s.region.n_archs == 2 && stack_region_has_arch(&s.region, "hopper") &&
              !stack_region_has_arch(&s.region, "blackwell") &&
              !stack_region_has_arch(&s.region, ""));
    cr_assert_eq(read_text(&s, FIELDS_BUT_ZERO "  zero = [1];\n"
                           "  validated_archs = \"cdna3\"; };", &err), 0, "%s", err.msg);
    cr_assert(s.region.n_archs == 1 && !strcmp(s.region.archs[0], "cdna3"));
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        snprintf(text, sizeof text, FIELDS_BUT_ZERO "  zero = [1];\n"
                 "  validated_archs = %s; };", bad[i]);
        cr_assert_eq(read_text(&s, text, &err), TPL_ECONFIG, "%s", bad[i]);
        cr_assert(strstr(err.msg, "'validated_archs' must be a list") &&
                  strstr(err.msg, "k:8:"), "%s: %s", bad[i], err.msg);
    }
    s = load_stack("megatron-core", NULL, 0);
    cr_assert(s.region.n_archs == 2 && !strcmp(s.region.archs[0], "blackwell") &&
              !strcmp(s.region.archs[1], "hopper"));
    s = load_stack("megatron-deepspeed", NULL, 0);
    cr_assert(s.region.n_archs == 1 && !strcmp(s.region.archs[0], "ampere"));
}

/* The optional FSDP2 fields: absent, no copy-out, Megatron's selective
 * recompute and one gather per unit (megatron-core); torchtitan's FSDP2
 * copies out and its selective is the op-level policy; the DeepSpeed
 * stacks gather each tensor; a bad value names its line; stack_apply
 * passes them to the job. */
Test(stack, fsdp2_optional_fields)
{
    struct stack mc = load_stack("megatron-core", NULL, 0);
    struct stack tt = load_stack("torchtitan", NULL, 0);
    struct stack am = load_stack("nemo-automodel", NULL, 0);
    struct stack s;
    struct tpl_err err = { 0 };
    struct model m = { .dropout = false };
    struct job j;
    cr_assert(!mc.fsdp_copy_out && mc.selective == JOB_SELECTIVE_ATTENTION);
    cr_assert(tt.fsdp_copy_out && tt.selective == JOB_SELECTIVE_OP);
    cr_assert(am.fsdp_copy_out && am.selective == JOB_SELECTIVE_ATTENTION);
    cr_assert(mc.zero3_gather == JOB_GATHER_UNIT &&
              tt.zero3_gather == JOB_GATHER_UNIT);
    cr_assert_eq(load_stack("megatron-lm-2021", NULL, 0).zero3_gather,
                 JOB_GATHER_PARAMETER);             /* DeepSpeed's ZeRO-3 */
    cr_assert_eq(load_stack("megatron-deepspeed", NULL, 0).zero3_gather,
                 JOB_GATHER_PARAMETER);
    cr_assert_str_eq(stack_zero3_gather_name(JOB_GATHER_PARAMETER), "parameter");
    cr_assert_str_eq(stack_selective_name(JOB_SELECTIVE_OP), "op");
    cr_assert_eq(read_text(&s, FIELDS_BUT_ZERO "  zero = [1];\n"
                           "  selective = \"every\"; };", &err), TPL_ECONFIG);
    cr_assert_str_eq(err.msg, "k:8: 'selective' must be one of 'attention', 'op'");
    job_default(&j);
    cr_assert(!j.repeat_kv && !j.fp8_param_gather);
    stack_apply(&tt, &m, &j);
    cr_assert(j.fsdp_copy_out && j.selective == JOB_SELECTIVE_OP);
    cr_assert(j.repeat_kv && !j.fp8_param_gather);
    stack_apply(&mc, &m, &j);
    cr_assert(!j.repeat_kv && j.fp8_param_gather);
    cr_assert_eq(j.softmax_max_seq, 4096);
    assert_rel(j.step_bytes, 34.0, 0);
    stack_apply(&tt, &m, &j);
    assert_rel(j.step_bytes, 92.0, 0);
    s = load_stack("megatron-lm-2021", NULL, 0);
    stack_apply(&s, &m, &j);
    cr_assert_eq(j.softmax_max_seq, 2048);
}
