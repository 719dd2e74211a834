/* spaces/job.c: job defaults and the names of its enumerations. */
#include "spaces/job.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

static const char *const prec_names[JOB_PREC_COUNT] = {
    [JOB_PREC_BF16] = "bf16", [JOB_PREC_FP16] = "fp16", [JOB_PREC_FP8] = "fp8",
};
static const char *const attn_names[JOB_ATTN_COUNT] = {
    [JOB_ATTN_FLASH] = "flash", [JOB_ATTN_UNFUSED] = "unfused",
};
static const char *const rc_names[JOB_RC_COUNT] = {
    [JOB_RC_CORE_ATTN] = "core_attn", [JOB_RC_MOE_ACT] = "moe_act",
    [JOB_RC_LAYERNORM] = "layernorm", [JOB_RC_MLA_UP_PROJ] = "mla_up_proj",
    [JOB_RC_MLP] = "mlp", [JOB_RC_SHARED_EXPERTS] = "shared_experts",
    [JOB_RC_MOE] = "moe",
};
static_assert(JOB_PREC_COUNT == 3 && JOB_ATTN_COUNT == 2 && JOB_RC_COUNT == 7,
              "update the name tables");

void job_default(struct job *j)
{
    j->seq = 2048;
    j->gbs = 512;
    j->precision = JOB_PREC_BF16;
    j->attention = JOB_ATTN_FLASH;
    j->tokens = 0;
    j->overlap_grad_reduce = true;
    j->overlap_param_gather = true;
    j->fsdp_reshard = JOB_RESHARD_ALWAYS;
    j->host_s = 0;
    j->grad_accum_bytes = j->grad_accum_bf16_bytes = 0;
    j->grad_copy_bf16_bytes = 0;
    j->grad_bytes = 4;          /* fp32 main_grad (predictor/mem.c) */
    j->grad_fp16_bytes = -1;    /* as grad_bytes */
    j->optim_bytes = 12;        /* fp32 master weights, Adam m and v */
    j->loss_logit_bytes = 6;    /* bf16 logits + fused fp32 loss (mem.c) */
    j->reserve_bytes = -1;
    j->launch_blocking = j->bf16_grad_allreduce = false;
    j->grad_reduce_16bit = false;   /* fp32, as Megatron-LM forces for bf16 */
    j->cp_comm = JOB_CP_P2P;
    j->moe_dispatch = JOB_MOE_ALLTOALL;
    j->moe_host_s = 0;
    j->moe_host_sync = false;
    j->cuda_graphs = 0;
    j->fsdp_copy_out = false;
    j->selective = JOB_SELECTIVE_ATTENTION;
    j->zero3_gather = JOB_GATHER_UNIT;
    j->recompute_modules = JOB_RC_BIT(JOB_RC_CORE_ATTN);
    j->fp8_cast = JOB_FP8_CAST_FUSED;
    j->tpo_method = JOB_TPO_USERBUFFERS;
    j->ddp_bucket_params = 0;
    j->cp_merge_eager = false;
    j->separate_proj = false;
    j->fp8_param_gather = false;
    j->repeat_kv = false;
    j->softmax_max_seq = JOB_SOFTMAX_MAX_SEQ;
    j->step_bytes = JOB_STEP_BYTES;
    j->fp8_delayed = false;     /* current / MXFP8 scaling (job.h) */
}

const char *job_precision_name(enum job_precision p) { return prec_names[p]; }
const char *job_attention_name(enum job_attention a) { return attn_names[a]; }

static int lookup(const char *const names[], int n, const char *s)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], s))
            return i;
    return -1;
}

int job_precision_parse(const char *s, enum job_precision *out)
{
    int i = lookup(prec_names, JOB_PREC_COUNT, s);
    if (i >= 0)
        *out = (enum job_precision)i;
    return i >= 0 ? 0 : -1;
}

int job_attention_parse(const char *s, enum job_attention *out)
{
    int i = lookup(attn_names, JOB_ATTN_COUNT, s);
    if (i >= 0)
        *out = (enum job_attention)i;
    return i >= 0 ? 0 : -1;
}


const char *job_rc_module_name(enum job_rc_module m) { return rc_names[m]; }

int job_rc_modules_parse(const char *s, unsigned *out, char *bad, size_t n)
{
    unsigned set = 0;
    char word[32];
    size_t k;
    int i;
    while (*s) {
        s += strspn(s, " ,");
        k = strcspn(s, " ,");
        if (k == 0)
            break;
        snprintf(word, sizeof word, "%.*s", (int)(k < 31 ? k : 31), s);
        if ((i = lookup(rc_names, JOB_RC_COUNT, word)) < 0 || k > 31) {
            snprintf(bad, n, "%.*s", (int)k, s);
            return -1;
        }
        set |= JOB_RC_BIT(i);
        s += k;
    }
    *out = set;
    return 0;
}

void job_rc_modules_format(unsigned set, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < JOB_RC_COUNT && len < n; i++)
        if (set & JOB_RC_BIT(i))
            len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? " " : "",
                                    rc_names[i]);
}
