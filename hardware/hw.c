/* hardware/hw.c: system file loader. Every field is required and range
 * checked; units convert once here (TFLOP/s -> FLOP/s, GiB -> bytes,
 * Gb/s -> bytes/s, us -> s) so the predictor computes in SI only. */
#include "hardware/hw.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define GIB   1073741824.0
#define TERA  1e12
#define GIGA  1e9
#define US    1e-6

const char *const hw_sections[] = {
    "system", "gpu", "node", "network", "efficiency", "kernel", "memory",
    "price", "reliability", "power", "memory_ops", "attention", "batched_gemm", NULL,
};

const char *const hw_memop_names[HW_MEMOP_COUNT] = {
    [HW_MEMOP_GELU] = "gelu", [HW_MEMOP_RESADD] = "res_add",
    [HW_MEMOP_NORM] = "layernorm", [HW_MEMOP_RMSNORM] = "rmsnorm",
    [HW_MEMOP_ROPE] = "rope", [HW_MEMOP_SOFTMAX] = "softmax",
    [HW_MEMOP_MASKED_SOFTMAX] = "masked_softmax", [HW_MEMOP_FILLMASK] = "fillmask",
    [HW_MEMOP_EMBED] = "embedding", [HW_MEMOP_XENT] = "cross_entropy",
    [HW_MEMOP_OPTIM] = "optimizer",
};
/* every operator's fields: <op>_<dir>, _floor_us, _log_row, _row_ps,
 * _row_ns, _short, _log_size; PyTorch's softmax forward also its
 * dispatch's (read_memop_dispatch) */
#define MEMOP_FIELDS(n) n "_fwd", n "_fwd_floor_us", n "_fwd_log_row", \
                        n "_fwd_row_ps", n "_fwd_row_ns", n "_fwd_short", \
                        n "_fwd_log_size", \
                        n "_bwd", n "_bwd_floor_us", n "_bwd_log_row", \
                        n "_bwd_row_ps", n "_bwd_row_ns", n "_bwd_short", \
                        n "_bwd_log_size"
static const char *const memop_fields[] = {
    MEMOP_FIELDS("gelu"), MEMOP_FIELDS("res_add"), MEMOP_FIELDS("layernorm"),
    MEMOP_FIELDS("rmsnorm"), MEMOP_FIELDS("rope"), MEMOP_FIELDS("softmax"),
    MEMOP_FIELDS("masked_softmax"), MEMOP_FIELDS("fillmask"),
    MEMOP_FIELDS("embedding"), MEMOP_FIELDS("cross_entropy"),
    MEMOP_FIELDS("optimizer"),
    "softmax_fwd_warp_row", "softmax_fwd_warp_ps", "softmax_fwd_wide_ns",
    "softmax_fwd_scalar_ps", "softmax_bwd_scalar_ps", "rope_fwd_knee", "rope_bwd_knee",
    "embedding_bwd_few_ns", "embedding_bwd_few_ps", NULL,
};
#undef MEMOP_FIELDS
static_assert(HW_MEMOP_COUNT == 11, "a memory-bound operator needs its "
              "memop_fields");

static const char *const flash_fields[] = {
    "softmax_ps_fwd", "softmax_ps_bwd", "log_head_dim_fwd", "log_head_dim_bwd",
    "uneven_fwd", "uneven_bwd", "floor_us_fwd", "floor_us_bwd", NULL,
};

static const char *const bgemm_fields[] = {
    "eff_out", "io_out", "overlap_out", "log_size_out",
    "eff_in", "io_in", "overlap_in", "log_size_in", "reread", NULL,
};

static const char *const system_fields[] = { "name", "description", "calibration",
                                             NULL };
static const char *const gpu_fields[] = {
    "name", "bf16_tflops", "fp16_tflops", "fp8_tflops", "hbm_gib", "hbm_tbps",
    "sms", "tdp_w", NULL,
};
static const char *const gpu_known[] = {    /* gpu_fields and the optional */
    "name", "bf16_tflops", "fp16_tflops", "fp8_tflops", "hbm_gib", "hbm_tbps",
    "sms", "tdp_w", "arch", NULL,
};
static const char *const node_fields[] = {
    "gpus", "nvlink_domain", "nvlink_gbs", "nvlink_pair_gbs", "nvlink_latency_us",
    "host_gbs", "host_mem_gbs", NULL,
};
static const char *const network_fields[] = { "nic_gbps", "latency_us", "nic_exp", NULL };
static const char *const network_required[] = { "nic_gbps", "latency_us", NULL };
static const char *const node_required[] = {
    "gpus", "nvlink_domain", "nvlink_gbs", "nvlink_latency_us", NULL,
};
static const char *const efficiency_fields[] = {
    "gemm", "gemm_bwd", "gemm_fp8", "gemm_fp8_cs", "gemm_half_gflop", "gemm_max", "attn", "attn_bwd",
    "hbm", "norm", "nvlink", "network", "p2p_nvlink", "p2p_network",
    "allgather_nvlink", "allgather_network", "host", "calibrated",
    "network_from_runs", "gemm_bwd_log_m", "gemm_bwd_log_n", "gemm_bwd_log_k",
    "clock", "clock_from_runs", NULL,
};
static const char *const kernel_fields[] = {
    "launch_us", "tile_m", "tile_n", "collective_base_us", "p2p_base_us",
    "gemm_fill_k", "sample_gap_us", "tile_k", NULL,
};
static const char *const memory_fields[] = { "reserve_gib", NULL };
static const char *const price_fields[] = { "usd_per_gpu_hour", NULL };
static const char *const reliability_fields[] = {
    "gpu_mtbf_hours", "storage_gbs", "restart_min", NULL,
};

/* ---- reliability defaults (the section and each field are optional) ----
 * Interruptions: Dubey et al., "The Llama 3 Herd of Models", arXiv:2407.21783,
 * sec. 3.3.4 and Table 5: 419 unexpected interruptions in a 54-day snapshot
 * of pre-training on 16,384 H100 GPUs, one per 54 x 24 x 16384 / 419 =
 * 50,677 GPU-hours [D]; any one stops the synchronous job.
 * Storage: the same paper, sec. 3.3.1: Tectonic gives 2 TB/s sustained (7 TB/s
 * peak) to the training cluster; a job is taken to write at the sustained rate.
 * Restart: "tens of minutes" to recover (MegaScale, Jiang et al., NSDI 2024,
 * as summarised by FFTrainer, arXiv:2512.03644, sec. 1); 10 minutes, its low
 * end, is also Daly's worked example (Daly 2006, FGCS 22, Figs. 3-5). */
static const char *const power_fields[] = {
    "gpu_busy_frac", "gpu_idle_frac", "node_kw", "node_train_frac", NULL,
};

/* ---- power defaults (the section and each field are optional) ----
 * gpu_busy_frac 0.85: a per-board training measurement: Morrison et al.,
 * "Holistically Evaluating the Environmental Impact of Creating Language
 * Models", ICLR 2025, arXiv:2503.05804 (abstract): GPU power
 * logged at sub-second intervals while training OLMo on H100s fluctuates
 * between 15 % (the GPUs waiting on a checkpoint) and 85 % of the hardware's
 * maximum draw; 85 % is the compute phase. The node-level cross-check:
 * Latif et al., "Single-Node Power Demand During AI Training: Measurements
 * on an 8-GPU NVIDIA H100 System", IEEE Access 13 (2025), arXiv:2412.08602:
 * at most 8.4 kW of the node's rated 10.2 kW with the GPUs near full
 * utilisation, 0.82 (CPUs, NICs, switches and fans included). Go et al.
 * (MICRO 2025, arXiv:2509.10371) measure per-GPU draw on H100/H200 under
 * TP/PP/DP/EP but report peaks and throttling, not an average to take.
 * gpu_idle_frac 0.43: the ML.ENERGY Benchmark's low-activity H100 draw, 300
 * W of 700 (memory and clocks stay up while a GPU waits on communication or
 * the pipeline; Go et al., arXiv:2509.10371, see draw fall in
 * communication-bound phases).
 * node_train_frac 0.76: Newkirk et al., "Empirically-Calibrated H100 Node
 * Power Models", arXiv:2506.14551: computationally intensive training runs
 * at 76 % of the 10.2 kW rating on average (Latif et al.'s 8.4 kW, 82 %, is
 * the peak). node_kw has no default: a system file gives its node's rating
 * where a source does (dgx-h100.cfg). */
#define GPU_BUSY_FRAC   0.85
#define GPU_IDLE_FRAC   0.43
#define NODE_TRAIN_FRAC 0.76

#define GPU_MTBF_HOURS  (54.0 * 24.0 * 16384.0 / 419.0)
#define STORAGE_GBS     2000.0
#define RESTART_MIN     10.0

bool hw_is_section(const char *section)
{
    for (int i = 0; hw_sections[i]; i++)
        if (!strcmp(section, hw_sections[i]))
            return true;
    return false;
}

/* Open a group and refuse members it does not know. */
static int group(const struct conf *c, const char *name,
                 const char *const known[], struct conf_group *g,
                 struct tpl_err *err)
{
    if (conf_group(c, name, g, err))
        return TPL_ECONFIG;
    return conf_check_group_known(g, known, err);
}

static int read_gpu(struct hw_system *hw, const struct conf *c,
                    struct tpl_err *err)
{
    struct conf_group g;
    double gib, tbps;
    int64_t sms;
    hw->gpu_arch[0] = '\0';
    if (group(c, "gpu", gpu_known, &g, err) ||
        conf_require(&g, gpu_fields, err) ||    /* every field: all at once */
        (conf_has(&g, "arch") &&
         conf_token(&g, "arch", hw->gpu_arch, sizeof hw->gpu_arch, err)) ||
        conf_str(&g, "name", hw->gpu_name, sizeof hw->gpu_name, err) ||
        conf_num(&g, "bf16_tflops", 0, true, 1e6, &hw->bf16_flops, err) ||
        conf_num(&g, "fp16_tflops", 0, true, 1e6, &hw->fp16_flops, err) ||
        conf_num(&g, "fp8_tflops", 0, false, 1e6, &hw->fp8_flops, err) ||
        conf_num(&g, "hbm_gib", 0, true, 1 << 20, &gib, err) ||
        conf_num(&g, "hbm_tbps", 0, true, 1e4, &tbps, err) ||
        conf_int(&g, "sms", 1, 1 << 16, &sms, err) ||
        conf_num(&g, "tdp_w", 0, true, 1e5, &hw->tdp_w, err))
        return TPL_ECONFIG;
    hw->bf16_flops *= TERA;
    hw->fp16_flops *= TERA;
    hw->fp8_flops *= TERA;
    hw->hbm_bytes = gib * GIB;
    hw->hbm_bytes_per_s = tbps * TERA;
    hw->sms = sms;
    return 0;
}

/* The node's optional host fields (GB/s): the GPUs' host link and the
 * node's host memory; 0 where the file does not say. */
static int read_host_link(struct hw_system *hw, const struct conf_group *g,
                          struct tpl_err *err)
{
    double host = 0, mem = 0;
    if ((conf_has(g, "host_gbs") &&
         conf_num(g, "host_gbs", 0, true, 1e6, &host, err)) ||
        (conf_has(g, "host_mem_gbs") &&
         conf_num(g, "host_mem_gbs", 0, true, 1e6, &mem, err)))
        return TPL_ECONFIG;
    hw->host_bytes_per_s = host * GIGA;
    hw->host_mem_bytes_per_s = mem * GIGA;
    return 0;
}

static int read_links(struct hw_system *hw, const struct conf *c,
                      struct tpl_err *err)
{
    struct conf_group g, n;
    double gbs, gbps;
    if (group(c, "node", node_fields, &g, err) ||
        conf_require(&g, node_required, err) ||
        conf_int(&g, "gpus", 1, 1 << 20, &hw->gpus_per_node, err) ||
        conf_int(&g, "nvlink_domain", 1, 1 << 20, &hw->nvlink_domain, err) ||
        conf_num(&g, "nvlink_gbs", 0, true, 1e6, &gbs, err) ||
        conf_num(&g, "nvlink_latency_us", 0, false, 1e6, &hw->nvlink_latency_s,
                 err) ||
        group(c, "network", network_fields, &n, err) ||
        conf_require(&n, network_required, err) ||
        conf_num(&n, "nic_gbps", 0, true, 1e7, &gbps, err) ||
        conf_num(&n, "latency_us", 0, false, 1e6, &hw->net_latency_s, err))
        return TPL_ECONFIG;
    if (hw->nvlink_domain < hw->gpus_per_node) {
        char where[200];
        conf_where(c, config_setting_get_member(g.s, "nvlink_domain"), where,
                   sizeof where);
        return tpl_errorf(err, TPL_ECONFIG, "%s: 'nvlink_domain' (%lld) must be "
                          ">= 'gpus' (%lld)", where, (long long)hw->nvlink_domain,
                          (long long)hw->gpus_per_node);
    }
    hw->nvlink_bytes_per_s = gbs * GIGA;
    hw->nvlink_pair_bytes_per_s = hw->nvlink_bytes_per_s;  /* NVSwitch */
    if (conf_has(&g, "nvlink_pair_gbs")) {      /* point-to-point links */
        double pair;
        if (conf_num(&g, "nvlink_pair_gbs", 0, true, 1e6, &pair, err))
            return TPL_ECONFIG;
        hw->nvlink_pair_bytes_per_s = fmin(pair * GIGA, hw->nvlink_bytes_per_s);
    }
    hw->nvlink_latency_s *= US;
    if (read_host_link(hw, &g, err))
        return TPL_ECONFIG;
    hw->nic_bytes_per_s = gbps * GIGA / 8;      /* gigabits -> bytes */
    hw->net_latency_s *= US;
    hw->net_nic_exp = 1;                        /* each GPU's NIC adds its rate */
    return conf_has(&n, "nic_exp") &&
           conf_num(&n, "nic_exp", 0, true, 1, &hw->net_nic_exp, err) ? TPL_ECONFIG : 0;
}

/* No compute efficiency above the GPU's measured maximum (gemm_max, the
 * MAMF share of dense peak, hardware-facts.md sec. 6.1; default 1). */
/* The gradient GEMMs' optional correction in log M, N, K (0 when absent;
 * each in [-1, 1]: predictor/kernel.h pred_gemm_s). */
static int read_gemm_log(struct hw_system *hw, const struct conf_group *g,
                         struct tpl_err *err)
{
    static const char *const names[3] = { "gemm_bwd_log_m", "gemm_bwd_log_n",
                                          "gemm_bwd_log_k" };
    for (int i = 0; i < 3; i++) {
        hw->gemm_bwd_log[i] = 0;
        if (conf_has(g, names[i]) &&
            conf_num(g, names[i], -1, false, 1, &hw->gemm_bwd_log[i], err))
            return TPL_ECONFIG;
    }
    return 0;
}

static int check_max(struct hw_system *hw, const struct conf_group *g,
                     struct tpl_err *err)
{
    static const char *const names[] = { "gemm", "gemm_bwd", "attn", "attn_bwd" };
    const double *v[] = { &hw->eff_gemm, &hw->eff_gemm_bwd, &hw->eff_attn,
                          &hw->eff_attn_bwd };
    hw->eff_max = 1.0;
    if (conf_has(g, "gemm_max") &&
        conf_num(g, "gemm_max", 0, true, 1, &hw->eff_max, err))
        return TPL_ECONFIG;
    for (int i = 0; i < 4; i++) {
        char where[200];
        const config_setting_t *at;
        if (*v[i] <= hw->eff_max + 1e-9)
            continue;
        at = config_setting_get_member(g->s, names[i]);
        conf_where(g->c, at ? at : config_setting_get_member(g->s, "gemm_max"),
                   where, sizeof where);
        return tpl_errorf(err, TPL_ECONFIG, "%s: efficiency '%s' (%g) exceeds "
                          "'gemm_max' (%g), the GPU's measured maximum", where,
                          names[i], *v[i], hw->eff_max);
    }
    return 0;
}

/* The links' optional shares, each defaulting to the collectives' (or,
 * for the host link, to its whole rate). */
static int read_link_shares(struct hw_system *hw, const struct conf_group *gp,
                            struct tpl_err *err)
{
    hw->eff_p2p_nvlink = hw->eff_ag_nvlink = hw->eff_nvlink;
    hw->eff_p2p_net = hw->eff_ag_net = hw->eff_net;
    hw->eff_host = 1.0;                         /* the host link's rate */
    if ((conf_has(gp, "host") &&
         conf_num(gp, "host", 0, true, 1, &hw->eff_host, err)) ||
        (conf_has(gp, "allgather_nvlink") &&
         conf_num(gp, "allgather_nvlink", 0, true, 1.5, &hw->eff_ag_nvlink, err)) ||
        (conf_has(gp, "allgather_network") &&
         conf_num(gp, "allgather_network", 0, true, 1, &hw->eff_ag_net, err)))
        return TPL_ECONFIG;
    if ((conf_has(gp, "p2p_nvlink") &&
         conf_num(gp, "p2p_nvlink", 0, true, 1.5, &hw->eff_p2p_nvlink, err)) ||
        (conf_has(gp, "p2p_network") &&
         conf_num(gp, "p2p_network", 0, true, 1, &hw->eff_p2p_net, err)))
        return TPL_ECONFIG;
    return 0;
}

/* Whether the fabric's share is fitted on runs (fidelity/tune.c): one share
 * for all inter-node traffic, so the file may not give the sends' or the
 * all-gathers' their own (the fit would overwrite them unseen). */
static int read_net_from_runs(struct hw_system *hw, const struct conf_group *g,
                              struct tpl_err *err)
{
    hw->net_from_runs = false;
    if (!conf_has(g, "network_from_runs"))
        return 0;
    if (conf_bool(g, "network_from_runs", &hw->net_from_runs, err))
        return TPL_ECONFIG;
    for (int i = 0; i < 2 && hw->net_from_runs; i++) {
        static const char *const own[2] = { "p2p_network", "allgather_network" };
        char where[200];
        if (!conf_has(g, own[i]))
            continue;
        conf_where(g->c, config_setting_get_member(g->s, own[i]), where,
                   sizeof where);
        return tpl_errorf(err, TPL_ECONFIG, "%s: '%s' cannot be set with "
                          "'network_from_runs' (one share, fitted on runs, for "
                          "every inter-node collective and send)", where, own[i]);
    }
    return 0;
}

/* The sustained clock of a power-limited GPU against the one whose fits
 * its compute shares are (optional, (0, 1], default 1), and whether it is
 * fitted on runs (fidelity/tune.c), which needs the clock given: the
 * file's value is the fit's prior and what a prediction uses until a fit
 * replaces it; and not with another constant fitted on runs (the tune
 * fit's parts are fitted apart, each on its own rows). */
static int read_clock(struct hw_system *hw, const struct conf_group *g,
                      struct tpl_err *err)
{
    char where[200];
    hw->clock = 1.0;
    hw->clock_from_runs = false;
    if ((conf_has(g, "clock") && conf_num(g, "clock", 0, true, 1, &hw->clock, err)) ||
        (conf_has(g, "clock_from_runs") &&
         conf_bool(g, "clock_from_runs", &hw->clock_from_runs, err)))
        return TPL_ECONFIG;
    if (!hw->clock_from_runs)
        return 0;
    conf_where(g->c, config_setting_get_member(g->s, "clock_from_runs"), where,
               sizeof where);
    if (!conf_has(g, "clock"))
        return tpl_errorf(err, TPL_ECONFIG, "%s: 'clock_from_runs' needs 'clock' "
                          "(the fit's prior, what predictions use without it)",
                          where);
    if (!hw->calibrated || hw->net_from_runs)   /* the tune fit's parts apart */
        return tpl_errorf(err, TPL_ECONFIG, "%s: 'clock_from_runs' cannot be "
                          "set with %s (one constant fitted on runs a system)",
                          where, hw->net_from_runs ? "'network_from_runs'"
                                                   : "'calibrated = false'");
    return 0;
}

static int read_efficiency(struct hw_system *hw, const struct conf *c,
                           struct tpl_err *err)
{
    struct conf_group g;
    double half_gflop;
    if (group(c, "efficiency", efficiency_fields, &g, err) ||
        conf_num(&g, "gemm", 0, true, 1, &hw->eff_gemm, err) ||
        conf_num(&g, "gemm_half_gflop", 0, false, 1e6, &half_gflop, err) ||
        conf_num(&g, "attn", 0, true, 1, &hw->eff_attn, err) ||
        conf_num(&g, "hbm", 0, true, 1, &hw->eff_hbm, err) ||
        conf_num(&g, "nvlink", 0, true, 1.5, &hw->eff_nvlink, err) ||
        conf_num(&g, "network", 0, true, 1, &hw->eff_net, err))
        return TPL_ECONFIG;
    hw->eff_gemm_bwd = hw->eff_gemm;
    hw->eff_attn_bwd = hw->eff_attn;
    hw->eff_norm = hw->eff_hbm;
    hw->eff_gemm_fp8 = 1.0;
    if ((conf_has(&g, "gemm_bwd") &&
         conf_num(&g, "gemm_bwd", 0, true, 1, &hw->eff_gemm_bwd, err)) ||
        (conf_has(&g, "attn_bwd") &&
         conf_num(&g, "attn_bwd", 0, true, 1, &hw->eff_attn_bwd, err)) ||
        (conf_has(&g, "norm") && conf_num(&g, "norm", 0, true, 1, &hw->eff_norm, err)) ||
        (conf_has(&g, "gemm_fp8") &&
         conf_num(&g, "gemm_fp8", 0, true, 1, &hw->eff_gemm_fp8, err)))
        return TPL_ECONFIG;
    hw->eff_gemm_fp8_cs = hw->eff_gemm_fp8;
    if (conf_has(&g, "gemm_fp8_cs") &&
        conf_num(&g, "gemm_fp8_cs", 0, true, 1, &hw->eff_gemm_fp8_cs, err))
        return TPL_ECONFIG;
    if (read_link_shares(hw, &g, err))
        return TPL_ECONFIG;
    hw->gemm_half_flop = half_gflop * GIGA;
    hw->calibrated = true;      /* unless the file says they are defaults */
    if (conf_has(&g, "calibrated") &&
        conf_bool(&g, "calibrated", &hw->calibrated, err))
        return TPL_ECONFIG;
    if (read_net_from_runs(hw, &g, err) || read_gemm_log(hw, &g, err) ||
        read_clock(hw, &g, err))
        return TPL_ECONFIG;
    return check_max(hw, &g, err);
}

/* The kernel group's optional fields, 0 when absent: a GEMM tile's fixed
 * cost in K steps (at most 4096) and the samples' host gap (us, calibrate
 * only); and the tile's K step (1 when absent: K not rounded). */
static int read_kernel_extras(struct hw_system *hw, const struct conf_group *k,
                              struct tpl_err *err)
{
    hw->gemm_fill_k = hw->sample_gap_s = 0;
    hw->tile_k = 1;
    if ((conf_has(k, "tile_k") && conf_int(k, "tile_k", 1, 4096, &hw->tile_k, err)) ||
        (conf_has(k, "gemm_fill_k") &&
         conf_num(k, "gemm_fill_k", 0, false, 4096, &hw->gemm_fill_k, err)) ||
        (conf_has(k, "sample_gap_us") &&
         conf_num(k, "sample_gap_us", 0, false, 1e6, &hw->sample_gap_s, err)))
        return TPL_ECONFIG;
    hw->sample_gap_s *= US;
    return 0;
}

static int read_rest(struct hw_system *hw, const struct conf *c,
                     struct tpl_err *err)
{
    struct conf_group k, m, p;
    double reserve_gib;
    if (group(c, "kernel", kernel_fields, &k, err) ||
        conf_num(&k, "launch_us", 0, false, 1e6, &hw->launch_s, err) ||
        conf_int(&k, "tile_m", 1, 4096, &hw->tile_m, err) ||
        conf_int(&k, "tile_n", 1, 4096, &hw->tile_n, err) ||
        conf_num(&k, "collective_base_us", 0, false, 1e6,
                 &hw->collective_base_s, err) ||
        (conf_has(&k, "p2p_base_us") &&
         conf_num(&k, "p2p_base_us", 0, false, 1e6, &hw->p2p_base_s, err)) ||
        group(c, "memory", memory_fields, &m, err) ||
        conf_num(&m, "reserve_gib", 0, false, 1 << 20, &reserve_gib, err) ||
        group(c, "price", price_fields, &p, err) ||
        conf_num(&p, "usd_per_gpu_hour", 0, false, 1e6, &hw->usd_per_gpu_hour,
                 err))
        return TPL_ECONFIG;
    if (read_kernel_extras(hw, &k, err))
        return TPL_ECONFIG;
    hw->launch_s *= US;
    hw->collective_base_s *= US;
    hw->p2p_base_s *= US;
    hw->reserve_bytes = reserve_gib * GIB;
    if (hw->reserve_bytes >= hw->hbm_bytes) {
        char where[200];
        conf_where(c, config_setting_get_member(m.s, "reserve_gib"), where,
                   sizeof where);
        return tpl_errorf(err, TPL_ECONFIG, "%s: 'reserve_gib' (%g) must be "
                          "less than 'hbm_gib' (%g)", where, reserve_gib,
                          hw->hbm_bytes / GIB);
    }
    return 0;
}

/* One optional field: its default when absent. */
static int optional(const struct conf_group *g, const char *key, double max,
                    double dflt, double *out, struct tpl_err *err)
{
    *out = dflt;
    return g->s && conf_has(g, key) ? conf_num(g, key, 0, true, max, out, err)
                                    : 0;
}

static int read_reliability(struct hw_system *hw, const struct conf *c,
                            struct tpl_err *err)
{
    struct conf_group g = { .c = c };
    double mtbf_h, gbs, restart_min;
    if (config_lookup(&c->cfg, "reliability") &&
        group(c, "reliability", reliability_fields, &g, err))
        return TPL_ECONFIG;
    if (optional(&g, "gpu_mtbf_hours", 1e9, GPU_MTBF_HOURS, &mtbf_h, err) ||
        optional(&g, "storage_gbs", 1e9, STORAGE_GBS, &gbs, err) ||
        optional(&g, "restart_min", 525600, RESTART_MIN, &restart_min, err))
        return TPL_ECONFIG;
    hw->gpu_mtbf_s = mtbf_h * 3600.0;
    hw->storage_bytes_per_s = gbs * GIGA;
    hw->restart_s = restart_min * 60.0;
    return 0;
}

static int read_power(struct hw_system *hw, const struct conf *c,
                      struct tpl_err *err)
{
    struct conf_group g = { .c = c };
    double node_kw;
    if (config_lookup(&c->cfg, "power") &&
        group(c, "power", power_fields, &g, err))
        return TPL_ECONFIG;
    if (optional(&g, "gpu_busy_frac", 1, GPU_BUSY_FRAC, &hw->gpu_busy_frac, err) ||
        optional(&g, "gpu_idle_frac", 1, GPU_IDLE_FRAC, &hw->gpu_idle_frac, err) ||
        optional(&g, "node_kw", 1e4, 0, &node_kw, err) ||
        optional(&g, "node_train_frac", 1, NODE_TRAIN_FRAC,
                 &hw->node_train_frac, err))
        return TPL_ECONFIG;
    hw->node_w = node_kw * 1e3;
    if (hw->gpu_idle_frac > hw->gpu_busy_frac)
        return tpl_errorf(err, TPL_ECONFIG, "%s: power: 'gpu_idle_frac' (%g) "
                          "must not exceed 'gpu_busy_frac' (%g)", c->name,
                          hw->gpu_idle_frac, hw->gpu_busy_frac);
    return 0;
}

/* The optional fields of PyTorch's softmax forward dispatch (kernel.h
 * pred_memop_rows_s): the warp path's longest row, 1024 (before PyTorch
 * 2.7) or 2048, its time per padded element (ps, >= 0) and the register
 * kernel's per-row cost of wide rows (ns, >= 0); and of its block
 * kernels, forward and backward, the time per element of a row's scalar
 * epilogue (ps, >= 0). */
static int read_memop_dispatch(struct hw_memop_fit *m, const struct conf_group *g,
                               struct tpl_err *err)
{
    static const char row[] = "softmax_fwd_warp_row";
    if (conf_has(g, row) && conf_num(g, row, 1024, false, 2048, &m->warp_row[0], err))
        return TPL_ECONFIG;
    if (m->warp_row[0] != 0 && m->warp_row[0] != 1024 && m->warp_row[0] != 2048) {
        char where[200];
        conf_where(g->c, config_setting_get_member(g->s, row), where, sizeof where);
        return tpl_errorf(err, TPL_ECONFIG, "%s: '%s' must be 1024 or 2048 (PyTorch's "
                          "dispatch), not %g", where, row, m->warp_row[0]);
    }
    if (conf_has(g, "softmax_fwd_warp_ps") &&
        conf_num(g, "softmax_fwd_warp_ps", 0, false, 1e6, &m->warp_s[0], err))
        return TPL_ECONFIG;
    m->warp_s[0] *= 1e-12;
    if (conf_has(g, "softmax_fwd_wide_ns") &&
        conf_num(g, "softmax_fwd_wide_ns", 0, false, 1e6, &m->wide_s[0], err))
        return TPL_ECONFIG;
    m->wide_s[0] *= 1e-9;
    for (int d = 0; d < 2; d++) {
        const char *key = d ? "softmax_bwd_scalar_ps" : "softmax_fwd_scalar_ps";
        if (conf_has(g, key) && conf_num(g, key, 0, false, 1e6, &m->scalar_s[d], err))
            return TPL_ECONFIG;
        m->scalar_s[d] *= 1e-12;
    }
    return 0;
}

/* The optional row-softmax fields of one direction: time per padded row
 * element (ps, >= 0), per row (ns, >= 0) and the share of peak HBM of the
 * rows on the warp path (at most 1). */
static int read_memop_rows(struct hw_memop_fit *m, const char *eff, int d,
                           const struct conf_group *g, struct tpl_err *err)
{
    char key[56];
    snprintf(key, sizeof key, "%s_row_ps", eff);
    if (conf_has(g, key) && conf_num(g, key, 0, false, 1e6, &m->row_s[d], err))
        return TPL_ECONFIG;
    m->row_s[d] *= 1e-12;
    snprintf(key, sizeof key, "%s_row_ns", eff);
    if (conf_has(g, key) && conf_num(g, key, 0, false, 1e6, &m->row0_s[d], err))
        return TPL_ECONFIG;
    m->row0_s[d] *= 1e-9;
    snprintf(key, sizeof key, "%s_short", eff);
    if (conf_has(g, key) && conf_num(g, key, 0, false, 1, &m->short_eff[d], err))
        return TPL_ECONFIG;
    return 0;
}

/* One operator's fields of the memory_ops group: efficiency (at most 1)
 * and floor per direction, the size correction optional (default 0) in
 * [-4, 4] (a row softmax's exponent is clamped to [-1, 1] by the model),
 * the row-softmax fields optional; the eager rotary's knee optional, in
 * [0.5, 50] (kernel.h pred_memop_knee_s); the embedding backward's
 * feature kernel's per index (ns) and per index element (ps), optional. */
static int read_memop(struct hw_memop_fit *m, const char *name,
                      const struct conf_group *g, struct tpl_err *err)
{
    for (int d = 0; d < 2; d++) {
        char eff[40], key[56];
        snprintf(eff, sizeof eff, "%s_%s", name, d ? "bwd" : "fwd");
        snprintf(key, sizeof key, "%s_floor_us", eff);
        if (conf_num(g, eff, 0, true, 1, &m->eff[d], err) ||
            conf_num(g, key, 0, false, 1e6, &m->floor_s[d], err))
            return TPL_ECONFIG;
        m->floor_s[d] *= US;
        snprintf(key, sizeof key, "%s_log_row", eff);
        if (conf_has(g, key) && conf_num(g, key, -4, false, 4, &m->log_row[d], err))
            return TPL_ECONFIG;
        snprintf(key, sizeof key, "%s_log_size", eff);
        if (conf_has(g, key) && conf_num(g, key, -4, false, 4, &m->log_size[d], err))
            return TPL_ECONFIG;
        if (read_memop_rows(m, eff, d, g, err))
            return TPL_ECONFIG;
    }
    if (!strcmp(name, "softmax") && read_memop_dispatch(m, g, err))
        return TPL_ECONFIG;
    if (!strcmp(name, "embedding") &&
        ((conf_has(g, "embedding_bwd_few_ns") &&
          conf_num(g, "embedding_bwd_few_ns", 0, false, 1e6, &m->few_index_s, err)) ||
         (conf_has(g, "embedding_bwd_few_ps") &&
          conf_num(g, "embedding_bwd_few_ps", 0, false, 1e6, &m->few_elem_s, err))))
        return TPL_ECONFIG;
    m->few_index_s *= 1e-9;
    m->few_elem_s *= 1e-12;
    for (int d = 0; d < 2 && !strcmp(name, "rope"); d++) {
        const char *key = d ? "rope_bwd_knee" : "rope_fwd_knee";
        if (conf_has(g, key) && conf_num(g, key, 0.5, false, 50, &m->knee[d], err))
            return TPL_ECONFIG;
    }
    m->fitted = true;
    return 0;
}

/* Whether the group gives any field of optional operator o: then it must
 * give the required ones too (read_memop), not have them ignored. */
static bool memop_given(const struct conf_group *g, int o)
{
    size_t n = strlen(hw_memop_names[o]);
    for (const char *const *k = memop_fields; *k; k++)
        if (!strncmp(*k, hw_memop_names[o], n) && (*k)[n] == '_' && conf_has(g, *k))
            return true;
    return false;
}

/* The optional memory_ops group: gelu, res_add and layernorm required,
 * every other operator when any of its fields is there. */
static int read_memops(struct hw_system *hw, const struct conf *c,
                       struct tpl_err *err)
{
    struct conf_group g;
    if (!config_lookup(&c->cfg, "memory_ops"))
        return 0;
    if (group(c, "memory_ops", memop_fields, &g, err))
        return TPL_ECONFIG;
    for (int o = 0; o < HW_MEMOP_COUNT; o++)
        if ((o < HW_MEMOP_REQUIRED || memop_given(&g, o)) &&
            read_memop(&hw->memop[o], hw_memop_names[o], &g, err))
            return TPL_ECONFIG;
    hw->has_memops = true;
    return 0;
}

/* The optional attention group: FlashAttention-2's fit, every field of
 * both directions (struct hw_flash_fit). */
static int read_flash(struct hw_system *hw, const struct conf *c,
                      struct tpl_err *err)
{
    struct conf_group g;
    struct hw_flash_fit *f = &hw->flash;
    if (!config_lookup(&c->cfg, "attention"))
        return 0;
    if (group(c, "attention", flash_fields, &g, err))
        return TPL_ECONFIG;
    for (int d = 0; d < 2; d++) {
        char key[4][24];
        const char *dir = d ? "bwd" : "fwd";
        snprintf(key[0], sizeof key[0], "softmax_ps_%s", dir);
        snprintf(key[1], sizeof key[1], "log_head_dim_%s", dir);
        snprintf(key[2], sizeof key[2], "uneven_%s", dir);
        snprintf(key[3], sizeof key[3], "floor_us_%s", dir);
        if (conf_num(&g, key[0], 0, false, 1e6, &f->softmax_s[d], err) ||
            conf_num(&g, key[1], -2, false, 2, &f->log_d[d], err) ||
            conf_num(&g, key[2], 0, false, 10, &f->uneven[d], err) ||
            conf_num(&g, key[3], 0, false, 1e6, &f->floor_s[d], err))
            return TPL_ECONFIG;
        f->softmax_s[d] *= 1e-12;
        f->floor_s[d] *= US;
    }
    hw->has_flash = true;
    return 0;
}

/* The optional batched_gemm group: the batched GEMMs' fit, every field of
 * both kinds (struct hw_bgemm_fit), efficiencies at most gemm_max. */
static int read_bgemm(struct hw_system *hw, const struct conf *c,
                      struct tpl_err *err)
{
    struct conf_group g;
    struct hw_bgemm_fit *f = &hw->bgemm;
    if (!config_lookup(&c->cfg, "batched_gemm"))
        return 0;
    if (group(c, "batched_gemm", bgemm_fields, &g, err))
        return TPL_ECONFIG;
    for (int i = 0; i < HW_BGEMM_KINDS; i++) {
        const char *const *key = &bgemm_fields[4 * i];
        if (conf_num(&g, key[0], 0, true, hw->eff_max, &f->eff[i], err) ||
            conf_num(&g, key[1], 0, true, 1, &f->io_eff[i], err) ||
            conf_num(&g, key[2], 0, false, 1, &f->overlap[i], err) ||
            conf_num(&g, key[3], -0.5, false, 0.5, &f->log_size[i], err))
            return TPL_ECONFIG;
    }
    if (conf_num(&g, "reread", 0, false, 1, &f->reread, err))
        return TPL_ECONFIG;
    hw->has_bgemm = true;
    return 0;
}

int hw_system_read(struct hw_system *hw, const struct conf *c,
                   struct tpl_err *err)
{
    struct conf_group g;
    memset(hw, 0, sizeof *hw);
    if (conf_check_known(c, config_root_setting(&c->cfg), "a system file",
                         hw_sections, err) ||
        group(c, "system", system_fields, &g, err) ||
        conf_str(&g, "name", hw->name, sizeof hw->name, err) ||
        conf_str(&g, "description", hw->description, sizeof hw->description,
                 err) ||
        (conf_has(&g, "calibration") &&
         conf_str(&g, "calibration", hw->calibration, sizeof hw->calibration, err)))
        return TPL_ECONFIG;
    if (read_gpu(hw, c, err) || read_links(hw, c, err) ||
        read_efficiency(hw, c, err) || read_rest(hw, c, err) ||
        read_reliability(hw, c, err) || read_power(hw, c, err) ||
        read_memops(hw, c, err) || read_flash(hw, c, err) ||
        read_bgemm(hw, c, err))
        return TPL_ECONFIG;
    return 0;
}

int hw_system_load(struct hw_system *hw, const char *name_or_path,
                   const char *const *sets, int n_sets, struct tpl_err *err)
{
    struct conf c;
    int rc = conf_load_named(&c, name_or_path, hw_presets, hw_presets_count,
                             "system", err);
    for (int i = 0; rc == 0 && i < n_sets; i++) {
        char section[64];
        if (conf_set_section(sets[i], section, sizeof section, NULL) == 0 &&
            hw_is_section(section))
            rc = conf_apply_set(&c, sets[i], err);
    }
    if (rc == 0)
        rc = hw_system_read(hw, &c, err);
    conf_release(&c);
    return rc;
}

/* Each GPU of a node copies through the host memory in both directions at
 * once while every GPU of the plan on that node does (the optimizer
 * offload's step, predictor/compose.c): 2 n times its rate, n the plan's
 * GPUs on a node; the link's rate where that is the narrower. */
double hw_host_copy_bytes_per_s(const struct hw_system *h, double link,
                                int64_t gpus)
{
    int64_t n = gpus < h->gpus_per_node ? gpus : h->gpus_per_node;
    return h->host_mem_bytes_per_s > 0
         ? fmin(link, h->host_mem_bytes_per_s / (2.0 * (double)n)) : link;
}

void hw_set_network_share(struct hw_system *h, double share)
{
    h->eff_net = h->eff_p2p_net = h->eff_ag_net = share;
}

void hw_set_clock(struct hw_system *h, double clock)
{
    h->clock = clock;
}
