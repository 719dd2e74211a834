/* tests/unit/test_hw.c: hardware/hw.c, the system file loader. Every
 * expected value below is worked out by hand from the file text of the test
 * and the units its field names carry (README "Units"): TFLOP/s, GiB = 2^30
 * bytes, TB/s = 1e12 B/s, GB/s = 1e9 B/s, Gb/s = 1e9 bits/s = 1.25e8 B/s,
 * us = 1e-6 s, GFLOP = 1e9 FLOP. */
#include "helpers.h"

#include <stdio.h>

#include "common/conf.h"

#define GIB 1073741824.0        /* 2^30 */

/* A complete system file: 'node' and 'efficiency' are the tests' to vary
 * (optional fields in or out); 'memory' too, for the reserve check. */
static const char *const gpu_text =
    "system: { name = \"t\"; description = \"test system\"; };\n"
    "gpu: { name = \"G\"; bf16_tflops = 312.0; fp16_tflops = 300.0;\n"
    "       fp8_tflops = 624.0; hbm_gib = 80.0; hbm_tbps = 2.039; sms = 108;\n"
    "       tdp_w = 400.0; };\n"
    "network: { nic_gbps = 200.0; latency_us = 2.7; };\n"
    "kernel: { launch_us = 3.51; tile_m = 128; tile_n = 256;\n"
    "          collective_base_us = 90.0; };\n"
    "price: { usd_per_gpu_hour = 1.5; };\n";
static const char *const node_text =
    "node: { gpus = 8; nvlink_domain = 8; nvlink_gbs = 300.0;\n"
    "        nvlink_latency_us = 0.6; };\n";
static const char *const eff_text =
    "efficiency: { gemm = 0.8; gemm_half_gflop = 0.104; attn = 0.5;\n"
    "              hbm = 0.75; nvlink = 0.78; network = 0.86; };\n";
static const char *const mem_text = "memory: { reserve_gib = 3.0; };\n";

static int read_system(struct hw_system *h, const char *node, const char *eff,
                       const char *mem, struct tpl_err *err)
{
    char text[4096];
    struct conf c;
    int rc;
    snprintf(text, sizeof text, "%s%s%s%s", gpu_text, node, eff, mem);
    cr_assert_eq(conf_load_string(&c, "t", text, err), 0, "%s", err->msg);
    rc = hw_system_read(h, &c, err);
    conf_release(&c);
    return rc;
}

/* Each unit converts once, at load. */
Test(hw, units_convert_to_si)
{
    struct hw_system h;
    struct tpl_err err = { 0 };
    cr_assert_eq(read_system(&h, node_text, eff_text, mem_text, &err), 0, "%s",
                 err.msg);
    cr_assert_str_eq(h.name, "t");
    cr_assert_str_eq(h.gpu_name, "G");
    assert_rel(h.bf16_flops, 312e12, 1e-15);        /* 312 TFLOP/s */
    assert_rel(h.fp16_flops, 300e12, 1e-15);
    assert_rel(h.fp8_flops, 624e12, 1e-15);
    cr_assert_eq(h.hbm_bytes, 85899345920.0);       /* 80 x 2^30 */
    assert_rel(h.hbm_bytes_per_s, 2.039e12, 1e-15); /* 2.039 TB/s */
    cr_assert_eq(h.sms, 108);
    cr_assert_eq(h.tdp_w, 400.0);
    cr_assert_eq(h.gpus_per_node, 8);
    cr_assert_eq(h.nvlink_domain, 8);
    assert_rel(h.nvlink_bytes_per_s, 300e9, 1e-15); /* 300 GB/s */
    assert_rel(h.nvlink_latency_s, 0.6e-6, 1e-12);
    assert_rel(h.nic_bytes_per_s, 25e9, 1e-15);     /* 200 Gb/s / 8 bits */
    assert_rel(h.net_latency_s, 2.7e-6, 1e-12);
    assert_rel(h.gemm_half_flop, 1.04e8, 1e-12);    /* 0.104 GFLOP */
    assert_rel(h.launch_s, 3.51e-6, 1e-12);
    assert_rel(h.collective_base_s, 90e-6, 1e-12);
    cr_assert_eq(h.tile_m, 128);
    cr_assert_eq(h.tile_n, 256);
    cr_assert_eq(h.reserve_bytes, 3221225472.0);    /* 3 x 2^30 */
    cr_assert_eq(h.usd_per_gpu_hour, 1.5);
    /* efficiencies are fractions: no conversion */
    cr_assert_eq(h.eff_gemm, 0.8);
    cr_assert_eq(h.eff_attn, 0.5);
    cr_assert_eq(h.eff_hbm, 0.75);
    cr_assert_eq(h.eff_nvlink, 0.78);
    cr_assert_eq(h.eff_net, 0.86);
}

/* hw.h: the _bwd and norm efficiencies default to their forward and
 * elementwise counterparts, FP8 GEMMs to the 16-bit share (1), and a GPU
 * pair to the whole NVLink bandwidth (switched: any two GPUs get all of
 * it). Given, each one is taken as written. */
Test(hw, optional_fields_default_and_override)
{
    struct hw_system h;
    struct tpl_err err = { 0 };
    cr_assert_eq(read_system(&h, node_text, eff_text, mem_text, &err), 0, "%s",
                 err.msg);
    cr_assert_eq(h.eff_gemm_bwd, 0.8);
    cr_assert_eq(h.eff_attn_bwd, 0.5);
    cr_assert_eq(h.eff_norm, 0.75);
    cr_assert_eq(h.eff_gemm_fp8, 1.0);
    cr_assert_eq(h.nvlink_pair_bytes_per_s, h.nvlink_bytes_per_s);
    cr_assert_eq(read_system(&h, node_text,
                             "efficiency: { gemm = 0.8; gemm_half_gflop = 0.104;\n"
                             "  attn = 0.5; hbm = 0.75; nvlink = 0.78;\n"
                             "  network = 0.86; gemm_bwd = 0.9; attn_bwd = 0.4;\n"
                             "  norm = 0.45; gemm_fp8 = 0.7; };\n",
                             mem_text, &err), 0, "%s", err.msg);
    cr_assert_eq(h.eff_gemm_bwd, 0.9);
    cr_assert_eq(h.eff_attn_bwd, 0.4);
    cr_assert_eq(h.eff_norm, 0.45);
    cr_assert_eq(h.eff_gemm_fp8, 0.7);
}

/* A fully connected board (MI300X, Perlmutter's A100s) gives a pair of GPUs
 * a share of the NVLink bandwidth: 100 GB/s = 1e11 B/s of 300. A pair can
 * never get more than the GPU's whole NVLink: 400 GB/s is clamped to 300. */
Test(hw, nvlink_pair_bandwidth)
{
    struct hw_system h;
    struct tpl_err err = { 0 };
    cr_assert_eq(read_system(&h, "node: { gpus = 8; nvlink_domain = 8;\n"
                             "  nvlink_gbs = 300.0; nvlink_pair_gbs = 100.0;\n"
                             "  nvlink_latency_us = 0.6; };\n",
                             eff_text, mem_text, &err), 0, "%s", err.msg);
    assert_rel(h.nvlink_pair_bytes_per_s, 1e11, 1e-15);
    assert_rel(h.nvlink_bytes_per_s, 3e11, 1e-15);
    cr_assert_eq(read_system(&h, "node: { gpus = 8; nvlink_domain = 8;\n"
                             "  nvlink_gbs = 300.0; nvlink_pair_gbs = 400.0;\n"
                             "  nvlink_latency_us = 0.6; };\n",
                             eff_text, mem_text, &err), 0, "%s", err.msg);
    assert_rel(h.nvlink_pair_bytes_per_s, 3e11, 1e-15);
}

/* An NVLink domain spans whole nodes (GB200 NVL72: 72 GPUs over 18 nodes of
 * 4): one smaller than a node is refused, one larger is kept. */
Test(hw, nvlink_domain_spans_whole_nodes)
{
    struct hw_system h;
    struct tpl_err err = { 0 };
    cr_assert_eq(read_system(&h, "node: { gpus = 4; nvlink_domain = 72;\n"
                             "  nvlink_gbs = 900.0; nvlink_latency_us = 0.6; };\n",
                             eff_text, mem_text, &err), 0, "%s", err.msg);
    cr_assert_eq(h.gpus_per_node, 4);
    cr_assert_eq(h.nvlink_domain, 72);
    /* line 9 of the text: 8 lines of gpu_text, then node's first */
    cr_assert_eq(read_system(&h, "node: { gpus = 8; nvlink_domain = 4;\n"
                             "  nvlink_gbs = 300.0; nvlink_latency_us = 0.6; };\n",
                             eff_text, mem_text, &err), TPL_ECONFIG);
    cr_assert_str_eq(err.msg, "t:9: 'nvlink_domain' (4) must be >= 'gpus' (8)");
}

/* The reserve must leave some HBM: 80 GiB of reserve on an 80 GiB GPU is
 * refused, 79.5 is accepted (0.5 GiB usable). */
Test(hw, reserve_below_capacity)
{
    struct hw_system h;
    struct tpl_err err = { 0 };
    cr_assert_eq(read_system(&h, node_text, eff_text,
                             "memory: { reserve_gib = 80.0; };\n", &err),
                 TPL_ECONFIG);
    cr_assert_str_eq(err.msg, "t:13: 'reserve_gib' (80) must be less than "
                     "'hbm_gib' (80)");
    cr_assert_eq(read_system(&h, node_text, eff_text,
                             "memory: { reserve_gib = 79.5; };\n", &err), 0,
                 "%s", err.msg);
    cr_assert_eq(h.hbm_bytes - h.reserve_bytes, 0.5 * GIB);
}

/* gpu.arch: optional ("" absent), a lower-case name; a bad one names its
 * file, line and field. The presets' by their GPUs' architectures. */
Test(hw, gpu_arch_optional)
{
    static const char *const tail = "sms = 108;";
    char text[8192], g[1024];
    const char *at = strstr(gpu_text, tail);
    struct hw_system h;
    struct tpl_err err = { 0 };
    struct conf c;
    cr_assert_eq(read_system(&h, node_text, eff_text, mem_text, &err), 0, "%s", err.msg);
    cr_assert_str_eq(h.gpu_arch, "");
    cr_assert(at != NULL);
    for (int v = 0; v < 3; v++) {
        static const char *const val[3] = { "\"hopper\"", "\"Hopper\"", "3" };
        snprintf(g, sizeof g, "%.*s arch = %s; %s", (int)(at - gpu_text), gpu_text, val[v],
                 at);
        snprintf(text, sizeof text, "%s%s%s%s", g, node_text, eff_text, mem_text);
        cr_assert_eq(conf_load_string(&c, "t", text, &err), 0, "%s", err.msg);
        cr_assert_eq(hw_system_read(&h, &c, &err), v ? TPL_ECONFIG : 0, "%s", err.msg);
        conf_release(&c);
        if (v == 0)
            cr_assert_str_eq(h.gpu_arch, "hopper");
        else
            cr_assert(strstr(err.msg, "t:3:") && strstr(err.msg, "'arch' must be"), "%s",
                      err.msg);
    }
    cr_assert_str_eq(load_system("dgx-a100").gpu_arch, "ampere");
    cr_assert_str_eq(load_system("dgx-h100").gpu_arch, "hopper");
    cr_assert_str_eq(load_system("gb200-nvl72").gpu_arch, "blackwell");
    cr_assert_str_eq(load_system("mi300x").gpu_arch, "cdna3");
}

/* kernel.tile_k, a tile's K step: 1 (K not rounded) when absent, taken as
 * written, refused outside 1..4096 with the file, line and field. */
Test(hw, tile_k_optional_and_bounded)
{
    static const char *const with = "kernel: { launch_us = 3.51; tile_m = 128; tile_n = 256;";
    char text[8192], bad[4096];
    const char *at = strstr(gpu_text, "kernel:");
    struct hw_system h;
    struct tpl_err err = { 0 };
    struct conf c;
    cr_assert_eq(read_system(&h, node_text, eff_text, mem_text, &err), 0, "%s", err.msg);
    cr_assert_eq(h.tile_k, 1);
    cr_assert(at != NULL && strncmp(at, with, strlen(with)) == 0);
    for (int v = 0; v < 3; v++) {
        static const char *const val[3] = { "64", "0", "5000" };
        snprintf(bad, sizeof bad, "%.*s%s tile_k = %s;%s", (int)(at - gpu_text), gpu_text,
                 with, val[v], at + strlen(with));
        snprintf(text, sizeof text, "%s%s%s%s", bad, node_text, eff_text, mem_text);
        cr_assert_eq(conf_load_string(&c, "t", text, &err), 0, "%s", err.msg);
        cr_assert_eq(hw_system_read(&h, &c, &err), v ? TPL_ECONFIG : 0, "%s", err.msg);
        conf_release(&c);
        if (v == 0)
            cr_assert_eq(h.tile_k, 64);
        else
            cr_assert(strstr(err.msg, "t:6:") && strstr(err.msg, "tile_k"), "%s", err.msg);
    }
}

/* A field the loader does not know is an error, not ignored: a typo in a
 * system file would otherwise leave a default in place silently. */
Test(hw, unknown_field_refused)
{
    struct hw_system h;
    struct tpl_err err = { 0 };
    cr_assert_eq(read_system(&h, node_text, eff_text,
                             "memory: { reserve_gib = 3.0; reserve_gb = 3.0; };\n",
                             &err), TPL_ECONFIG);
    cr_assert(strstr(err.msg, "reserve_gb") != NULL, "%s", err.msg);
}

/* The dgx-a100 preset against its own file's cited figures
 * (hardware/systems/dgx-a100.cfg, hardware-facts.md): A100-SXM4-80GB,
 * 312 TFLOP/s BF16, no FP8, 80 GiB at 2.039 TB/s, 8 GPUs a node on one
 * NVSwitch at 300 GB/s per direction, one 200 Gb/s HDR NIC per GPU, and a
 * --set that doubles the NIC: 400 Gb/s = 5e10 B/s. */
Test(hw, dgx_a100_preset_and_set)
{
    const char *sets[] = { "network.nic_gbps=400", "model.layers=2" };
    struct hw_system h = load_system("dgx-a100");
    struct tpl_err err = { 0 };
    assert_rel(h.bf16_flops, 312e12, 1e-15);
    cr_assert_eq(h.fp8_flops, 0.0);
    cr_assert_eq(h.hbm_bytes, 80 * GIB);
    assert_rel(h.hbm_bytes_per_s, 2.039e12, 1e-15);
    cr_assert_eq(h.gpus_per_node, 8);
    cr_assert_eq(h.nvlink_domain, 8);
    assert_rel(h.nvlink_bytes_per_s, 300e9, 1e-15);
    cr_assert_eq(h.nvlink_pair_bytes_per_s, h.nvlink_bytes_per_s);
    assert_rel(h.nic_bytes_per_s, 25e9, 1e-15);
    /* a --set of another section (model.*) is not the loader's business */
    cr_assert_eq(hw_system_load(&h, "dgx-a100", sets, 2, &err), 0, "%s", err.msg);
    assert_rel(h.nic_bytes_per_s, 50e9, 1e-15);
    cr_assert(hw_is_section("network"));
    cr_assert(!hw_is_section("model"));
}

/* An optional memory-bound operator is all or nothing: a field of one
 * (here PyTorch's softmax row term) without its efficiency is an error
 * naming the missing field, never silently ignored; given whole, the new
 * dispatch fields load in their units. */
Test(hw, optional_memop_fields_are_all_or_nothing)
{
    const char *half[] = { "memory_ops.softmax_fwd_row_ps=1" };
    const char *whole[] = { "memory_ops.softmax_fwd=0.5", "memory_ops.softmax_fwd_floor_us=5",
                            "memory_ops.softmax_bwd=0.5", "memory_ops.softmax_bwd_floor_us=5",
                            "memory_ops.softmax_fwd_warp_row=2048",
                            "memory_ops.softmax_fwd_warp_ps=0.45",
                            "memory_ops.softmax_fwd_wide_ns=8" };
    struct hw_system h;
    struct tpl_err err = { 0 };
    cr_assert_eq(hw_system_load(&h, "dgx-h100", half, 1, &err), TPL_ECONFIG);
    cr_assert(strstr(err.msg, "missing field 'softmax_fwd'"), "%s", err.msg);
    cr_assert_eq(hw_system_load(&h, "dgx-h100", whole, 7, &err), 0, "%s", err.msg);
    cr_assert(h.memop[HW_MEMOP_SOFTMAX].fitted);
    cr_assert_eq(h.memop[HW_MEMOP_SOFTMAX].warp_row[0], 2048);
    assert_rel(h.memop[HW_MEMOP_SOFTMAX].warp_s[0], 0.45e-12, 1e-12);
    assert_rel(h.memop[HW_MEMOP_SOFTMAX].wide_s[0], 8e-9, 1e-12);
}

/* Meta's Grand Teton H100 (torchtitan benchmarks doc: 96 GB HBM2e,
 * 2.4 TB/s, 500 W) is dgx-h100's GPU at the clock a 500 W limit allows:
 * dgx-h100's compute shares at a clock of its own, fitted on the runs
 * (clock_from_runs); the cube law of dynamic power, P ~ f^3, bounds it
 * from above, (500 / 700)^(1/3) = 0.894, since the HBM, I/O and leakage
 * power does not fall with the clock. HBM bandwidth is the doc's. */
Test(hw, grandteton_is_h100_at_500_watts)
{
    struct hw_system g = load_system("grandteton-h100");
    struct hw_system h = load_system("dgx-h100");
    double f = cbrt(500.0 / 700.0);
    cr_assert_str_eq(g.gpu_name, "H100-HBM2e-96GB");
    assert_rel(f, 0.894, 1e-3);
    cr_assert(g.clock_from_runs && !h.clock_from_runs);
    cr_assert(g.clock < f && g.clock > 0.5, "%g", g.clock);   /* the fit's bracket */
    cr_assert_eq(h.clock, 1.0);
    cr_assert_eq(g.eff_gemm, h.eff_gemm);
    cr_assert_eq(g.eff_gemm_bwd, h.eff_gemm_bwd);
    cr_assert_eq(g.eff_attn, h.eff_attn);
    cr_assert_eq(g.eff_attn_bwd, h.eff_attn_bwd);
    cr_assert_eq(g.flash.softmax_s[0], h.flash.softmax_s[0]);
    cr_assert_eq(g.bgemm.eff[0], h.bgemm.eff[0]);
    assert_rel(g.hbm_bytes_per_s, 2.4e12, 1e-15);
    cr_assert_gt(g.hbm_bytes, h.hbm_bytes);
    cr_assert_eq(g.nvlink_domain, h.nvlink_domain);
    assert_rel(g.nic_bytes_per_s, h.nic_bytes_per_s, 1e-15);
}

/* A clock no source measures (efficiency.clock_from_runs): 1 and off
 * unless the file says so; the flag needs the clock (its prior); a
 * compute-bound kernel takes 1 / clock as long, a memory-bound one as long
 * as before, and hw_set_clock is what the run fit moves. */
Test(hw, clock_fitted_on_runs)
{
    struct hw_system h, a = load_system("dgx-a100");
    struct tpl_err err = { 0 };
    struct pred_kernels k0, k1;
    struct pred_flash_shape sh = { .b = 8, .heads = 32, .lq = 4096, .lk = 4096,
                                   .d = 128, .causal = true };
    double g0, g1, m0, m1, f0, f1;
    cr_assert_eq(a.clock, 1.0);
    cr_assert(!a.clock_from_runs);
    cr_assert_eq(read_system(&h, node_text,
                             "efficiency: { gemm = 0.8; gemm_half_gflop = 0.104;\n"
                             "  attn = 0.5; hbm = 0.75; nvlink = 0.78; network = 0.86;\n"
                             "  clock_from_runs = true; };\n",
                             mem_text, &err), TPL_ECONFIG);
    cr_assert(strstr(err.msg, "'clock_from_runs' needs 'clock'"), "%s", err.msg);
    cr_assert_eq(read_system(&h, node_text,
                             "efficiency: { gemm = 0.8; gemm_half_gflop = 0.104;\n"
                             "  attn = 0.5; hbm = 0.75; nvlink = 0.78; network = 0.86;\n"
                             "  clock = 0.8; clock_from_runs = true; };\n",
                             mem_text, &err), 0, "%s", err.msg);
    cr_assert(h.clock_from_runs);
    cr_assert_eq(h.clock, 0.8);
    pred_kernels_init(&k0, &a, PRED_GEMM_16BIT);
    hw_set_clock(&a, 0.8);
    cr_assert_eq(a.clock, 0.8);
    pred_kernels_init(&k1, &a, PRED_GEMM_16BIT);
    g0 = pred_gemm_s(&k0, &k0.gemm, 8192, 8192, 8192, 2) - k0.launch_s;
    g1 = pred_gemm_s(&k1, &k1.gemm, 8192, 8192, 8192, 2) - k1.launch_s;
    assert_rel(g1, g0 / 0.8, 1e-9);
    f0 = pred_flash_s(&k0, 0, &sh);
    f1 = pred_flash_s(&k1, 0, &sh);
    cr_assert(f1 > 1.2 * f0 && f1 < 1.26 * f0, "%g / %g", f1, f0);
    m0 = pred_memop_s(&k0, HW_MEMOP_GELU, 0, 1e9, 1, 1);
    m1 = pred_memop_s(&k1, HW_MEMOP_GELU, 0, 1e9, 1, 1);
    cr_assert_eq(m0, m1);
}

/* The clock slows FP8 GEMMs alike (dgx-h100 has FP8), and MFU stays
 * against the spec peak: model FLOPs over time x GPUs x 989.4 TFLOP/s,
 * not over the clocked rate. */
Test(hw, clock_fp8_and_mfu)
{
    struct hw_system h = load_system("dgx-h100");
    struct pred_kernels k0, k1;
    struct model m = load_model("llama3-8b");
    struct job j = make_job(8192, 64);
    struct pred_ctx c;
    struct plan p = make_plan(1, 1, 8, 1);
    struct pred_result r;
    double g0, g1;
    pred_kernels_init(&k0, &h, PRED_GEMM_FP8_DELAYED);
    hw_set_clock(&h, 0.75);
    pred_kernels_init(&k1, &h, PRED_GEMM_FP8_DELAYED);
    g0 = pred_gemm_s(&k0, &k0.gemm, 8192, 8192, 8192, 1) - k0.launch_s;
    g1 = pred_gemm_s(&k1, &k1.gemm, 8192, 8192, 8192, 1) - k1.launch_s;
    assert_rel(g1, g0 / 0.75, 1e-9);
    pred_ctx_init(&c, &m, &h, &j, false);
    pred_plan(&c, &p, &r);
    assert_rel(r.mfu, r.model_flops / (r.iteration_s * 8 * 989.4e12), 1e-3);
}

/* A fabric no source measures (efficiency.network_from_runs): off unless
 * the file says so; its share then moves the all-reduces', the sends' and
 * the all-gathers' together (fidelity/tune.c fits it), which is why the
 * file may not give the latter two their own (bad-input.tsv). Jean Zay's
 * Omni-Path is such a fabric; DGX A100's HDR is measured (S42). */
Test(hw, network_share_fitted_on_runs)
{
    struct hw_system h, j = load_system("jeanzay-a100"), d = load_system("dgx-a100");
    struct tpl_err err = { 0 };
    cr_assert_eq(read_system(&h, node_text, eff_text, mem_text, &err), 0, "%s",
                 err.msg);
    cr_assert(!h.net_from_runs);
    cr_assert_eq(read_system(&h, node_text,
                             "efficiency: { gemm = 0.8; gemm_half_gflop = 0.104;\n"
                             "  attn = 0.5; hbm = 0.75; nvlink = 0.78;\n"
                             "  network = 0.86; network_from_runs = true; };\n",
                             mem_text, &err), 0, "%s", err.msg);
    cr_assert(h.net_from_runs);
    cr_assert_eq(h.eff_p2p_net, 0.86);
    cr_assert_eq(h.eff_ag_net, 0.86);
    hw_set_network_share(&h, 0.4);
    cr_assert(h.eff_net == 0.4 && h.eff_p2p_net == 0.4 && h.eff_ag_net == 0.4);
    cr_assert_eq(h.eff_nvlink, 0.78);       /* inside the node: untouched */
    cr_assert_eq(read_system(&h, node_text,
                             "efficiency: { gemm = 0.8; gemm_half_gflop = 0.104;\n"
                             "  attn = 0.5; hbm = 0.75; nvlink = 0.78; network = 0.86;\n"
                             "  allgather_network = 0.7; network_from_runs = true; };\n",
                             mem_text, &err), TPL_ECONFIG);
    cr_assert(strstr(err.msg, "'allgather_network' cannot be set with "
                              "'network_from_runs'"), "%s", err.msg);
    cr_assert(j.net_from_runs && !d.net_from_runs);
    cr_assert(j.eff_net < 0.85 && j.eff_net > 0.1, "%g", j.eff_net);
    cr_assert(j.eff_p2p_net == j.eff_net && j.eff_ag_net == j.eff_net);
}

/* HBM as the device reports it (nvidia-smi's total MiB / 1024, one
 * decimal), as dgx-h100's 81559 MiB = 79.6 GiB: GB200 189471 MiB = 185.03
 * GiB, GH200 96 GB 97871 MiB = 95.58 GiB; GB200's SM count from its
 * device queries (152), not B200's 148. Hand values; presets' comments
 * cite the outputs. */
Test(hw, presets_as_the_device_reports)
{
    struct hw_system gb = load_system("gb200-nvl72");
    struct hw_system gh = load_system("vista-gh200");
    struct hw_system b = load_system("dgx-b200");
    cr_assert_eq(gb.sms, 152);
    cr_assert_eq(b.sms, 148);
    assert_rel(gb.hbm_bytes, 185.0 * GIB, 1e-12);
    assert_rel(gb.hbm_bytes / GIB, 189471.0 / 1024, 2e-4);
    assert_rel(gh.hbm_bytes, 95.6 * GIB, 1e-12);
    assert_rel(gh.hbm_bytes / GIB, 97871.0 / 1024, 3e-4);
    cr_assert_eq(gh.sms, 132);
}

/* The host link (node.host_gbs, efficiency.host) is optional: absent, 0
 * (no optimizer offload on the system, rule offload-host) and share 1;
 * given, GB/s to bytes; 0 is refused with its line. */
Test(hw, host_link_optional)
{
    struct hw_system h;
    struct tpl_err err = { 0 };
    cr_assert_eq(read_system(&h, node_text, eff_text, mem_text, &err), 0, "%s",
                 err.msg);
    cr_assert_eq(h.host_bytes_per_s, 0.0);
    cr_assert_eq(h.eff_host, 1.0);
    cr_assert_eq(read_system(&h, "node: { gpus = 8; nvlink_domain = 8;\n"
                             "  nvlink_gbs = 300.0; nvlink_latency_us = 0.6;\n"
                             "  host_gbs = 31.5; };\n",
                             "efficiency: { gemm = 0.8; gemm_half_gflop = 0.104;\n"
                             "  attn = 0.5; hbm = 0.75; nvlink = 0.78;\n"
                             "  network = 0.86; host = 0.88; };\n",
                             mem_text, &err), 0, "%s", err.msg);
    assert_rel(h.host_bytes_per_s, 31.5e9, 1e-15);
    assert_rel(h.eff_host, 0.88, 1e-15);
    cr_assert_eq(read_system(&h, "node: { gpus = 8; nvlink_domain = 8;\n"
                             "  nvlink_gbs = 300.0; nvlink_latency_us = 0.6;\n"
                             "  host_gbs = 0; };\n",
                             eff_text, mem_text, &err), TPL_ECONFIG);
    cr_assert(strstr(err.msg, "t:11:") && strstr(err.msg, "host_gbs"), "%s",
              err.msg);
}

/* The node's host memory (node.host_mem_gbs), optional: 0 when absent. */
Test(hw, host_memory_optional)
{
    struct hw_system h;
    struct tpl_err err = { 0 };
    cr_assert_eq(read_system(&h, node_text, eff_text, mem_text, &err), 0, "%s",
                 err.msg);
    cr_assert_eq(h.host_mem_bytes_per_s, 0.0);
    cr_assert_eq(read_system(&h, "node: { gpus = 8; nvlink_domain = 8;\n"
                             "  nvlink_gbs = 300.0; nvlink_latency_us = 0.6;\n"
                             "  host_gbs = 63; host_mem_gbs = 614.4; };\n",
                             eff_text, mem_text, &err), 0, "%s", err.msg);
    assert_rel(h.host_mem_bytes_per_s, 614.4e9, 1e-15);
}
