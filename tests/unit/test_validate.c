/* tests/unit/test_validate.c: the writers of a fidelity report
 * (results/validate.h): every format names a run's plan by its canonical
 * key (spaces/plan.h), vpp value included. */
#include "helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/validate.h"

static char *written(const struct fid_report *v, enum res_format fmt)
{
    char *buf = NULL;
    size_t len = 0;
    struct tpl_err err = { 0 };
    FILE *fp = open_memstream(&buf, &len);
    cr_assert_not_null(fp);
    cr_assert_eq(res_validate_write(fp, fmt, v, &err), 0, "%s", err.msg);
    fclose(fp);
    return buf;
}

/* The runs schema's header with the stack column. */
#define STACK_HEADER \
    "id,source,confidence,system,gpu,num_gpus,gpus_per_node,model,layers," \
    "hidden,heads,kv_heads,ffn_hidden,vocab,seq_len,glu,moe_experts," \
    "moe_topk,tp,pp,dp,cp,ep,vpp,sp,recompute,zero,mbs,gbs,precision," \
    "measured_iter_s,measured_kind,measured_mem_gib,oom,assumed,stack\n"

/* The fidelity report of a runs text (parsed into *runs, which the caller
 * releases after fid_report_free). */
static struct fid_report *report_of(struct runs *runs, const char *name,
                                    const char *text)
{
    struct tpl_err err = { 0 };
    cr_assert_eq(runs_parse(runs, name, text, &err), 0, "%s", err.msg);
    return fid_report_new(runs, NULL);
}

Test(validate, plan_key_keeps_the_vpp_value)
{
    static const char text[] =
        "id,source,confidence,system,gpu,num_gpus,gpus_per_node,model,layers,"
        "hidden,heads,kv_heads,ffn_hidden,vocab,seq_len,glu,moe_experts,"
        "moe_topk,tp,pp,dp,cp,ep,vpp,sp,recompute,zero,mbs,gbs,precision,"
        "measured_iter_s,measured_kind,measured_mem_gib,oom,assumed\n"
        "T-01,alpha,A,dgx-h100,H100-SXM5-80GB,64,8,test-8b,32,4096,32,8,14336,"
        "128256,8192,y,0,0,4,2,8,1,1,2,y,selective,1,1,256,bf16,10.0,measured,,n,\n";
    struct runs runs;
    struct tpl_err err = { 0 };
    struct fid_report *v;
    cr_assert_eq(runs_parse(&runs, "vpp.csv", text, &err), 0, "%s", err.msg);
    v = fid_report_new(&runs, NULL);
    cr_assert(v->rows[0].predicted, "%s", v->rows[0].reason);
    for (int f = 0; f < RES_FMT_COUNT; f++) {
        char *out = written(v, (enum res_format)f);
        cr_assert(strstr(out, "tp4.pp2.dp8.mb1.vpp2.sp.rc-sel.z1"), "format %d:\n%s",
                  f, out);
        free(out);
    }
    fid_report_free(v);
    runs_release(&runs);
}

/* A row of stack 'other' whose plan the default stack cannot run (FSDP
 * under a pipeline: megatron-core's zero-pp) is predicted with the first
 * fallback preset that runs it, torchtitan, and says so; one the default
 * runs, or one that names megatron-core, keeps it. */
Test(validate, other_stack_falls_back)
{
    static const char text[] =
        STACK_HEADER
        "T-11,g,B,dgx-h100,H100-SXM5-80GB,64,8,test-8b,32,4096,32,8,14336,"
        "128256,8192,y,0,0,2,2,16,1,1,1,y,none,3,1,256,bf16,10.0,measured,,n,,"
        "other\n"
        "T-12,g,B,dgx-h100,H100-SXM5-80GB,64,8,test-8b,32,4096,32,8,14336,"
        "128256,8192,y,0,0,2,2,16,1,1,1,y,none,3,1,256,bf16,10.0,measured,,n,,"
        "megatron-core\n"
        "T-13,g,B,dgx-h100,H100-SXM5-80GB,64,8,test-8b,32,4096,32,8,14336,"
        "128256,8192,y,0,0,2,2,16,1,1,1,y,none,1,1,256,bf16,10.0,measured,,n,,"
        "other\n";
    struct runs runs;
    struct fid_report *v;
    v = report_of(&runs, "other.csv", text);
    cr_assert(v->rows[0].predicted && v->rows[0].rule == PLAN_OK);
    cr_assert_str_eq(v->rows[0].stack, "torchtitan");
    cr_assert_str_eq(v->rows[0].reason, "stack 'other' predicted as torchtitan "
                     "(megatron-core: zero-pp)");
    cr_assert_str_eq(v->rows[1].stack, "megatron-core");
    cr_assert_eq(v->rows[1].rule, PLAN_RULE_ZERO_PP);
    cr_assert_str_eq(v->rows[2].stack, "megatron-core");
    cr_assert_eq(v->rows[2].rule, PLAN_OK);
    cr_assert_str_eq(v->rows[2].reason, "stack 'other' predicted as megatron-core");
    fid_report_free(v);
    runs_release(&runs);
}

/* A megatron-lm-2021 row with sequence parallelism or selective recompute
 * ran Megatron-LM of 2022-03 or later, which fuses the weight-gradient
 * accumulation into the GEMM in bf16 (fidelity/predict.c row_grad_accum):
 * its bf16 row is faster than its fp16 twin, which still pays the 2021
 * hook's pass; without either feature the two are the same. */
Test(validate, megatron_2022_fuses_grad_accumulation)
{
#define ROW(id, sp, rc, prec) id ",k,A,selene-a100,A100-SXM4-80GB,64,8,g,24," \
    "4096,32,32,16384,51200,2048,n,0,0,8,8,1,1,1,1," sp "," rc ",0,1,64," \
    prec ",10.0,measured,,n,,megatron-lm-2021\n"
    static const char text[] =
        STACK_HEADER
        ROW("A", "y", "selective", "bf16") ROW("B", "y", "selective", "fp16")
        ROW("C", "n", "full", "bf16") ROW("D", "n", "full", "fp16")
        ROW("E", "n", "selective", "bf16") ROW("F", "n", "selective", "fp16");
#undef ROW
    struct runs runs;
    struct fid_report *v;
    v = report_of(&runs, "mlm2022.csv", text);
    for (int i = 0; i < 6; i++)
        cr_assert(v->rows[i].predicted, "%d: %s", i, v->rows[i].reason);
    cr_assert_lt(v->rows[0].pred_s, v->rows[1].pred_s * 0.99);
    cr_assert_eq(v->rows[2].pred_s, v->rows[3].pred_s);
    cr_assert_lt(v->rows[4].pred_s, v->rows[5].pred_s * 0.99);
    fid_report_free(v);
    runs_release(&runs);
}

/* The Megatron-LM README's H100 benchmarks ran TP communication overlap
 * (its "Benchmark Configuration": --tp-comm-overlap): a row of that source
 * with sequence parallelism is predicted with tpo, as the NeMo tables' are;
 * another source's is not. */
Test(validate, readme_rows_overlap_tp)
{
#define ROW(id, src) id "," src ",B,dgx-h100,H100-SXM5-80GB,384,8,g,48,7168," \
    "56,56,28672,131072,4096,n,0,0,8,1,48,1,1,1,y,none,1,1,192,bf16,0.9," \
    "derived,,n,,megatron-core\n"
    static const char text[] =
        STACK_HEADER
        ROW("R", "megatron_readme_h100") ROW("S", "someone");
#undef ROW
    struct runs runs;
    struct fid_report *v;
    v = report_of(&runs, "readme.csv", text);
    cr_assert(v->rows[0].predicted && v->rows[1].predicted);
    cr_assert(v->rows[0].plan.tpo && !v->rows[1].plan.tpo);
    cr_assert_lt(v->rows[0].pred_s, v->rows[1].pred_s);
    fid_report_free(v);
    runs_release(&runs);
}
