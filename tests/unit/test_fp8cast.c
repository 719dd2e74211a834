/* tests/unit/test_fp8cast.c: predictor/fp8cast.c, torchao's dynamic
 * tensorwise FP8 casts as kernels of their own (the stack's fp8_cast).
 *
 * By hand, from the file's header: 5 bytes an element per cast (amax read
 * 2, cast read 2 and write 1); forward input a and weight w once, backward
 * a and w again and the output gradient g twice sharing one amax, 8 bytes.
 * The tiny model (hidden 1024, 8 heads and 8 kv heads of 128, MLP 4096, no
 * GLU), seq 1024, mbs 1, tp 1: 1024 tokens.
 *   QKV   a 1024x1024 = 1,048,576  w 3072x1024 = 3,145,728  g 3,145,728
 *         fwd 5 (a + w) = 20,971,520 B; bwd 20,971,520 + 8 g = 46,137,344 B
 *   proj  a = w = g = 1,048,576: fwd 10,485,760; bwd 18,874,368
 *   up    a 1,048,576  w = g = 4,194,304: fwd 26,214,400; bwd 59,768,832
 *   down  a = w = 4,194,304  g 1,048,576: fwd 41,943,040; bwd 50,331,648
 * at 1e12 B/s (round_rates) and no launch cost: bytes x 1e-12 s.
 * With tp 2 and sp, QKV's input is cast on its 512 own rows before the
 * all-gather: a 524,288, w = g = 1,572,864: fwd 10,485,760 B. */
#include "helpers.h"

#include <string.h>

static void setup(struct pred_ctx *c, enum job_precision prec,
                  enum job_fp8_cast cast)
{
    struct model m = { .name = "tiny", .layers = 8, .hidden = 1024,
                       .heads = 8, .kv_heads = 8, .ffn_hidden = 4096,
                       .vocab = 32000, .norm = MODEL_NORM_RMSNORM,
                       .position = MODEL_POS_ROPE };
    struct hw_system h = load_system("dgx-h100");
    struct job j = make_job(1024, 8);
    j.precision = prec;
    j.fp8_cast = cast;
    pred_ctx_init(c, &m, &h, &j, false);
    round_rates(c);
}

/* The cast time of each GEMM operator: layer with torchao minus fused. */
static void cast_times(const struct plan *p, double *fwd, double *bwd)
{
    static const enum pred_op ops[4] = { PRED_OP_QKV, PRED_OP_PROJ,
                                         PRED_OP_FC1, PRED_OP_FC2 };
    struct pred_ctx a, b;
    struct pred_layer la, lb;
    setup(&a, JOB_PREC_FP8, JOB_FP8_CAST_TORCHAO);
    setup(&b, JOB_PREC_FP8, JOB_FP8_CAST_FUSED);
    pred_layer_time(&a, p, &la);
    pred_layer_time(&b, p, &lb);
    for (int i = 0; i < 4; i++) {
        fwd[i] = la.fwd_s[ops[i]] - lb.fwd_s[ops[i]];
        bwd[i] = la.bwd_s[ops[i]] - lb.bwd_s[ops[i]];
    }
}

Test(fp8cast, bytes_by_hand)
{
    cr_assert_float_eq(pred_fp8_cast_bytes(1048576, 3145728, 3145728, 0),
                       20971520.0, 1e-3);
    cr_assert_float_eq(pred_fp8_cast_bytes(1048576, 3145728, 3145728, 1),
                       46137344.0, 1e-3);
}

Test(fp8cast, each_gemm_pays_its_operands_casts)
{
    static const double fwd_b[4] = { 20971520, 10485760, 26214400, 41943040 };
    static const double bwd_b[4] = { 46137344, 18874368, 59768832, 50331648 };
    struct plan p = make_plan(1, 1, 1, 1);
    double fwd[4], bwd[4];
    cast_times(&p, fwd, bwd);
    for (int i = 0; i < 4; i++) {
        cr_assert_float_eq(fwd[i], fwd_b[i] * 1e-12, 1e-12, "op %d fwd", i);
        cr_assert_float_eq(bwd[i], bwd_b[i] * 1e-12, 1e-12, "op %d bwd", i);
    }
}

Test(fp8cast, sequence_parallel_input_cast_before_the_gather)
{
    struct plan p = make_plan(2, 1, 1, 1);
    double fwd[4], bwd[4];
    p.sp = 1;
    cast_times(&p, fwd, bwd);
    cr_assert_float_eq(fwd[0], 10485760e-12, 1e-12);
}

/* Nothing for a 16-bit job, nor where the stack fuses the casts. */
Test(fp8cast, only_fp8_jobs_with_torchao_casts)
{
    struct pred_ctx a, b;
    struct pred_layer la, lb;
    struct plan p = make_plan(1, 1, 1, 1);
    setup(&a, JOB_PREC_BF16, JOB_FP8_CAST_TORCHAO);
    setup(&b, JOB_PREC_BF16, JOB_FP8_CAST_FUSED);
    pred_layer_time(&a, &p, &la);
    pred_layer_time(&b, &p, &lb);
    cr_assert(!memcmp(la.fwd_s, lb.fwd_s, sizeof la.fwd_s));
    cr_assert(!memcmp(la.bwd_s, lb.bwd_s, sizeof la.bwd_s));
}

/* The stacks' files: torchtitan casts with torchao and merges its ring
 * attention's steps eagerly; Megatron-Core's Transformer Engine fuses. */
Test(fp8cast, stacks_say_how_they_cast)
{
    struct stack s;
    struct tpl_err err = { 0 };
    cr_assert_eq(stack_load(&s, "torchtitan", NULL, 0, &err), 0, "%s", err.msg);
    cr_assert_eq(s.fp8_cast, JOB_FP8_CAST_TORCHAO);
    cr_assert_str_eq(stack_fp8_cast_name(s.fp8_cast), "torchao");
    cr_assert(s.cp_merge_eager);            /* PyTorch ring attention */
    cr_assert(s.separate_proj);             /* wq, wk, wv; w1, w3 */
    cr_assert_eq(stack_load(&s, "megatron-core", NULL, 0, &err), 0, "%s", err.msg);
    cr_assert_eq(s.fp8_cast, JOB_FP8_CAST_FUSED);
    cr_assert(!s.cp_merge_eager);           /* Transformer Engine's CP */
    cr_assert(!s.separate_proj);            /* linear_qkv, linear_fc1 */
}

/* A cast mode that does not exist: one line naming the field. */
Test(fp8cast, bad_mode_is_refused)
{
    struct stack s;
    struct tpl_err err = { 0 };
    const char *sets[] = { "stack.fp8_cast=delayed" };
    cr_assert_eq(stack_load(&s, "torchtitan", sets, 1, &err), TPL_ECONFIG);
    cr_assert(strstr(err.msg, "fp8_cast"), "%s", err.msg);
}
