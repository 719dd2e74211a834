/* tests/unit/test_opfits.c: the batched-GEMM, embedding and all-gather
 * models (predictor/kernel.c pred_bgemm_s, pred_embed_s, pred_coll_s with
 * the all-gather shares) by hand, and calibrate recovering each one's
 * parameters from synthetic samples (times from known parameters, +-1 %
 * PCG noise), with failed and disturbed collective runs left out. */
#include "calfit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/rng.h"
#include "calibrate/calibrate.h"

static struct tpl_rng rng;

static double noisy(double t)
{
    return t * (1.0 + 0.02 * (tpl_rng_unit(&rng) - 0.5));     /* +-1 % */
}

/* A100 facts (dgx-a100: 108 SMs, 128 x 128 tiles, 312 TFLOP/s, 2.039
 * TB/s) with a batched-GEMM fit of round numbers. */
static struct hw_system bgemm_system(void)
{
    struct hw_system hw = load_system("dgx-a100");
    hw.has_bgemm = true;
    hw.bgemm = (struct hw_bgemm_fit){ .eff = { 0.8, 0.7 }, .io_eff = { 0.5, 0.9 },
        .overlap = { 0.5, 0.2 }, .log_size = { 0, 0 }, .reread = 0.5 };
    hw.launch_s = 0;
    return hw;
}

/* QK^T of 64 heads of 1024 x 1024 scores at head dim 64 (kind OUT: K 64 <=
 * N 1024): 64 x 8 x 8 = 4096 tiles, 38 waves of 108 (4104 slots); math
 * 2 x 64 x 4104 x 128^2 / (312e12 x 0.8) = 34.48 us; traffic 64 x (2 x
 * 1024 x 64 x 2 + 2 x 1024^2) = 150.99 MB at 0.5 x 2.039 TB/s = 148.10 us;
 * 148.10 + 0.5 x 34.48 = 165.34 us. */
Test(opfits, batched_gemm_by_hand)
{
    struct hw_system hw = bgemm_system();
    struct pred_kernels k;
    pred_kernels_init(&k, &hw, PRED_GEMM_16BIT);
    double math = 2.0 * 64 * 4104 * 128.0 * 128.0 / (312e12 * 0.8);
    double io = 64 * (2.0 * 1024 * 64 * 2 + 2.0 * 1024 * 1024) / (2.039e12 * 0.5);
    assert_rel(pred_bgemm_s(&k, &k.attn, 64, 1024, 1024, 64, 2), io + 0.5 * math, 1e-9);
    cr_assert_float_eq(math * 1e6, 34.48, 0.01);
    cr_assert_float_eq(io * 1e6, 148.10, 0.01);
}

/* PV at head dim 160 (kind IN: K 1024 > N 160): the scores (2 MB per
 * head, larger than the 1024 x 160 output) are read once per column of
 * output tiles, ceil(160 / 128) = 2, the second at the re-read share;
 * math over 64 x 8 x 2 = 1024 tiles, 10 waves. */
Test(opfits, batched_gemm_rereads_the_scores)
{
    struct hw_system hw = bgemm_system();
    struct pred_kernels k;
    pred_kernels_init(&k, &hw, PRED_GEMM_16BIT);
    double a = 2.0 * 1024 * 1024, b = 2.0 * 1024 * 160, c = 2.0 * 1024 * 160;
    double io = 64 * (a + b + c + 0.5 * a) / (2.039e12 * 0.9);
    double math = 2.0 * 1024 * 1080 * 128.0 * 128.0 / (312e12 * 0.7);
    assert_rel(pred_bgemm_s(&k, &k.attn, 64, 1024, 160, 1024, 2),
               fmax(io, math) + 0.2 * fmin(io, math), 1e-9);
    /* no re-read share: one pass over the scores */
    hw.bgemm.reread = 0;
    pred_kernels_init(&k, &hw, PRED_GEMM_16BIT);
    io = 64 * (a + b + c) / (2.039e12 * 0.9);
    assert_rel(pred_bgemm_s(&k, &k.attn, 64, 1024, 160, 1024, 2),
               fmax(io, math) + 0.2 * fmin(io, math), 1e-9);
}

/* The unfused attention's GEMMs: forward QK^T + PV, backward dQ, dK, dV
 * (kind IN) and dP (kind OUT). */
Test(opfits, unfused_attention_gemms)
{
    struct hw_system hw = bgemm_system();
    struct pred_kernels k;
    pred_kernels_init(&k, &hw, PRED_GEMM_16BIT);
    double out = pred_bgemm_s(&k, &k.attn, 32, 2048, 2048, 128, 2);
    double in = pred_bgemm_s(&k, &k.attn, 32, 2048, 128, 2048, 2);
    assert_rel(pred_unfused_bmm_s(&k, 0, 32, 2048, 128), out + in, 1e-12);
    assert_rel(pred_unfused_bmm_s(&k, 1, 32, 2048, 128), out + 3 * in, 1e-12);
}

static struct hw_system embed_system(void)
{
    struct hw_system hw = load_system("dgx-a100");
    hw.has_memops = true;
    hw.memop[HW_MEMOP_EMBED] = (struct hw_memop_fit){ .fitted = true,
        .eff = { 0.15, 0.75 }, .floor_s = { 2e-6, 390e-6 },
        .row_s = { 0.4e-12, 2e-12 }, .row0_s = { 0, 28e-12 }, .short_eff = { 0, 0.3 } };
    hw.launch_s = 3e-6;
    return hw;
}

/* PyTorch's two embedding backward kernels (Embedding.cu): 3072 indices
 * or fewer, two launches and every byte at the few-index share; more,
 * the sort's floor, the table at its share, the gradient's rows and the
 * distinct rows touched, rows (1 - e^(-tokens / rows)). */
Test(opfits, embedding_backward_by_hand)
{
    struct hw_system hw = embed_system();
    struct pred_kernels k;
    double bytes = 4.0 * 3072 * 4096, table = 2.0 * 50304 * 4096;
    double few = 2 * 3e-6 + (bytes + table) / (0.3 * 2.039e12);
    double touched = 50304 * (1 - exp(-8192.0 / 50304));
    pred_kernels_init(&k, &hw, PRED_GEMM_16BIT);
    assert_rel(pred_embed_s(&k, 1, bytes, table, 3072, 50304, 4096), few, 1e-9);
    /* with the feature kernel's own terms (35 ns an index, 5 ps an index
     * element): the table at the few-index share, the indices walked */
    k.embed_few_index_s = 35e-9;
    k.embed_few_elem_s = 5e-12;
    assert_rel(pred_embed_s(&k, 1, bytes, table, 3072, 50304, 4096),
               2 * 3e-6 + table / (0.3 * 2.039e12) + 3072 * (35e-9 + 4096 * 5e-12), 1e-9);
    k.embed_few_index_s = k.embed_few_elem_s = 0;
    bytes = 4.0 * 8192 * 4096;
    assert_rel(pred_embed_s(&k, 1, bytes, table, 8192, 50304, 4096),
               390e-6 + table / (0.75 * 2.039e12) +
               4096 * (8192 * 2e-12 + touched * 28e-12), 1e-9);
    /* a table of fewer rows than the indices: nearly all of it touched */
    cr_assert_gt(pred_embed_s(&k, 1, bytes, 2.0 * 3200 * 4096, 40960, 3200, 4096),
                 390e-6 + 4096 * (40960 * 2e-12 + 0.99 * 3200 * 28e-12));
    /* forward: the writes and the touched rows' first reads from HBM,
     * every repeated index's row again from L2: 8192 indices into a
     * tensor-parallel table of 6400 rows touch 6400 (1 - e^-1.28) =
     * 4620.56 rows; the 3571.44 repeats re-read 4096 elements at 0.4 ps
     * (5.85 us) and take their half of the bytes off the stream */
    double again = 8192 - 6400 * (1 - exp(-8192.0 / 6400));
    cr_assert_float_eq(again, 3571.44, 0.01);
    assert_rel(pred_embed_s(&k, 0, bytes, 0, 8192, 6400, 4096),
               pred_memop_size_s(&k, HW_MEMOP_EMBED, 0, bytes * (1 - 0.5 * again / 8192),
                                 1, 1) + again * 4096 * 0.4e-12, 1e-12);
    cr_assert_lt(pred_embed_s(&k, 0, bytes, 0, 8192, 6400, 4096),
                 pred_embed_s(&k, 0, bytes, 0, 8192, 50304, 4096));
    /* without the row term: the gather as pred_memop_size_s */
    k.memop_row_s[HW_MEMOP_EMBED][0] = 0;
    assert_rel(pred_embed_s(&k, 0, bytes, 0, 8192, 50304, 4096),
               pred_memop_size_s(&k, HW_MEMOP_EMBED, 0, bytes, 1, 1), 1e-12);
}

/* All-gather and reduce-scatter at their own link shares; all-reduce
 * unchanged: 8 GPUs over NVLink, then 2 nodes of 8. */
Test(opfits, allgather_shares_scale_its_links)
{
    struct hw_system hw = load_system("dgx-a100");
    struct pred_kernels k, half;
    double S = 1 << 28;
    pred_kernels_init(&k, &hw, PRED_GEMM_16BIT);
    hw.eff_ag_nvlink = 0.5 * hw.eff_nvlink;
    hw.eff_ag_net = 0.5 * hw.eff_net;
    pred_kernels_init(&half, &hw, PRED_GEMM_16BIT);
    for (int c = PRED_COLL_ALLGATHER; c <= PRED_COLL_REDUCESCATTER; c++) {
        double base = k.coll_base_s + 7 * k.intra_lat_s * 3.4 / 0.6;   /* Simple hops */
        double t1 = pred_coll_s(&k, (enum pred_coll)c, S, 8, 8) - base;
        double t2 = pred_coll_s(&half, (enum pred_coll)c, S, 8, 8) - base;
        assert_rel(t2, 2 * t1, 1e-9);
        cr_assert_gt(pred_coll_s(&half, (enum pred_coll)c, S, 16, 8),
                     pred_coll_s(&k, (enum pred_coll)c, S, 16, 8));
    }
    assert_rel(pred_coll_s(&half, PRED_COLL_ALLREDUCE, S, 16, 8),
               pred_coll_s(&k, PRED_COLL_ALLREDUCE, S, 16, 8), 1e-12);
}

/* ---- calibrate recovers them ---- */

static FILE *open_at(const char *dir, const char *sub, const char *name,
                     const char *header)
{
    char path[600];
    FILE *fp;
    snprintf(path, sizeof path, "%s/%s/SYNTH_%s.csv", dir, sub, name);
    cr_assert_not_null((fp = fopen(path, "w")));
    if (header)
        fprintf(fp, "%s\n", header);
    return fp;
}

/* baddbmm and bmm samples over the sample sets' shapes (head dims 32 to
 * 512, 1024 to 4096 scores a row), their forward and backward GEMMs as
 * calibrate/fit.c times them. */
static void synth_bgemm(const char *dir, const struct pred_kernels *k)
{
    FILE *fb = open_at(dir, "operator", "baddbmm_fp16", "mp,b,h,l,dim,F_dur(us),B_dur(us)");
    FILE *fm = open_at(dir, "operator", "bmm_fp16", "mp,b,h,l,dim,F_dur(us),B_dur(us)");
    const struct pred_kparams *g = &k->gemm;
    for (double mp = 1; mp <= 4; mp *= 2)
        for (double h = 16; h <= 64; h *= 2)
            for (double l = 1024; l <= 4096; l *= 2)
                for (double dim = 2048; dim <= 8192; dim *= 2) {
                    double bt = 4 * h / mp, d = dim / h;
                    double out = pred_bgemm_s(k, g, bt, l, l, d, 2);
                    double in = pred_bgemm_s(k, g, bt, l, d, l, 2);
                    fprintf(fb, "%g,4,%g,%g,%g,%.3f,%.3f\n", mp, h, l, dim,
                            1e6 * noisy(out), 1e6 * noisy(2 * in));
                    fprintf(fm, "%g,4,%g,%g,%g,%.3f,%.3f\n", mp, h, l, dim,
                            1e6 * noisy(in), 1e6 * noisy(out + in));
                }
    fclose(fb);
    fclose(fm);
}

/* embedding samples: 2048 to 32768 indices (3072, the feature kernel's
 * last, among them) into 50257 / mp rows; with
 * 'capped', the forward of more than 3072 indices written as the shorter
 * of the gather and the backward (the published sets' artefact,
 * calibrate/fit.c mark_fwd_as_bwd); returns how many rows it capped */
static int synth_embed(const char *dir, const struct pred_kernels *k, bool capped)
{
    FILE *fp = open_at(dir, "operator", "embedding_fp16", "mp,b,l,dim,F_dur(us),B_dur(us)");
    int n_capped = 0;
    for (double mp = 1; mp <= 16; mp *= 2)
        for (double b = 2; b <= 8; b *= 2)
            for (double l = 1024; l <= 4096; l += 512)
                for (double dim = 2048; dim <= 8192; dim += 2048) {
                    double v = ceil(50257.0 / (128 * mp)) * 128, tok = b * l;
                    double f = noisy(pred_embed_s(k, 0, 4 * tok * dim, 0, tok, v, dim));
                    double g = noisy(pred_embed_s(k, 1, 4 * tok * dim, 2 * v * dim,
                                                  tok, v, dim));
                    if (capped && tok > 3072 && g < f) {
                        f = g;
                        n_capped++;
                    }
                    fprintf(fp, "%g,%g,%g,%g,%.3f,%.3f\n", mp, b, l, dim,
                            1e6 * f, 1e6 * g);
                }
    fclose(fp);
    return n_capped;
}

Test(opfits, calibrate_recovers_batched_gemm_and_embedding)
{
    char dir[] = "/tmp/trainplan-opfits-XXXXXX";
    struct hw_system truth = bgemm_system(), base = load_system("dgx-a100"), fit;
    static struct cal_report rep;
    struct tpl_err err = { 0 };
    struct pred_kernels k;
    const struct hw_memop_fit *e;
    truth.has_memops = true;
    truth.memop[HW_MEMOP_EMBED] = embed_system().memop[HW_MEMOP_EMBED];
    truth.memop[HW_MEMOP_EMBED].few_index_s = 60e-9;    /* the feature kernel */
    truth.memop[HW_MEMOP_EMBED].few_elem_s = 5e-12;
    truth.bgemm.log_size[0] = -0.04;
    truth.launch_s = base.launch_s;
    pred_kernels_init(&k, &truth, PRED_GEMM_16BIT);
    tpl_rng_seed(&rng, 15, 1);
    cr_assert_not_null(mkdtemp(dir));
    synth_folder(dir, true);
    synth_bgemm(dir, &k);
    synth_embed(dir, &k, false);
    cr_assert_eq(cal_run(dir, &base, 42, &fit, &rep, &err), 0, "%s", err.msg);
    cr_assert(fit.has_bgemm);
    for (int i = 0; i < HW_BGEMM_KINDS; i++) {
        assert_rel(fit.bgemm.eff[i], truth.bgemm.eff[i], 0.05);
        assert_rel(fit.bgemm.io_eff[i], truth.bgemm.io_eff[i], 0.05);
        cr_assert_float_eq(fit.bgemm.log_size[i], truth.bgemm.log_size[i], 0.01);
    }
    assert_rel(fit.bgemm.reread, truth.bgemm.reread, 0.1);
    e = &fit.memop[HW_MEMOP_EMBED];
    assert_rel(e->eff[1], 0.75, 0.05);
    assert_rel(e->floor_s[1], 390e-6, 0.05);
    assert_rel(e->row_s[1], 2e-12, 0.1);
    assert_rel(e->row0_s[1], 28e-12, 0.1);
    assert_rel(e->short_eff[1], 0.3, 0.05);
    assert_rel(e->few_index_s, 60e-9, 0.15);
    assert_rel(e->few_elem_s, 5e-12, 0.1);
    assert_rel(e->eff[0], 0.15, 0.05);          /* the gather, its re-reads */
    assert_rel(e->row_s[0], 0.4e-12, 0.1);
    for (int i = 0; i < rep.n_rows; i++)    /* 1 % noise: errors near 1 % */
        cr_assert_lt(rep.rows[i].mape_random, 2.5, "%s %s: %.2f%%", rep.rows[i].op,
                     rep.rows[i].dir, rep.rows[i].mape_random);
    scratch_remove(dir);
}

/* A forward file capped at the backward in a minority of its many-index
 * rows (the A100 set: 201 of 1625, its mp 8 and 16 rows past ~12K
 * indices, where the backward is the shorter) is the artefact as much as
 * the GH200 set's majority: calibrate models the shorter of the two and
 * gets the gather's own rate back from the rest (it took the capped rows
 * for a faster gather while the mark needed half the rows). */
Test(opfits, embedding_forward_capped_in_a_minority_of_rows)
{
    char dir[] = "/tmp/trainplan-opfits-XXXXXX";
    struct hw_system truth = embed_system(), base = load_system("dgx-a100"), fit;
    static struct cal_report rep;
    struct tpl_err err = { 0 };
    struct pred_kernels k;
    int n_capped, many = 5 * 3 * 7 * 4 - 5 * 2 * 4;   /* but b 2 l 1024, 1536 */
    truth.launch_s = base.launch_s;
    truth.memop[HW_MEMOP_EMBED].row_s[0] = 6e-12;   /* the A100 fit's re-read */
    pred_kernels_init(&k, &truth, PRED_GEMM_16BIT);
    tpl_rng_seed(&rng, 15, 2);
    cr_assert_not_null(mkdtemp(dir));
    synth_folder(dir, false);
    n_capped = synth_embed(dir, &k, true);
    cr_assert(n_capped > 0.05 * many && n_capped < 0.5 * many, "%d of %d", n_capped, many);
    cr_assert_eq(cal_run(dir, &base, 42, &fit, &rep, &err), 0, "%s", err.msg);
    assert_rel(fit.memop[HW_MEMOP_EMBED].eff[0], 0.15, 0.05);
    assert_rel(fit.memop[HW_MEMOP_EMBED].row_s[0], 6e-12, 0.1);
    cr_assert_lt(report_row(&rep, "embedding", "fwd")->mape_random, 2.5);
    scratch_remove(dir);
}

/* The eager rotary as its samples time it (kernel.h pred_memop_knee_s):
 * the host's time against the GPU's, (H^p + G^p)^(1/p). From PCG samples
 * of a known fit (+-1 %, the published sets' shapes: mp 1-16, b 4 and 8,
 * heads 16-80, sequences 1024-5120, hidden 2048-8192) calibrate gets the
 * host time, the share of HBM, the tables' time and the knee back. */
Test(opfits, calibrate_recovers_the_rotarys_host_knee)
{
    char dir[] = "/tmp/trainplan-opfits-XXXXXX";
    struct hw_system truth = load_system("dgx-a100"), base = truth, fit;
    static struct cal_report rep;
    struct tpl_err err = { 0 };
    struct pred_kernels k;
    FILE *fp;
    truth.has_memops = true;
    truth.memop[HW_MEMOP_ROPE] = (struct hw_memop_fit){ .fitted = true,
        .eff = { 0.18, 0.08 }, .floor_s = { 270e-6, 480e-6 },
        .row_s = { 6e-12, 15e-12 }, .knee = { 3, 3.5 } };
    pred_kernels_init(&k, &truth, PRED_GEMM_16BIT);
    tpl_rng_seed(&rng, 15, 3);
    cr_assert_not_null(mkdtemp(dir));
    synth_folder(dir, false);
    fp = open_at(dir, "operator", "RoPE_fp16", "mp,b,h,l,dim,F_dur(us),B_dur(us)");
    for (double mp = 1; mp <= 16; mp *= 2)
        for (double b = 4; b <= 8; b *= 2)
            for (double h = 16; h <= 80; h += 16)
                for (double l = 1024; l <= 5120; l += 1024)
                    for (double d = 2048; d <= 8192; d += 2048) {
                        double q = 8.0 * b * l * d / mp, tab = l * d / h;
                        if (fmod(h, mp) != 0 || fmod(d, h) != 0)
                            continue;
                        fprintf(fp, "%g,%g,%g,%g,%g,%.3f,%.3f\n", mp, b, h, l, d,
                                1e6 * noisy(pred_memop_knee_s(&k, HW_MEMOP_ROPE, 0, q, tab)),
                                1e6 * noisy(pred_memop_knee_s(&k, HW_MEMOP_ROPE, 1, q, tab)));
                    }
    fclose(fp);
    cr_assert_eq(cal_run(dir, &base, 42, &fit, &rep, &err), 0, "%s", err.msg);
    for (int d = 0; d < 2; d++) {
        const struct hw_memop_fit *m = &fit.memop[HW_MEMOP_ROPE];
        const struct hw_memop_fit *t = &truth.memop[HW_MEMOP_ROPE];
        assert_rel(m->eff[d], t->eff[d], 0.05);
        assert_rel(m->floor_s[d], t->floor_s[d], 0.05);
        assert_rel(m->row_s[d], t->row_s[d], 0.25);
        assert_rel(m->knee[d], t->knee[d], 0.15);
        cr_assert_lt(report_row(&rep, "rope (eager)", d ? "bwd" : "fwd")->mape_random,
                     2.0);
    }
    scratch_remove(dir);
}

/* An all-gather file of 'nodes' x 'gpn' GPUs from the truth's model, every
 * fourth row 100x faster (a failed run) when 'fail'; the authors' summary
 * line for it with their error 'authors' (a fraction). */
static void synth_allgather(const char *dir, const struct pred_kernels *k, int nodes,
                            int gpn, bool fail, double authors, FILE *summary)
{
    char name[64];
    FILE *fp;
    snprintf(name, sizeof name, "allgather_large_fp16_%d_%d", nodes, gpn);
    fp = open_at(dir, "nccl", name, "shape,nodes,GPUsPerNode,dur(us)");
    for (int i = 0; i < 64; i++) {
        double e = 134217728.0 + 16e6 * i, n = nodes * gpn, S = 2 * e * n;
        double t = pred_coll_s(k, PRED_COLL_ALLGATHER, S, (int64_t)n, gpn) +
                   pred_mem_s(k, 2 * S, n);
        fprintf(fp, "%.0f,%d,%d,%.3f\n", e, nodes, gpn,
                1e6 * noisy(fail && i % 4 == 0 ? t / 100 : t));
    }
    fclose(fp);
    fprintf(summary, "SYNTH,allgather_large,fp16,%d,%d,rforest,\"{'a': 1}\",%g\n",
            nodes, gpn, authors);
}

Test(opfits, calibrate_recovers_allgather_shares)
{
    char dir[] = "/tmp/trainplan-opfits-XXXXXX", cmd[600];
    struct hw_system truth = load_system("dgx-a100"), base = truth, fit;
    static struct cal_report rep;
    struct tpl_err err = { 0 };
    struct pred_kernels k, odd;
    FILE *summary;
    int seen = 0;
    truth.eff_ag_nvlink = 0.55;
    truth.eff_ag_net = 0.7;
    pred_kernels_init(&k, &truth, PRED_GEMM_16BIT);
    odd = k;                            /* a disturbed file: half the rate */
    odd.ag_intra_scale *= 0.5;
    tpl_rng_seed(&rng, 15, 2);
    cr_assert_not_null(mkdtemp(dir));
    synth_folder(dir, true);
    snprintf(cmd, sizeof cmd, "%s/nccl/SYNTH.csv", dir);
    cr_assert_not_null((summary = fopen(cmd, "w")));
    fprintf(summary, "GPU,Function,Precision,Nodes,GPUsPerNode,Best_model,"
            "Best_config,Best_error%%\n");
    synth_allgather(dir, &k, 1, 4, true, 0.05, summary);
    synth_allgather(dir, &odd, 1, 8, false, 0.9, summary);     /* disturbed */
    synth_allgather(dir, &k, 2, 8, false, 0.02, summary);
    synth_allgather(dir, &k, 4, 8, true, 0.03, summary);
    fclose(summary);
    cr_assert_eq(cal_run(dir, &base, 42, &fit, &rep, &err), 0, "%s", err.msg);
    assert_rel(fit.eff_ag_nvlink, 0.55, 0.02);
    assert_rel(fit.eff_ag_net, 0.7, 0.02);
    for (int i = 0; i < rep.n_rows; i++) {
        const struct cal_row *r = &rep.rows[i];
        if (!strcmp(r->op, "allgather (node)")) {   /* 16 failed, 64 disturbed */
            cr_assert_eq(r->n_failed, 16 + 64);
            cr_assert_eq(r->n, 48);
            cr_assert_float_eq(r->authors_pct, 5.0, 1e-9);
            seen++;
        }
        if (!strcmp(r->op, "allgather (nodes)")) {  /* 16 failed */
            cr_assert_eq(r->n_failed, 16);
            cr_assert_float_eq(r->authors_pct, 2.5, 1e-9);  /* 64 and 64 rows */
            cr_assert_lt(r->mape_random, 2.0, "%.2f", r->mape_random);
            seen++;
        }
    }
    cr_assert_eq(seen, 2);
    scratch_remove(dir);
}

/* On the published samples (skipped without ../shared): the batched GEMMs
 * and the embedding within the figures the README's table gives (random
 * split, seed 42), far below the one-curve GEMM model's 10-41 %. */
Test(opfits, published_samples_meet_the_readme)
{
    static const struct { const char *gpu, *op, *dir; double max; } want[] = {
        { "perlmutter-a100", "baddbmm", "fwd", 13 }, { "perlmutter-a100", "bmm", "bwd", 10.5 },
        { "perlmutter-a100", "embedding", "fwd", 5.5 },
        { "perlmutter-a100", "softmax", "fwd", 6.2 }, { "perlmutter-a100", "softmax", "bwd", 2 },
        { "perlmutter-a100", "rope (eager)", "fwd", 3.5 },
        { "perlmutter-a100", "rope (eager)", "bwd", 4 },
        { "vista-gh200", "rope (eager)", "fwd", 3.5 }, { "vista-gh200", "rope (eager)", "bwd", 5.6 },
        { "vista-gh200", "softmax", "fwd", 5.4 }, { "vista-gh200", "softmax", "bwd", 2 },
        { "perlmutter-a100", "embedding", "bwd", 6.5 },
        { "vista-gh200", "baddbmm", "bwd", 6.5 }, { "vista-gh200", "bmm", "fwd", 6 },
        { "vista-gh200", "embedding", "fwd", 4 }, { "vista-gh200", "embedding", "bwd", 7 },
        { "vista-gh200", "allgather (nodes)", "-", 15 },
        { "vista-gh200", "layernorm", "bwd", 5 }, { "vista-gh200", "layernorm", "fwd", 2.5 },
    };
    for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
        struct hw_system base;
        const struct cal_row *r = report_row(published_fit(want[w].gpu, &base),
                                             want[w].op, want[w].dir);
        cr_assert_lt(r->mape_random, want[w].max, "%s %s %s: %.2f", want[w].gpu,
                     want[w].op, want[w].dir, r->mape_random);
    }
}
