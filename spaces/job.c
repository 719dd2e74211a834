/* spaces/job.c: job defaults and the names of its enumerations. */
#include "spaces/job.h"

#include <assert.h>
#include <string.h>

static const char *const prec_names[JOB_PREC_COUNT] = {
    [JOB_PREC_BF16] = "bf16", [JOB_PREC_FP16] = "fp16", [JOB_PREC_FP8] = "fp8",
};
static const char *const attn_names[JOB_ATTN_COUNT] = {
    [JOB_ATTN_FLASH] = "flash", [JOB_ATTN_UNFUSED] = "unfused",
};
static_assert(JOB_PREC_COUNT == 3 && JOB_ATTN_COUNT == 2, "update the name tables");

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
    j->reserve_bytes = -1;
    j->launch_blocking = j->bf16_grad_allreduce = false;
    j->cp_comm = JOB_CP_P2P;
    j->moe_dispatch = JOB_MOE_ALLTOALL;
    j->fsdp_copy_out = false;
    j->selective = JOB_SELECTIVE_ATTENTION;
    j->zero3_gather = JOB_GATHER_UNIT;
    j->fp8_cast = JOB_FP8_CAST_FUSED;
    j->cp_merge_eager = false;
    j->separate_proj = false;
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

