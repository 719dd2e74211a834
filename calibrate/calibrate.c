/* calibrate/calibrate.c: calibration of a system from sampled kernel and NCCL
 * timings (see calibrate.h). Stages, each a small nonlinear least-squares fit of
 * relative errors with GSL's trust-region solver, the others held fixed:
 *   1. launch overhead and elementwise HBM efficiency: gelu, residual add;
 *   2. norm bandwidth efficiency: layernorm;
 *   3. GEMM efficiency and half-saturation size: linear1-4 forward;
 *   4. gradient-GEMM efficiency: linear1-4 backward;
 *   5. flash-attention efficiency forward and backward (the samples run
 *      flash_attn_func without causal=True, so non-causal FLOPs: 4 b h l^2 d
 *      forward, 2.5x backward, FlashAttention-2 sec. 3);
 *   6. NVLink and network bus-bandwidth efficiency: all-reduce inside a node
 *      and across nodes.
 * A fit that lands outside a plausible range (an efficiency under 0.2, as
 * the Perlmutter inter-node samples give at 1.2 GB/s against a 25 GB/s NIC)
 * keeps the base system's value and says why. Errors are reported on a 20 %
 * random hold-out (PCG) and on an extrapolation hold-out (fit on hidden <=
 * 6144, test on larger), beside the sample set's own tree-model error. */
#include "calibrate/calibrate.h"

#include <dirent.h>
#include <errno.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/rng.h"
#include "predictor/kernel.h"

enum op { OP_GELU, OP_RESADD, OP_NORM, OP_L1, OP_L2, OP_L3, OP_L4, OP_FLASH,
          OP_AR_INTRA, OP_AR_INTER, OP_COUNT };

static const struct { const char *file, *name; } ops[OP_COUNT] = {
    [OP_GELU] = { "gelu", "gelu" }, [OP_RESADD] = { "res_add", "res_add" },
    [OP_NORM] = { "layernorm", "layernorm" }, [OP_L1] = { "linear1", "linear1" },
    [OP_L2] = { "linear2", "linear2" }, [OP_L3] = { "linear3", "linear3" },
    [OP_L4] = { "linear4", "linear4" }, [OP_FLASH] = { "flash_atten", "flash_atten" },
    [OP_AR_INTRA] = { NULL, "allreduce (node)" },
    [OP_AR_INTER] = { NULL, "allreduce (nodes)" },
};

struct sample {
    double mp, b, h, l, dim;    /* operator shape (1 where absent) */
    double shape, nodes, gpn;   /* collective: fp16 elements per rank */
    double t[2];                /* seconds, forward and backward (or the one) */
    bool test;                  /* in the random hold-out */
};

struct set {
    struct sample *s;
    int n;
};

struct point {
    enum op op;
    int dir;                    /* 0 forward, 1 backward */
    const struct sample *s;
};

/* ---- reading ---- */

static int col(char **names, int n, const char *want)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], want))
            return i;
    return -1;
}

/* Numeric CSV with a header; returns rows in set, columns by name. */
static int read_csv(const char *path, struct set *out, bool nccl,
                    struct tpl_err *err)
{
    FILE *fp = fopen(path, "r");
    char line[1024], *names[16], *tok, *save;
    int n_names = 0, idx[8], cap = 0, lineno = 1;
    static const char *const opcols[] = { "mp", "b", "h", "l", "dim",
                                          "F_dur(us)", "B_dur(us)" };
    static const char *const ncols[] = { "shape", "nodes", "GPUsPerNode", "dur(us)" };
    if (!fp)
        return tpl_errorf(err, TPL_EIO, "cannot read '%s': %s", path, strerror(errno));
    out->s = NULL;
    out->n = 0;
    if (!fgets(line, sizeof line, fp)) {
        fclose(fp);
        return tpl_errorf(err, TPL_ECONFIG, "%s:1: no header", path);
    }
    line[strcspn(line, "\r\n")] = '\0';
    for (tok = strtok_r(line, ",", &save); tok && n_names < 16;
         tok = strtok_r(NULL, ",", &save))
        names[n_names++] = xstrdup(tok);
    for (int i = 0; i < (nccl ? 4 : 7); i++)
        idx[i] = col(names, n_names, nccl ? ncols[i] : opcols[i]);
    while (fgets(line, sizeof line, fp)) {
        double v[16];
        int k = 0;
        struct sample *s;
        lineno++;
        for (tok = strtok_r(line, ",\r\n", &save); tok && k < 16;
             tok = strtok_r(NULL, ",\r\n", &save))
            v[k++] = strtod(tok, NULL);
        if (k != n_names) {
            for (int i = 0; i < n_names; i++)
                free(names[i]);
            fclose(fp);
            free(out->s);
            return tpl_errorf(err, TPL_ECONFIG, "%s:%d: %d fields, the header "
                              "has %d", path, lineno, k, n_names);
        }
        if (out->n == cap) {
            cap = cap ? 2 * cap : 1024;
            out->s = xrealloc(out->s, (size_t)cap * sizeof *out->s);
        }
        s = &out->s[out->n++];
        memset(s, 0, sizeof *s);
        s->mp = s->b = s->h = s->l = s->dim = 1;
        if (nccl) {
            s->shape = v[idx[0]];
            s->nodes = v[idx[1]];
            s->gpn = v[idx[2]];
            s->t[0] = v[idx[3]] * 1e-6;
        } else {
            double *f[5] = { &s->mp, &s->b, &s->h, &s->l, &s->dim };
            for (int i = 0; i < 5; i++)
                if (idx[i] >= 0)
                    *f[i] = v[idx[i]];
            s->t[0] = idx[5] >= 0 ? v[idx[5]] * 1e-6 : 0;
            s->t[1] = idx[6] >= 0 ? v[idx[6]] * 1e-6 : 0;
        }
    }
    for (int i = 0; i < n_names; i++)
        free(names[i]);
    fclose(fp);
    return 0;
}

/* ---- the model of one sample ---- */

static double model_s(const struct pred_kernels *k, const struct point *p)
{
    const struct sample *s = p->s;
    double tok = s->b * s->l, e, flops, io;
    double m = tok, n = 0, kk = 0;
    switch (p->op) {
    case OP_GELU:
        e = tok * 4 * s->dim / s->mp;
        return pred_mem_s(k, (p->dir ? 6.0 : 4.0) * e, 1);
    case OP_RESADD:
        return pred_mem_s(k, 6.0 * tok * s->dim, 1);
    case OP_NORM:
        return pred_norm_s(k, (p->dir ? 10.0 : 4.0) * tok * s->dim, p->dir ? 2 : 1);
    case OP_L1: n = 3 * s->dim / s->mp; kk = s->dim; break;
    case OP_L2: n = s->dim; kk = s->dim / s->mp; break;
    case OP_L3: n = 4 * s->dim / s->mp; kk = s->dim; break;
    case OP_L4: n = s->dim; kk = 4 * s->dim / s->mp; break;
    case OP_FLASH:
        flops = 4 * s->b * (s->h / s->mp) * s->l * s->l *
                ceil(s->dim / s->h / 32.0) * 32.0;  /* head dim padded to 32 */
        io = 2 * tok * 4 * s->dim / s->mp;
        return p->dir ? pred_compute_s(k, &k->attn_bwd, 2.5 * flops, 2 * io)
                      : pred_compute_s(k, &k->attn, flops, io);
    case OP_AR_INTRA:
    case OP_AR_INTER:
        return pred_coll_s(k, PRED_COLL_ALLREDUCE, 2 * s->shape,
                           (int64_t)(s->nodes * s->gpn), (int64_t)s->gpn);
    case OP_COUNT:
        break;
    }
    if (p->dir)
        return pred_gemm_s(k, &k->gemm_bwd, m, kk, n, 2) +
               pred_gemm_s(k, &k->gemm_bwd, kk, n, m, 2);
    return pred_gemm_s(k, &k->gemm, m, n, kk, 2);
}

/* ---- fitting ---- */

enum xform { X_EFF, X_POS };    /* (0, 1) logistic, or scale * exp */

struct fparam {
    double *field;
    enum xform x;
    double scale;
};

struct fit {
    struct hw_system hw;        /* the trial system */
    struct fparam p[3];
    int np;
    const struct point *pts;
    int n;
};

static double to_value(const struct fparam *p, double th)
{
    return p->x == X_EFF ? 1.0 / (1.0 + exp(-th)) : p->scale * exp(th);
}

static double to_theta(const struct fparam *p, double v)
{
    return p->x == X_EFF ? log(v / (1.0 - v)) : log(v / p->scale);
}

static int residuals(const gsl_vector *x, void *arg, gsl_vector *f)
{
    struct fit *c = arg;
    struct pred_kernels k;
    for (int i = 0; i < c->np; i++)
        *c->p[i].field = to_value(&c->p[i], gsl_vector_get(x, (size_t)i));
    pred_kernels_init(&k, &c->hw, PRED_GEMM_16BIT);
    for (int i = 0; i < c->n; i++)
        gsl_vector_set(f, (size_t)i, model_s(&k, &c->pts[i]) /
                                     c->pts[i].s->t[c->pts[i].dir] - 1.0);
    return GSL_SUCCESS;
}

/* Fit the fields of c->p on c->pts, starting from their current values. */
static void solve(struct fit *c)
{
    gsl_multifit_nlinear_parameters par = gsl_multifit_nlinear_default_parameters();
    gsl_multifit_nlinear_fdf fdf = { .f = residuals, .df = NULL, .fvv = NULL,
                                     .n = (size_t)c->n, .p = (size_t)c->np,
                                     .params = c };
    gsl_multifit_nlinear_workspace *w;
    gsl_vector *x;
    int info;
    if (c->n < c->np + 2)
        return;
    w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &par,
                                   (size_t)c->n, (size_t)c->np);
    x = gsl_vector_alloc((size_t)c->np);
    for (int i = 0; i < c->np; i++)
        gsl_vector_set(x, (size_t)i, to_theta(&c->p[i], *c->p[i].field));
    gsl_multifit_nlinear_init(x, &fdf, w);
    gsl_multifit_nlinear_driver(200, 1e-10, 1e-10, 1e-10, NULL, NULL, &info, w);
    for (int i = 0; i < c->np; i++)
        *c->p[i].field = to_value(&c->p[i],
                                  gsl_vector_get(gsl_multifit_nlinear_position(w),
                                                 (size_t)i));
    gsl_vector_free(x);
    gsl_multifit_nlinear_free(w);
}

/* ---- samples of a directory ---- */

struct samples {
    struct set op[OP_COUNT];
    char prefix[64];            /* "NVIDIAA100-SXM4-80GB" */
    char dir[512];
};

enum filter { F_ALL, F_RANDOM_TRAIN, F_RANDOM_TEST, F_SMALL, F_LARGE };

#define EXTRAP_DIM 6144.0

static bool keep(const struct sample *s, enum filter f)
{
    switch (f) {
    case F_RANDOM_TRAIN: return !s->test;
    case F_RANDOM_TEST:  return s->test;
    case F_SMALL:        return s->dim <= EXTRAP_DIM;
    case F_LARGE:        return s->dim > EXTRAP_DIM;
    default:             return true;
    }
}

/* The points of some ops and directions that pass the filter; a direction
 * with no time (0) is skipped. Caller frees. */
static struct point *gather(const struct samples *S, const enum op *which,
                            int n_which, int dir, enum filter f, int *n)
{
    struct point *p;
    int cap = 0, k = 0;
    for (int i = 0; i < n_which; i++)
        cap += S->op[which[i]].n;
    p = xmalloc((size_t)(cap ? cap : 1) * sizeof *p);
    for (int i = 0; i < n_which; i++)
        for (int j = 0; j < S->op[which[i]].n; j++) {
            const struct sample *s = &S->op[which[i]].s[j];
            if (s->t[dir] > 0 && keep(s, f))
                p[k++] = (struct point){ which[i], dir, s };
        }
    *n = k;
    return p;
}

static void fit_stage(struct hw_system *hw, const struct samples *S,
                      const enum op *which, int n_which, int dir, enum filter f,
                      struct fparam *params, int np)
{
    struct fit c = { .hw = *hw, .np = np };
    for (int i = 0; i < np; i++) {              /* point at the trial copy */
        c.p[i] = params[i];
        c.p[i].field = (double *)((char *)&c.hw + ((char *)params[i].field -
                                                   (char *)hw));
    }
    c.pts = gather(S, which, n_which, dir, f, &c.n);
    solve(&c);
    *hw = c.hw;
    free((void *)c.pts);
}

/* Both directions in one fit (a shared efficiency). */
static void fit_both(struct hw_system *hw, const struct samples *S,
                     const enum op *which, int n_which, enum filter f,
                     struct fparam *params, int np)
{
    struct fit c = { .hw = *hw, .np = np };
    struct point *a, *b, *all;
    int na, nb;
    for (int i = 0; i < np; i++) {
        c.p[i] = params[i];
        c.p[i].field = (double *)((char *)&c.hw + ((char *)params[i].field -
                                                   (char *)hw));
    }
    a = gather(S, which, n_which, 0, f, &na);
    b = gather(S, which, n_which, 1, f, &nb);
    all = xmalloc((size_t)(na + nb + 1) * sizeof *all);
    memcpy(all, a, (size_t)na * sizeof *a);
    memcpy(all + na, b, (size_t)nb * sizeof *b);
    c.pts = all;
    c.n = na + nb;
    solve(&c);
    *hw = c.hw;
    free(a);
    free(b);
    free(all);
}

static double median_ratio(const struct set *s)
{
    double *r = xmalloc((size_t)(s->n ? s->n : 1) * sizeof *r), m;
    int n = 0;
    for (int i = 0; i < s->n; i++)
        if (s->s[i].t[0] > 0 && s->s[i].t[1] > 0)
            r[n++] = s->s[i].t[1] / s->s[i].t[0];
    for (int i = 1; i < n; i++)                 /* insertion sort: small n */
        for (int j = i; j > 0 && r[j] < r[j - 1]; j--) {
            double t = r[j];
            r[j] = r[j - 1];
            r[j - 1] = t;
        }
    m = n ? r[n / 2] : 0;
    free(r);
    return m;
}

/* Every stage, in order, on the samples the filter keeps. */
static void fit_all(struct hw_system *hw, const struct samples *S, enum filter f)
{
    static const enum op elem[] = { OP_GELU, OP_RESADD };
    static const enum op norm[] = { OP_NORM };
    static const enum op gemm[] = { OP_L1, OP_L2, OP_L3, OP_L4 };
    static const enum op flash[] = { OP_FLASH };
    struct fparam p[2];
    p[0] = (struct fparam){ &hw->launch_s, X_POS, 1e-6 };
    p[1] = (struct fparam){ &hw->eff_hbm, X_EFF, 1 };
    fit_stage(hw, S, elem, 2, 0, f, p, 2);
    p[0] = (struct fparam){ &hw->eff_norm, X_EFF, 1 };
    fit_both(hw, S, norm, 1, f, p, 1);
    p[0] = (struct fparam){ &hw->eff_gemm, X_EFF, 1 };
    p[1] = (struct fparam){ &hw->gemm_half_flop, X_POS, 1e9 };
    fit_stage(hw, S, gemm, 4, 0, f, p, 2);
    p[0] = (struct fparam){ &hw->eff_gemm_bwd, X_EFF, 1 };
    fit_stage(hw, S, gemm, 4, 1, f, p, 1);
    p[0] = (struct fparam){ &hw->eff_attn, X_EFF, 1 };
    fit_stage(hw, S, flash, 1, 0, f, p, 1);
    hw->eff_attn_bwd = hw->eff_attn;
    if (median_ratio(&S->op[OP_FLASH]) >= 1.0) {    /* else: bwd not captured */
        p[0] = (struct fparam){ &hw->eff_attn_bwd, X_EFF, 1 };
        fit_stage(hw, S, flash, 1, 1, f, p, 1);
    }
}

/* ---- errors ---- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* MAPE (and 90th percentile) of one op and direction under 'hw'. */
static double op_error(const struct hw_system *hw, const struct samples *S,
                       enum op op, int dir, enum filter f, double *p90, int *n)
{
    struct pred_kernels k;
    struct point *pts = gather(S, &op, 1, dir, f, n);
    double *ape = xmalloc((size_t)(*n ? *n : 1) * sizeof *ape), sum = 0;
    pred_kernels_init(&k, hw, PRED_GEMM_16BIT);
    for (int i = 0; i < *n; i++) {
        ape[i] = 100 * fabs(model_s(&k, &pts[i]) / pts[i].s->t[dir] - 1);
        sum += ape[i];
    }
    qsort(ape, (size_t)*n, sizeof *ape, cmp_double);
    if (p90)
        *p90 = *n ? ape[(int)ceil(0.9 * *n) - 1] : -1;
    free(ape);
    free(pts);
    return *n ? sum / *n : -1;
}

/* ---- collectives ---- */

/* Alpha, the fixed cost of a collective, together with the tier's
 * efficiency: the samples constrain it only where it is a visible share of
 * the smallest message, so a fit outside 1-500 us keeps the prior. */
static void fit_alpha(struct hw_system *hw, const struct samples *S,
                      enum filter f, struct calib_report *rep)
{
    enum op tier = S->op[OP_AR_INTRA].n ? OP_AR_INTRA : OP_AR_INTER;
    double prior = hw->collective_base_s;
    struct fparam p[2] = {
        { tier == OP_AR_INTRA ? &hw->eff_nvlink : &hw->eff_net, X_EFF, 1 },
        { &hw->collective_base_s, X_POS, 1e-6 },
    };
    struct calib_param *cp = rep ? &rep->params[rep->n_params++] : NULL;
    if (S->op[tier].n == 0) {
        if (rep)
            rep->n_params--;
        return;
    }
    fit_stage(hw, S, &tier, 1, 0, f, p, 2);
    if (cp) {
        snprintf(cp->field, sizeof cp->field, "kernel.collective_base_us");
        cp->prior = prior * 1e6;
        cp->note[0] = '\0';
    }
    if (!(hw->collective_base_s >= 1e-6 && hw->collective_base_s <= 500e-6)) {
        if (cp)
            snprintf(cp->note, sizeof cp->note, "fit gave %.3g us: not "
                     "constrained by these message sizes, kept the prior",
                     hw->collective_base_s * 1e6);
        hw->collective_base_s = prior;
    }
    if (cp)
        cp->value = hw->collective_base_s * 1e6;
}

static void fit_links(struct hw_system *hw, const struct hw_system *base,
                      const struct samples *S, enum filter f,
                      struct calib_report *rep)
{
    static const struct { enum op op; const char *field; size_t off; } tiers[] = {
        { OP_AR_INTRA, "efficiency.nvlink", offsetof(struct hw_system, eff_nvlink) },
        { OP_AR_INTER, "efficiency.network", offsetof(struct hw_system, eff_net) },
    };
    fit_alpha(hw, S, f, rep);           /* first: the efficiencies refit after */
    for (int i = 0; i < 2; i++) {
        double *field = (double *)((char *)hw + tiers[i].off);
        double prior = *(const double *)((const char *)base + tiers[i].off);
        struct fparam p = { field, X_EFF, 1 };
        struct calib_param *cp = rep ? &rep->params[rep->n_params] : NULL;
        if (S->op[tiers[i].op].n == 0)
            continue;
        fit_stage(hw, S, &tiers[i].op, 1, 0, f, &p, 1);
        if (cp) {
            snprintf(cp->field, sizeof cp->field, "%s", tiers[i].field);
            cp->prior = prior;
            cp->note[0] = '\0';
        }
        if (*field < 0.2) {     /* not a plausible bus bandwidth */
            if (cp)
                snprintf(cp->note, sizeof cp->note, "fit gave %.3f (%.1f%% of "
                         "the link rate): samples implausible, kept the prior",
                         *field, 100 * *field);
            *field = prior;
        }
        if (cp) {
            cp->value = *field;
            rep->n_params++;
        }
    }
}

/* ---- loading a sample directory ---- */

static int find_prefix(struct samples *S, struct tpl_err *err)
{
    char path[600];
    DIR *d;
    struct dirent *e;
    snprintf(path, sizeof path, "%s/operator", S->dir);
    if (!(d = opendir(path)))
        return tpl_errorf(err, TPL_EIO, "cannot read '%s': %s", path,
                          strerror(errno));
    S->prefix[0] = '\0';
    while ((e = readdir(d)))
        if (!strchr(e->d_name, '_') && strlen(e->d_name) > 4 &&
            !strcmp(e->d_name + strlen(e->d_name) - 4, ".csv") &&
            strlen(e->d_name) - 4 < sizeof S->prefix)
            snprintf(S->prefix, sizeof S->prefix, "%.*s",
                     (int)(strlen(e->d_name) - 4), e->d_name);
    closedir(d);
    if (!S->prefix[0])
        return tpl_errorf(err, TPL_ECONFIG, "'%s': no <GPU>.csv summary naming "
                          "the GPU", path);
    return 0;
}

static void append(struct set *to, const struct set *from)
{
    to->s = xrealloc(to->s, (size_t)(to->n + from->n + 1) * sizeof *to->s);
    memcpy(to->s + to->n, from->s, (size_t)from->n * sizeof *from->s);
    to->n += from->n;
}

static int load_nccl(struct samples *S, struct tpl_err *err)
{
    char path[900], want[128];
    DIR *d;
    struct dirent *e;
    int rc = 0;
    snprintf(path, sizeof path, "%s/nccl", S->dir);
    if (!(d = opendir(path)))
        return 0;                               /* operators only */
    while (rc == 0 && (e = readdir(d))) {
        int nodes, gpn;
        struct set one;
        for (int large = 0; large < 2; large++) {
            size_t len;
            char tail[32];
            snprintf(want, sizeof want, "%s_allreduce%s_fp16_", S->prefix,
                     large ? "_large" : "");
            len = strlen(want);
            if (strncmp(e->d_name, want, len) ||
                sscanf(e->d_name + len, "%d_%d%31s", &nodes, &gpn, tail) != 3 ||
                strcmp(tail, ".csv") || nodes * gpn < 2)
                continue;
            snprintf(path, sizeof path, "%s/nccl/%s", S->dir, e->d_name);
            if ((rc = read_csv(path, &one, true, err)))
                break;
            append(&S->op[nodes > 1 ? OP_AR_INTER : OP_AR_INTRA], &one);
            free(one.s);
        }
    }
    closedir(d);
    return rc;
}

static int load_samples(struct samples *S, uint64_t seed, struct tpl_err *err)
{
    char path[900];
    int rc = find_prefix(S, err);
    for (int o = 0; rc == 0 && o < OP_COUNT; o++) {
        if (!ops[o].file)
            continue;
        snprintf(path, sizeof path, "%s/operator/%s_%s_fp16.csv", S->dir,
                 S->prefix, ops[o].file);
        if (access(path, F_OK) == 0)
            rc = read_csv(path, &S->op[o], false, err);
    }
    if (rc == 0)
        rc = load_nccl(S, err);
    for (int o = 0; o < OP_COUNT; o++)          /* the random hold-out */
        for (int j = 0; j < S->op[o].n; j++) {
            struct tpl_rng r;
            tpl_rng_seed(&r, seed, (uint64_t)o << 32 | (uint64_t)j);
            S->op[o].s[j].test = tpl_rng_unit(&r) < 0.2;
        }
    return rc;
}

/* The sample set's own error for an op and direction, in %; -1 if none. */
static double authors_error(const struct samples *S, const char *op, const char *dir)
{
    char path[900], line[1024];
    double best = -1;
    FILE *fp;
    snprintf(path, sizeof path, "%s/operator/%s.csv", S->dir, S->prefix);
    if (!(fp = fopen(path, "r")))
        return -1;
    while (fgets(line, sizeof line, fp)) {
        char *f[4], *save, *last = strrchr(line, ',');
        int k = 0;
        if (!last)
            continue;
        for (char *t = strtok_r(line, ",", &save); t && k < 4; t = strtok_r(NULL, ",", &save))
            f[k++] = t;
        if (k == 4 && !strcmp(f[1], op) && !strcmp(f[3], dir))
            best = 100 * strtod(last + 1, NULL);
    }
    fclose(fp);
    return best;
}

/* ---- the whole calibration ---- */

static void add_param(struct calib_report *rep, const char *field, double value,
                      double prior)
{
    struct calib_param *p = &rep->params[rep->n_params++];
    snprintf(p->field, sizeof p->field, "%s", field);
    p->value = value;
    p->prior = prior;
    p->note[0] = '\0';
}

static void report_rows(const struct hw_system *base, const struct samples *S,
                        struct calib_report *rep)
{
    struct hw_system rnd = *base, ext = *base;
    static const char *const dirs[2] = { "fwd", "bwd" };
    fit_all(&rnd, S, F_RANDOM_TRAIN);
    fit_links(&rnd, base, S, F_RANDOM_TRAIN, NULL);
    fit_all(&ext, S, F_SMALL);
    for (int o = 0; o < OP_COUNT; o++)
        for (int dir = 0; dir < 2; dir++) {
            struct calib_row *r = &rep->rows[rep->n_rows];
            int n_all, n;
            bool link = o == OP_AR_INTRA || o == OP_AR_INTER;
            if (rep->n_rows == CALIB_MAX_ROWS || (link && dir) ||
                (o == OP_RESADD && dir))        /* its bwd column repeats fwd */
                continue;
            free(gather(S, &(enum op){ (enum op)o }, 1, dir, F_ALL, &n_all));
            if (n_all == 0)
                continue;
            snprintf(r->op, sizeof r->op, "%s", ops[o].name);
            snprintf(r->dir, sizeof r->dir, "%s", link ? "-" : dirs[dir]);
            r->n = n_all;
            r->mape_random = op_error(&rnd, S, (enum op)o, dir, F_RANDOM_TEST,
                                      &r->p90_random, &n);
            r->mape_extrap = link ? -1 : op_error(&ext, S, (enum op)o, dir,
                                                  F_LARGE, NULL, &n);
            if (!link && n == 0)
                r->mape_extrap = -1;
            r->authors_pct = link ? -1 : authors_error(S, ops[o].file, dirs[dir]);
            if (o == OP_FLASH && dir && median_ratio(&S->op[OP_FLASH]) < 1.0)
                r->mape_random = r->p90_random = r->mape_extrap = -1;
            rep->n_rows++;
        }
}

int cal_run(const char *samples_dir, const struct hw_system *base,
             uint64_t seed, struct hw_system *fitted,
             struct calib_report *rep, struct tpl_err *err)
{
    struct samples *S = xcalloc(1, sizeof *S);
    int rc;
    gsl_set_error_handler_off();
    snprintf(S->dir, sizeof S->dir, "%s", samples_dir);
    memset(rep, 0, sizeof *rep);
    rc = load_samples(S, seed, err);
    if (rc == 0) {
        snprintf(rep->gpu, sizeof rep->gpu, "%s", S->prefix);
        *fitted = *base;
        fit_all(fitted, S, F_ALL);
        add_param(rep, "kernel.launch_us", fitted->launch_s * 1e6, base->launch_s * 1e6);
        add_param(rep, "efficiency.hbm", fitted->eff_hbm, base->eff_hbm);
        add_param(rep, "efficiency.norm", fitted->eff_norm, base->eff_norm);
        add_param(rep, "efficiency.gemm", fitted->eff_gemm, base->eff_gemm);
        add_param(rep, "efficiency.gemm_half_gflop", fitted->gemm_half_flop / 1e9,
                  base->gemm_half_flop / 1e9);
        add_param(rep, "efficiency.gemm_bwd", fitted->eff_gemm_bwd, base->eff_gemm_bwd);
        add_param(rep, "efficiency.attn", fitted->eff_attn, base->eff_attn);
        add_param(rep, "efficiency.attn_bwd", fitted->eff_attn_bwd, base->eff_attn_bwd);
        if (median_ratio(&S->op[OP_FLASH]) < 1.0)
            snprintf(rep->params[rep->n_params - 1].note, sizeof rep->params[0].note,
                     "backward samples shorter than forward (median ratio %.2f): "
                     "not captured, forward value used",
                     median_ratio(&S->op[OP_FLASH]));
        fit_links(fitted, base, S, F_ALL, rep);
        report_rows(base, S, rep);
    }
    for (int o = 0; o < OP_COUNT; o++)
        free(S->op[o].s);
    free(S);
    return rc;
}
