/* spaces/stack.c: stack file loader (stack.h, spaces/README.md "Stack
 * file"): every field required, an unknown one named with its file and
 * line; the list fields (schedules, zero, framework) take an array, one
 * value, or a comma list as --set gives it. */
#include "spaces/stack.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

static const char *const sched_names[STACK_SCHED_COUNT] = {
    [STACK_SCHED_GPIPE] = "gpipe", [STACK_SCHED_1F1B] = "1f1b",
    [STACK_SCHED_INTERLEAVED] = "interleaved",
    [STACK_SCHED_ZERO_BUBBLE] = "zero-bubble",
};
static const char *const tpo_names[STACK_TPO_COUNT] = {
    [STACK_TPO_NONE] = "none", [STACK_TPO_OFF] = "off", [STACK_TPO_ON] = "on",
};
static const char *const cp_names[JOB_CP_COUNT] = {
    [JOB_CP_NONE] = "none", [JOB_CP_P2P] = "p2p",
    [JOB_CP_ALLGATHER] = "allgather", [JOB_CP_A2A] = "a2a",
};
static const char *const moe_names[JOB_MOE_COUNT] = {
    [JOB_MOE_NONE] = "none", [JOB_MOE_ALLTOALL] = "alltoall",
    [JOB_MOE_FLEX] = "flex",
};
static const char *const fw_names[STACK_FW_COUNT] = {
    [STACK_FW_MEGATRON] = "megatron", [STACK_FW_NEMO] = "nemo",
    [STACK_FW_TORCHTITAN] = "torchtitan",
};
static const char *const zero_names[STACK_MAX_ZERO + 1] = { "0", "1", "2", "3" };
static const char *const attn_names[JOB_ATTN_COUNT] = { "flash", "unfused" };
static const char *const reshard_names[JOB_RESHARD_COUNT] = {
    [JOB_RESHARD_ALWAYS] = "always", [JOB_RESHARD_NEVER] = "never",
    [JOB_RESHARD_DEFAULT] = "default",
};
static const char *const selective_names[JOB_SELECTIVE_COUNT] = {
    [JOB_SELECTIVE_ATTENTION] = "attention", [JOB_SELECTIVE_OP] = "op",
};
static const char *const gather_names[JOB_GATHER_COUNT] = {
    [JOB_GATHER_UNIT] = "unit", [JOB_GATHER_PARAMETER] = "parameter",
};
static const char *const fp8_cast_names[JOB_FP8_CAST_COUNT] = {
    [JOB_FP8_CAST_FUSED] = "fused", [JOB_FP8_CAST_TORCHAO] = "torchao",
};
static const char *const tpo_method_names[JOB_TPO_METHOD_COUNT] = {
    [JOB_TPO_USERBUFFERS] = "userbuffers", [JOB_TPO_ASYNC] = "async_tp",
};
static_assert(JOB_SELECTIVE_COUNT == 2 && JOB_GATHER_COUNT == 2 &&
              JOB_FP8_CAST_COUNT == 2 && JOB_TPO_METHOD_COUNT == 2,
              "update selective_names, gather_names, fp8_cast_names, "
              "tpo_method_names");
static_assert(STACK_SCHED_COUNT == 4 && STACK_TPO_COUNT == 3 &&
              JOB_CP_COUNT == 4 &&
              STACK_FW_COUNT == 3 && JOB_ATTN_COUNT == 2 &&
              JOB_RESHARD_COUNT == 3 && JOB_MOE_COUNT == 3,
              "update the stack's name tables");

const char *stack_schedule_name(enum stack_schedule k) { return sched_names[k]; }
const char *stack_tp_overlap_name(enum stack_tp_overlap k) { return tpo_names[k]; }
const char *stack_framework_name(enum stack_framework f) { return fw_names[f]; }
const char *stack_cp_comm_name(enum job_cp_comm k) { return cp_names[k]; }
const char *stack_reshard_name(enum job_reshard r) { return reshard_names[r]; }
const char *stack_moe_dispatch_name(enum job_moe_dispatch d) { return moe_names[d]; }
const char *stack_selective_name(enum job_selective k) { return selective_names[k]; }
const char *stack_fp8_cast_name(enum job_fp8_cast k) { return fp8_cast_names[k]; }
const char *stack_tpo_method_name(enum job_tpo_method k) { return tpo_method_names[k]; }
const char *stack_zero3_gather_name(enum job_zero3_gather k) { return gather_names[k]; }

int stack_framework_parse(const char *name, enum stack_framework *out)
{
    for (int i = 0; i < STACK_FW_COUNT; i++)
        if (!strcmp(name, fw_names[i])) {
            *out = (enum stack_framework)i;
            return 0;
        }
    return -1;
}

bool stack_has_framework(const struct stack *s, enum stack_framework f)
{
    return s->frameworks >> f & 1;
}

static const char *const stack_fields[] = {
    "name", "description", "attention", "dropout", "overlap_grad_reduce",
    "overlap_param_gather", "host_us", "schedules", "zero", "tp_comm_overlap",
    "cp_comm", "framework", "band_low_pct", "band_high_pct",
    "validated_gpus_min", "validated_gpus_max", "validated_params_b_min",
    "validated_params_b_max", "validated_archs", "pipeline_split", "zero_pp", "fsdp_reshard",
    "moe_dispatcher", "moe_a2a_overlap", "ep_mesh",
    "fsdp_copy_out", "selective", "zero3_gather",   /* optional (read_fsdp2) */
    "grad_accum_bytes", "grad_accum_bf16_bytes", "launch_blocking",
    "grad_copy_bf16_bytes", "reserve_gib", "bf16_grad_allreduce",
    "fp8_cast", "cp_merge_eager", "separate_proj", "grad_bytes",
    "optimizer_bytes", "optimizer_offload", "grad_fp16_bytes",
    "loss_logit_bytes", "moe_host_us", "moe_host_sync", "cuda_graph_scope",
    "recompute_block", "fp8_param_gather", "repeat_kv",
    "fused_softmax_max_seq", "optimizer_step_bytes", "tp_overlap_method",
    "ddp_bucket_params", "grad_reduce_16bit", NULL,
};
static const char *const root_groups[] = { "stack", NULL };

/* ---- list fields: an array or list, one scalar, or "a,b" ---- */

struct names { const char *const *v; int n; };

static int name_index(struct names nm, const char *tok, size_t len)
{
    for (int i = 0; i < nm.n; i++)
        if (strlen(nm.v[i]) == len && !strncmp(nm.v[i], tok, len))
            return i;
    return -1;
}

/* Add each comma-separated name of 'text' to *bits; -1 on a stranger. */
static int add_names(struct names nm, const char *text, uint32_t *bits)
{
    const char *p = text;
    do {
        size_t len = strcspn(p, ",");
        int i = name_index(nm, p, len);
        if (i < 0)
            return -1;
        *bits |= 1u << i;
        p += len;
    } while (*p++ == ',');
    return 0;
}

/* One element: a string of names, or an integer spelled as a name. */
static int add_elem(struct names nm, const config_setting_t *e, uint32_t *bits)
{
    char num[24];
    int t = config_setting_type(e);
    if (t == CONFIG_TYPE_STRING)
        return add_names(nm, config_setting_get_string(e), bits);
    if (t != CONFIG_TYPE_INT && t != CONFIG_TYPE_INT64)
        return -1;
    snprintf(num, sizeof num, "%lld", (long long)config_setting_get_int64(e));
    return add_names(nm, num, bits);
}

/* "'1f1b', 'interleaved'" for a message. */
static void names_list(struct names nm, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < nm.n && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s'%s'", i ? ", " : "",
                                nm.v[i]);
}

static int read_set(const struct conf_group *g, const char *key,
                    struct names nm, bool may_be_empty, uint32_t *bits,
                    struct tpl_err *err)
{
    const config_setting_t *s = config_setting_get_member(g->s, key);
    char where[200], must[160];
    int n, bad = 0;
    *bits = 0;
    if (!s)
        return conf_int(g, key, 0, 0, &(int64_t){0}, err);    /* "missing" */
    n = config_setting_is_aggregate(s) ? config_setting_length(s) : 0;
    if (config_setting_is_aggregate(s))
        for (int i = 0; i < n && !bad; i++)
            bad = add_elem(nm, config_setting_get_elem(s, (unsigned)i), bits);
    else
        bad = add_elem(nm, s, bits);
    if (!bad && (*bits || may_be_empty))
        return 0;
    conf_where(g->c, s, where, sizeof where);
    names_list(nm, must, sizeof must);
    return tpl_errorf(err, TPL_ECONFIG, "%s: '%s' must be a list of %s%s",
                      where, key, must, may_be_empty ? " (may be empty)" : "");
}

/* ---- the file ---- */

static int read_kinds(struct stack *s, const struct conf_group *g,
                      struct tpl_err *err)
{
    int attn, tpo, split, cp, rs;
    int64_t zpp;
    if (conf_str(g, "name", s->name, sizeof s->name, err) ||
        conf_str(g, "description", s->description, sizeof s->description, err) ||
        conf_enum(g, "attention", attn_names, JOB_ATTN_COUNT, &attn, err) ||
        conf_bool(g, "dropout", &s->dropout, err) ||
        conf_bool(g, "overlap_grad_reduce", &s->overlap_grad_reduce, err) ||
        conf_bool(g, "overlap_param_gather", &s->overlap_param_gather, err) ||
        conf_num(g, "host_us", 0, false, 1e6, &s->host_s, err) ||
        conf_enum(g, "tp_comm_overlap", tpo_names, STACK_TPO_COUNT, &tpo, err) ||
        conf_enum(g, "cp_comm", cp_names, JOB_CP_COUNT, &cp, err) ||
        conf_enum(g, "pipeline_split", stage_split_names, STAGE_SPLIT_COUNT,
                  &split, err) ||
        conf_int(g, "zero_pp", 0, STACK_MAX_ZERO, &zpp, err) ||
        conf_enum(g, "fsdp_reshard", reshard_names, JOB_RESHARD_COUNT, &rs, err))
        return TPL_ECONFIG;
    s->split = (enum stage_split)split;
    s->cp_comm = (enum job_cp_comm)cp;
    s->zero_pp = (int32_t)zpp;
    s->fsdp_reshard = (enum job_reshard)rs;
    s->attention = (enum job_attention)attn;
    s->tp_comm_overlap = (enum stack_tp_overlap)tpo;
    s->host_s *= 1e-6;
    return 0;
}

/* The optional FSDP2, activation-checkpointing and FP8-cast fields. */
static int read_fsdp2(struct stack *s, const struct conf_group *g,
                      struct tpl_err *err)
{
    int sel = JOB_SELECTIVE_ATTENTION, ga = JOB_GATHER_UNIT;
    int fc = JOB_FP8_CAST_FUSED, tm = JOB_TPO_USERBUFFERS;
    if ((conf_has(g, "recompute_block") &&
         conf_bool(g, "recompute_block", &s->recompute_block, err)) ||
        (conf_has(g, "separate_proj") &&
         conf_bool(g, "separate_proj", &s->separate_proj, err)) ||
        (conf_has(g, "fp8_param_gather") &&
         conf_bool(g, "fp8_param_gather", &s->fp8_param_gather, err)) ||
        (conf_has(g, "grad_reduce_16bit") &&
         conf_bool(g, "grad_reduce_16bit", &s->grad_reduce_16bit, err)) ||
        (conf_has(g, "repeat_kv") &&
         conf_bool(g, "repeat_kv", &s->repeat_kv, err)) ||
        (conf_has(g, "cp_merge_eager") &&
         conf_bool(g, "cp_merge_eager", &s->cp_merge_eager, err)) ||
        (conf_has(g, "fp8_cast") &&
         conf_enum(g, "fp8_cast", fp8_cast_names, JOB_FP8_CAST_COUNT, &fc,
                   err)) ||
        (conf_has(g, "tp_overlap_method") &&
         conf_enum(g, "tp_overlap_method", tpo_method_names,
                   JOB_TPO_METHOD_COUNT, &tm, err)) ||
        (conf_has(g, "fsdp_copy_out") &&
         conf_bool(g, "fsdp_copy_out", &s->fsdp_copy_out, err)) ||
        (conf_has(g, "selective") &&
         conf_enum(g, "selective", selective_names, JOB_SELECTIVE_COUNT, &sel,
                   err)) ||
        (conf_has(g, "zero3_gather") &&
         conf_enum(g, "zero3_gather", gather_names, JOB_GATHER_COUNT, &ga,
                   err)))
        return TPL_ECONFIG;
    s->selective = (enum job_selective)sel;
    s->zero3_gather = (enum job_zero3_gather)ga;
    s->fp8_cast = (enum job_fp8_cast)fc;
    s->tpo_method = (enum job_tpo_method)tm;
    return 0;
}

/* band_low_pct <= band_high_pct, each in range; kept as fractions. */
static int read_band(struct stack *s, const struct conf_group *g,
                     struct tpl_err *err)
{
    char where[200];
    if (conf_num(g, "band_low_pct", STACK_BAND_MIN_PCT, false,
                 STACK_BAND_MAX_PCT, &s->band_lo, err) ||
        conf_num(g, "band_high_pct", STACK_BAND_MIN_PCT, false,
                 STACK_BAND_MAX_PCT, &s->band_hi, err))
        return TPL_ECONFIG;
    if (s->band_lo > s->band_hi) {
        conf_where(g->c, config_setting_get_member(g->s, "band_high_pct"),
                   where, sizeof where);
        return tpl_errorf(err, TPL_ECONFIG, "%s: 'band_high_pct' (%g) must "
                          "not be below 'band_low_pct' (%g)", where,
                          s->band_hi, s->band_lo);
    }
    s->band_lo /= 100;
    s->band_hi /= 100;
    return 0;
}

/* The validated region: all four fields or none; each min <= its max. */
static const char *const region_fields[] = {
    "validated_gpus_min", "validated_gpus_max", "validated_params_b_min",
    "validated_params_b_max",
};

bool stack_region_lists(const struct stack_region *r, const char *arch)
{
    for (int i = 0; i < r->n_archs; i++)
        if (!strcmp(r->archs[i], arch))
            return true;
    return false;
}

bool stack_region_has_arch(const struct stack_region *r, const char *arch)
{
    return r->n_archs == 0 || stack_region_lists(r, arch);
}

/* validated_archs (optional): a list of 1 to STACK_MAX_ARCHS architecture
 * names (tokens), none twice; one name alone (--set stack.validated_archs=
 * hopper) is a list of one. */
static int read_archs(struct stack_region *r, const struct conf_group *g,
                      struct tpl_err *err)
{
    const config_setting_t *s = config_setting_get_member(g->s, "validated_archs");
    bool one = s && config_setting_type(s) == CONFIG_TYPE_STRING;
    int n = one ? 1 : s && config_setting_is_array(s) ? config_setting_length(s) : -1;
    char where[200];
    r->n_archs = 0;
    if (!s)
        return 0;
    for (int i = 0; i < n && n <= STACK_MAX_ARCHS; i++) {
        const char *v = one ? config_setting_get_string(s)
                            : config_setting_get_string_elem(s, (unsigned)i);
        if (!v || !conf_is_token(v) || strlen(v) >= STACK_ARCH_LEN ||
            stack_region_lists(r, v))
            break;
        snprintf(r->archs[r->n_archs++], STACK_ARCH_LEN, "%s", v);
    }
    if (n >= 1 && n <= STACK_MAX_ARCHS && r->n_archs == n)
        return 0;
    conf_where(g->c, s, where, sizeof where);
    return tpl_errorf(err, TPL_ECONFIG, "%s: 'validated_archs' must be a list "
                      "of 1 to %d different architecture names (lower-case "
                      "letters, digits, '-' or '_', at most %d characters)",
                      where, STACK_MAX_ARCHS, STACK_ARCH_LEN - 1);
}

static int read_region(struct stack *s, const struct conf_group *g,
                       struct tpl_err *err)
{
    double *v = &s->region.gpus_lo;     /* the four, in field order */
    int have = 0;
    char where[200];
    if (read_archs(&s->region, g, err))
        return TPL_ECONFIG;
    for (int i = 0; i < 4; i++)
        have += conf_has(g, region_fields[i]);
    if (have == 0)
        return 0;
    for (int i = 0; i < 4; i++)
        if (conf_num(g, region_fields[i], 0, true, i < 2 ? 1e9 : 1e6,
                     &v[i], err))
            return TPL_ECONFIG;
    for (int i = 0; i < 4; i += 2)
        if (v[i] > v[i + 1]) {
            conf_where(g->c, config_setting_get_member(g->s, region_fields[i + 1]),
                       where, sizeof where);
            return tpl_errorf(err, TPL_ECONFIG, "%s: '%s' (%g) must not be "
                              "below '%s' (%g)", where, region_fields[i + 1],
                              v[i + 1], region_fields[i], v[i]);
        }
    return 0;
}

/* Model states per parameter (optional; absent: Megatron's fp32 main_grad,
 * 4, and mixed-precision Adam's fp32 master weights, m and v, 12, on the
 * GPU). */
static int read_state_bytes(struct stack *s, const struct conf_group *g,
                            struct tpl_err *err)
{
    s->grad_bytes = 4;
    s->optim_bytes = 12;
    s->optim_offload = false;
    s->grad_fp16_bytes = -1;
    s->loss_logit_bytes = 6;
    s->softmax_max_seq = JOB_SOFTMAX_MAX_SEQ;
    s->step_bytes = JOB_STEP_BYTES;
    if (conf_has(g, "optimizer_step_bytes") &&
        conf_num(g, "optimizer_step_bytes", 0, true, 1024, &s->step_bytes, err))
        return TPL_ECONFIG;
    if (conf_has(g, "fused_softmax_max_seq") &&
        conf_int(g, "fused_softmax_max_seq", 0, 1 << 30, &s->softmax_max_seq, err))
        return TPL_ECONFIG;
    if (conf_has(g, "loss_logit_bytes") &&
        conf_num(g, "loss_logit_bytes", 0, true, 64, &s->loss_logit_bytes, err))
        return TPL_ECONFIG;
    if (conf_has(g, "grad_fp16_bytes") &&
        conf_num(g, "grad_fp16_bytes", 0, true, 64, &s->grad_fp16_bytes, err))
        return TPL_ECONFIG;
    if (conf_has(g, "optimizer_offload") &&
        conf_bool(g, "optimizer_offload", &s->optim_offload, err))
        return TPL_ECONFIG;
    if (conf_has(g, "grad_bytes") &&
        conf_num(g, "grad_bytes", 0, true, 64, &s->grad_bytes, err))
        return TPL_ECONFIG;
    if (conf_has(g, "optimizer_bytes") &&
        conf_num(g, "optimizer_bytes", 0, false, 64, &s->optim_bytes, err))
        return TPL_ECONFIG;
    return 0;
}

/* The optional fields: the per-micro-batch gradient accumulation traffic
 * (absent 0: a stack that accumulates inside the GEMM, or a file of an
 * older form), blocking kernel launches (absent false), the bf16 gradient
 * copy (absent 0) and the memory reserve (absent: the system's). */
static int read_optional(struct stack *s, const struct conf_group *g,
                         struct tpl_err *err)
{
    if ((conf_has(g, "launch_blocking") &&
         conf_bool(g, "launch_blocking", &s->launch_blocking, err)) ||
        (conf_has(g, "bf16_grad_allreduce") &&
         conf_bool(g, "bf16_grad_allreduce", &s->bf16_grad_allreduce, err)))
        return TPL_ECONFIG;
    if (conf_has(g, "grad_accum_bytes") &&
        conf_num(g, "grad_accum_bytes", 0, false, 64, &s->grad_accum_bytes, err))
        return TPL_ECONFIG;
    s->reserve_bytes = -1;
    if (conf_has(g, "reserve_gib")) {
        if (conf_num(g, "reserve_gib", 0, false, 1024, &s->reserve_bytes, err))
            return TPL_ECONFIG;
        s->reserve_bytes *= 1073741824.0;
    }
    if (conf_has(g, "grad_copy_bf16_bytes") &&
        conf_num(g, "grad_copy_bf16_bytes", 0, false, 64,
                 &s->grad_copy_bf16_bytes, err))
        return TPL_ECONFIG;
    if (conf_has(g, "grad_accum_bf16_bytes") &&
        conf_num(g, "grad_accum_bf16_bytes", 0, false, 64,
                 &s->grad_accum_bf16_bytes, err))
        return TPL_ECONFIG;
    return read_state_bytes(s, g, err);
}

static int read_lists(struct stack *s, const struct conf_group *g,
                      struct tpl_err *err)
{
    struct names sched = { sched_names, STACK_SCHED_COUNT };
    struct names zero = { zero_names, STACK_MAX_ZERO + 1 };
    struct names fw = { fw_names, STACK_FW_COUNT };
    return read_set(g, "schedules", sched, false, &s->schedules, err) ||
           read_set(g, "zero", zero, false, &s->zero, err) ||
           read_set(g, "framework", fw, true, &s->frameworks, err)
         ? TPL_ECONFIG : 0;
}

static const char *const ep_mesh_names[PLAN_EP_MESH_COUNT] = {
    [PLAN_EP_MESH_MEGATRON] = "megatron", [PLAN_EP_MESH_FSDP] = "fsdp",
};

/* Optional: a stack file that does not say dispatches by all-to-all, the
 * dispatcher of every stack with expert parallelism here (spaces/job.h),
 * does not overlap it with computation (moe_a2a_overlap) and folds the
 * expert ranks as Megatron-Core does (ep_mesh, spaces/plan.h). */
static int read_moe(struct stack *s, const struct conf_group *g,
                    struct tpl_err *err)
{
    int d = JOB_MOE_ALLTOALL, mesh = PLAN_EP_MESH_MEGATRON;
    if ((conf_has(g, "moe_dispatcher") &&
         conf_enum(g, "moe_dispatcher", moe_names, JOB_MOE_COUNT, &d, err)) ||
        (conf_has(g, "ep_mesh") &&
         conf_enum(g, "ep_mesh", ep_mesh_names, PLAN_EP_MESH_COUNT, &mesh, err)))
        return TPL_ECONFIG;
    s->moe_dispatch = (enum job_moe_dispatch)d;
    s->ep_mesh = (enum plan_ep_mesh)mesh;
    s->moe_a2a_overlap = false;
    return conf_has(g, "moe_a2a_overlap") &&
           conf_bool(g, "moe_a2a_overlap", &s->moe_a2a_overlap, err)
         ? TPL_ECONFIG : 0;
}

static const char *const graph_names[JOB_GRAPH_COUNT] = {
    [JOB_GRAPH_ATTN] = "attn", [JOB_GRAPH_MOE_ROUTER] = "moe_router",
    [JOB_GRAPH_MOE_PREPROCESS] = "moe_preprocess",
    [JOB_GRAPH_FULL] = "full_iteration",
};

/* Megatron-LM's --cuda-graph-scope (megatron/training/arguments.py):
 * "moe_preprocess" must be used together with "moe_router". */
static int graph_scopes_ok(const struct stack *s, const struct conf_group *g,
                           struct tpl_err *err)
{
    char where[200];
    if (!(s->cuda_graphs & JOB_GRAPH_BIT(JOB_GRAPH_MOE_PREPROCESS)) ||
        s->cuda_graphs & JOB_GRAPH_BIT(JOB_GRAPH_MOE_ROUTER))
        return 0;
    conf_where(g->c, config_setting_get_member(g->s, "cuda_graph_scope"), where,
               sizeof where);
    return tpl_errorf(err, TPL_ECONFIG, "%s: 'cuda_graph_scope' captures "
                      "'moe_preprocess' only together with 'moe_router' "
                      "(Megatron-LM --cuda-graph-scope)", where);
}

/* Optional: the host cost of MoE layers (predictor/host.c): the host time
 * per kernel outside CUDA graphs (absent 0), the dispatcher's per-layer
 * sync (absent false), what CUDA graphs capture (absent: nothing). */
static int read_host(struct stack *s, const struct conf_group *g,
                     struct tpl_err *err)
{
    if ((conf_has(g, "moe_host_us") &&
         conf_num(g, "moe_host_us", 0, false, 1e6, &s->moe_host_s, err)) ||
        (conf_has(g, "moe_host_sync") &&
         conf_bool(g, "moe_host_sync", &s->moe_host_sync, err)) ||
        (conf_has(g, "cuda_graph_scope") &&
         read_set(g, "cuda_graph_scope", (struct names){ graph_names, JOB_GRAPH_COUNT },
                  true, &s->cuda_graphs, err)))
        return TPL_ECONFIG;
    s->moe_host_s *= 1e-6;
    return graph_scopes_ok(s, g, err);
}

const char *stack_graph_name(enum job_graph g) { return graph_names[g]; }

/* Gradient buckets (optional; absent or 0: Megatron-Core's default). */
static int read_ddp(struct stack *s, const struct conf_group *g,
                    struct tpl_err *err)
{
    s->ddp_bucket_params = 0;
    if (conf_has(g, "ddp_bucket_params") &&
        conf_num(g, "ddp_bucket_params", 0, false, 1e13,
                 &s->ddp_bucket_params, err))
        return TPL_ECONFIG;
    return 0;
}

int stack_read(struct stack *s, const struct conf *c, struct tpl_err *err)
{
    struct conf_group g;
    memset(s, 0, sizeof *s);
    if (conf_check_known(c, config_root_setting(&c->cfg), "a stack file",
                         root_groups, err) ||
        conf_group(c, "stack", &g, err) ||
        conf_check_group_known(&g, stack_fields, err) ||
        read_kinds(s, &g, err) || read_lists(s, &g, err) ||
        read_band(s, &g, err) || read_region(s, &g, err) ||
        read_moe(s, &g, err) || read_fsdp2(s, &g, err) ||
        read_optional(s, &g, err) || read_host(s, &g, err) ||
        read_ddp(s, &g, err))
        return TPL_ECONFIG;
    return 0;
}

int stack_load(struct stack *s, const char *name_or_path,
               const char *const *sets, int n_sets, struct tpl_err *err)
{
    struct conf c;
    int rc = conf_load_named(&c, name_or_path, stack_presets,
                             stack_presets_count, "stack", err);
    for (int i = 0; rc == 0 && i < n_sets; i++)
        if (!strncmp(sets[i], "stack.", 6))
            rc = conf_apply_set(&c, sets[i], err);
    if (rc == 0)
        rc = stack_read(s, &c, err);
    conf_release(&c);
    return rc;
}

void stack_apply(const struct stack *s, struct model *m, struct job *j)
{
    m->dropout = m->dropout && s->dropout;
    j->attention = s->attention;
    j->overlap_grad_reduce = s->overlap_grad_reduce;
    j->overlap_param_gather = s->overlap_param_gather;
    j->fsdp_reshard = s->fsdp_reshard;
    j->host_s = s->host_s;
    j->grad_accum_bytes = s->grad_accum_bytes;
    j->grad_accum_bf16_bytes = s->grad_accum_bf16_bytes;
    j->launch_blocking = s->launch_blocking;
    j->bf16_grad_allreduce = s->bf16_grad_allreduce;
    j->grad_copy_bf16_bytes = s->grad_copy_bf16_bytes;
    j->grad_bytes = s->grad_bytes;
    j->optim_bytes = s->optim_bytes;
    j->grad_fp16_bytes = s->grad_fp16_bytes;
    j->loss_logit_bytes = s->loss_logit_bytes;
    j->reserve_bytes = s->reserve_bytes;
    j->cp_comm = s->cp_comm;
    j->moe_dispatch = s->moe_dispatch;
    j->moe_host_s = s->moe_host_s;
    j->moe_host_sync = s->moe_host_sync;
    j->cuda_graphs = s->cuda_graphs;
    j->fsdp_copy_out = s->fsdp_copy_out;
    j->selective = s->selective;
    j->zero3_gather = s->zero3_gather;
    j->fp8_cast = s->fp8_cast;
    j->tpo_method = s->tpo_method;
    j->cp_merge_eager = s->cp_merge_eager;
    j->separate_proj = s->separate_proj;
    j->fp8_param_gather = s->fp8_param_gather;
    j->grad_reduce_16bit = s->grad_reduce_16bit;
    j->repeat_kv = s->repeat_kv;
    j->softmax_max_seq = s->softmax_max_seq;
    j->step_bytes = s->step_bytes;
    j->ddp_bucket_params = s->ddp_bucket_params;
}

void stack_limits(const struct stack *s, struct plan_limits *lim)
{
    lim->stack_zero = s->zero;
    lim->stack_zero_pp = s->zero_pp;
    lim->stack_overlap = s->overlap_grad_reduce || s->overlap_param_gather;
    lim->stack_1f1b = s->schedules >> STACK_SCHED_1F1B & 1;
    lim->stack_interleaved = s->schedules >> STACK_SCHED_INTERLEAVED & 1;
    lim->split = s->split;
    lim->stack_tpo = s->tp_comm_overlap != STACK_TPO_NONE;
    lim->stack_cp = s->cp_comm != JOB_CP_NONE;
    lim->stack_ep = s->moe_dispatch != JOB_MOE_NONE;
    lim->stack_epo = lim->stack_ep && s->moe_a2a_overlap;
    lim->ep_mesh = s->ep_mesh;
    lim->stack_rc_block = s->recompute_block;
    /* no offload under a full-iteration CUDA graph (plan.c, offload) */
    lim->stack_offload = s->optim_offload &&
                         !(s->cuda_graphs & JOB_GRAPH_BIT(JOB_GRAPH_FULL));
}

void stack_plan_defaults(const struct stack *s, struct plan *p)
{
    p->tpo = s->tp_comm_overlap == STACK_TPO_ON && p->sp;
}
