/* results/validate.c: predict published runs and measure the error.
 *
 * Each row becomes a model (its shape columns, with the family defaults of
 * RUNS.md: GLU rows are Llama-style, others GPT-style, BLOOM with ALiBi), a
 * plan and a job on its system preset. What the framework of each source
 * did that a row does not say (flash attention or not, dropout, overlapped
 * gradient reduction) comes from the table below, one line per source.
 * Statistics: absolute percentage error (APE) per row; MAPE, median, 90th
 * percentile (nearest rank) and worst per source, per system and overall;
 * Spearman's rank correlation (average ranks for ties) inside groups of
 * runs with the same source, model, GPU count and global batch; the top-1
 * regret (measured time of the predicted-fastest run over the fastest). */
#include "results/validate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/alloc.h"

struct framework {
    const char *source;
    enum job_attention attention;
    bool dropout, overlap_grad, overlap_param;
    double host_us;             /* host time per modelled kernel */
};

/* Eager PyTorch stacks of 2021-2023 issue each modelled kernel as several
 * Python-level operations (bias add, dropout, casts, copies, autograd
 * bookkeeping): 60 us per modelled kernel, chosen on vTrain's single-node
 * rows of 0.2-1.3 B models, the only host-bound runs here (MAPE 26.4 ->
 * 11.3 %, equally for hidden 1024 and 2048); it leaves the large-model
 * sources unchanged, where the GPU is the bottleneck. */
static const struct framework frameworks[] = {
    /* Megatron-LM as of SC21: fused softmax, no flash attention, dropout
     * 0.1, gradients all-reduced after the backward pass */
    { "narayanan21", JOB_ATTN_UNFUSED, true, false, false, 60 },
    /* Megatron-DeepSpeed as profiled by vTrain (MICRO 2024): same kernels */
    { "vtrain", JOB_ATTN_UNFUSED, true, false, false, 60 },
    /* BLOOM on Megatron-DeepSpeed: fused softmax, dropout 0, ZeRO-1 */
    { "bloom", JOB_ATTN_UNFUSED, false, false, false, 60 },
    { "bloom_prequel", JOB_ATTN_UNFUSED, false, false, false, 60 },
    /* NeMo / Megatron-Core with Transformer Engine: flash attention,
     * overlapped gradient reduce and parameter gather, CUDA graphs */
    { "mlperf_gpt3", JOB_ATTN_FLASH, false, true, true, 0 },
    { "deepseekv3", JOB_ATTN_FLASH, false, true, true, 0 },
};

#define MAX_SYSTEMS 32

struct val_report {
    const struct runs *runs;
    struct val_row *rows;
    size_t n;
    struct val_group *groups;
    size_t n_groups;
    struct { char name[32]; bool ok; struct hw_system hw; } sys[MAX_SYSTEMS];
    int n_sys;
};

static const struct framework *framework_of(const char *source)
{
    static const struct framework modern = { "", JOB_ATTN_FLASH, false, true,
                                             true, 0 };
    for (size_t i = 0; i < sizeof frameworks / sizeof frameworks[0]; i++)
        if (!strcmp(frameworks[i].source, source))
            return &frameworks[i];
    return &modern;
}

static const struct hw_system *system_of(struct val_report *v, const char *name)
{
    struct tpl_err err = { 0 };
    for (int i = 0; i < v->n_sys; i++)
        if (!strcmp(v->sys[i].name, name))
            return v->sys[i].ok ? &v->sys[i].hw : NULL;
    if (v->n_sys == MAX_SYSTEMS)
        return NULL;
    snprintf(v->sys[v->n_sys].name, sizeof v->sys[0].name, "%s", name);
    /* presets only: a runs file names clusters, not files */
    v->sys[v->n_sys].ok = conf_preset_find(hw_presets, hw_presets_count, name) &&
        hw_system_load(&v->sys[v->n_sys].hw, name, NULL, 0, &err) == 0;
    v->n_sys++;
    return v->sys[v->n_sys - 1].ok ? &v->sys[v->n_sys - 1].hw : NULL;
}

/* ---- one row ---- */

static void row_model(const struct run_row *r, const struct framework *fw,
                      struct model *m)
{
    bool bloom = !strncasecmp(r->model, "bloom", 5);
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "%.63s", r->model);
    m->layers = r->layers;
    m->hidden = r->hidden;
    m->heads = r->heads;
    m->kv_heads = r->kv_heads;
    m->ffn_hidden = r->ffn_hidden;
    m->vocab = r->vocab;
    m->glu = r->glu;
    m->dropout = fw->dropout;
    if (r->glu) {               /* Llama family (RUNS.md "glu by family") */
        m->norm = MODEL_NORM_RMSNORM;
        m->position = MODEL_POS_ROPE;
    } else {                    /* GPT-3 / Megatron GPT, BLOOM */
        m->norm = MODEL_NORM_LAYERNORM;
        m->position = bloom ? MODEL_POS_ALIBI : MODEL_POS_LEARNED;
        m->position_table = bloom ? 0 : r->seq;
        m->bias = m->tied_embeddings = true;
    }
}

static const char *unsupported(const struct run_row *r)
{
    if (r->moe_experts > 0 || r->ep > 1)
        return "mixture of experts is not modelled yet";
    if (r->cp > 1)
        return "context parallelism is not modelled yet";
    if (r->zero == 3)
        return "ZeRO-3 is not modelled yet";
    if (r->hidden % r->heads)
        return "hidden not divisible by heads";
    return NULL;
}

static void predict_row(struct val_report *v, struct val_row *o)
{
    const struct run_row *r = o->run;
    const struct framework *fw = framework_of(r->source);
    const struct hw_system *hw;
    const char *why = unsupported(r);
    struct model m;
    struct job j;
    struct plan p;
    struct pred_ctx c;
    struct pred_result res;
    o->timed = r->kind != RUN_NONE;
    if (why) {
        snprintf(o->reason, sizeof o->reason, "%s", why);
        return;
    }
    if (!(hw = system_of(v, r->system))) {
        snprintf(o->reason, sizeof o->reason, "unknown system '%s' (no preset)",
                 r->system);
        return;
    }
    row_model(r, fw, &m);
    job_default(&j);
    j.seq = r->seq;
    j.gbs = r->gbs;
    j.precision = r->precision;
    j.attention = fw->attention;
    j.overlap_grad_reduce = fw->overlap_grad;
    j.overlap_param_gather = fw->overlap_param;
    j.host_s = fw->host_us * 1e-6;
    p = (struct plan){ .tp = (int32_t)r->tp, .pp = (int32_t)r->pp,
                       .dp = (int32_t)r->dp, .mbs = (int32_t)r->mbs,
                       .vpp = (int32_t)r->vpp, .sp = r->sp,
                       .recompute = r->recompute, .zero = (int32_t)r->zero };
    pred_ctx_init(&c, &m, hw, &j, true);
    pred_plan(&c, &p, &res);
    if (res.rule != PLAN_OK)
        plan_rule_explain(res.rule, &p, &m, &j, &c.limits, o->reason,
                          sizeof o->reason);
    o->predicted = true;
    o->pred_s = res.iteration_s;
    o->pred_mem_gib = (res.mem.total + res.mem.reserve) / RES_GIB;
    o->pred_fits = res.mem.fits;
    if (o->timed)
        o->err_pct = 100.0 * (o->pred_s - r->measured_iter_s) / r->measured_iter_s;
}

/* ---- statistics ---- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A source name may end in ":multi-node": only its rows of more than one
 * node (the vTrain multi-node set, 64 GPUs and up). */
static bool row_in(const struct val_row *o, const char *source, const char *system)
{
    size_t len = source ? strcspn(source, ":") : 0;
    bool multi = source && !strcmp(source + len, ":multi-node");
    return o->predicted && o->timed &&
           (!source || (strlen(o->run->source) == len &&
                        !strncmp(o->run->source, source, len))) &&
           (!multi || o->run->num_gpus > o->run->gpus_per_node) &&
           (!system || !strcmp(o->run->system, system));
}

static struct val_stats stats_of(const struct val_report *v, const char *source,
                                 const char *system)
{
    struct val_stats s = { 0 };
    double *ape = xmalloc((v->n ? v->n : 1) * sizeof *ape), sum = 0, bias = 0;
    for (size_t i = 0; i < v->n; i++) {
        const struct val_row *o = &v->rows[i];
        if (!row_in(o, source, system))
            continue;
        ape[s.n++] = fabs(o->err_pct);
        sum += fabs(o->err_pct);
        bias += o->err_pct;
        if (fabs(o->err_pct) > s.worst || !s.worst_id) {
            s.worst = fabs(o->err_pct);
            s.worst_id = o->run->id;
        }
    }
    if (s.n) {
        qsort(ape, (size_t)s.n, sizeof *ape, cmp_double);
        s.mape = sum / s.n;
        s.bias = bias / s.n;
        s.median = s.n % 2 ? ape[s.n / 2] : (ape[s.n / 2 - 1] + ape[s.n / 2]) / 2;
        s.p90 = ape[(int)ceil(0.9 * s.n) - 1];
    }
    free(ape);
    return s;
}

struct val_stats res_validate_source(const struct val_report *v, const char *source)
{
    return stats_of(v, source, NULL);
}

/* Ranks 1..n with ties sharing their average rank. */
static void ranks(const double *x, int n, double *rank)
{
    for (int i = 0; i < n; i++) {
        int less = 0, equal = 0;
        for (int k = 0; k < n; k++) {
            less += x[k] < x[i];
            equal += x[k] == x[i];
        }
        rank[i] = less + (equal + 1) / 2.0;
    }
}

/* Pearson correlation of the ranks; 0 when either side has no spread. */
double res_spearman(const double *a, const double *b, int n)
{
    double *ra = xmalloc((size_t)n * sizeof *ra), *rb = xmalloc((size_t)n * sizeof *rb);
    double ma = 0, mb = 0, sab = 0, saa = 0, sbb = 0;
    ranks(a, n, ra);
    ranks(b, n, rb);
    for (int i = 0; i < n; i++) {
        ma += ra[i] / n;
        mb += rb[i] / n;
    }
    for (int i = 0; i < n; i++) {
        sab += (ra[i] - ma) * (rb[i] - mb);
        saa += (ra[i] - ma) * (ra[i] - ma);
        sbb += (rb[i] - mb) * (rb[i] - mb);
    }
    free(ra);
    free(rb);
    return saa > 0 && sbb > 0 ? sab / sqrt(saa * sbb) : 0.0;
}

static bool same_group(const struct run_row *a, const struct run_row *b)
{
    return !strcmp(a->source, b->source) && !strcmp(a->model, b->model) &&
           a->num_gpus == b->num_gpus && a->gbs == b->gbs;
}

static void build_groups(struct val_report *v)
{
    double *pred = xmalloc((v->n ? v->n : 1) * sizeof *pred);
    double *meas = xmalloc((v->n ? v->n : 1) * sizeof *meas);
    bool *used = xcalloc(v->n ? v->n : 1, sizeof *used);
    v->groups = xcalloc(v->n ? v->n : 1, sizeof *v->groups);
    for (size_t i = 0; i < v->n; i++) {
        const struct val_row *o = &v->rows[i];
        int n = 0, best = 0;
        double min_meas = INFINITY;
        if (used[i] || !row_in(o, NULL, NULL))
            continue;
        for (size_t k = i; k < v->n; k++)
            if (!used[k] && row_in(&v->rows[k], NULL, NULL) &&
                same_group(o->run, v->rows[k].run)) {
                used[k] = true;
                pred[n] = v->rows[k].pred_s;
                meas[n] = v->rows[k].run->measured_iter_s;
                if (pred[n] < pred[best])
                    best = n;
                min_meas = fmin(min_meas, meas[n]);
                n++;
            }
        if (n < 3)
            continue;
        v->groups[v->n_groups++] = (struct val_group){
            .source = o->run->source, .model = o->run->model,
            .gpus = o->run->num_gpus, .gbs = o->run->gbs, .n = n,
            .spearman = res_spearman(pred, meas, n),
            .regret_pct = 100.0 * (meas[best] / min_meas - 1.0) };
    }
    free(pred);
    free(meas);
    free(used);
}

struct val_report *res_validate_run(const struct runs *runs, const char *source)
{
    struct val_report *v = xcalloc(1, sizeof *v);
    v->runs = runs;
    v->rows = xcalloc(runs->n ? runs->n : 1, sizeof *v->rows);
    for (size_t i = 0; i < runs->n; i++) {
        if (source && strcmp(runs->rows[i].source, source))
            continue;
        v->rows[v->n].run = &runs->rows[i];
        predict_row(v, &v->rows[v->n++]);
    }
    build_groups(v);
    return v;
}

const struct val_row *res_validate_rows(const struct val_report *v, size_t *n)
{
    *n = v->n;
    return v->rows;
}

void res_validate_free(struct val_report *v)
{
    if (!v)
        return;
    free(v->rows);
    free(v->groups);
    free(v);
}

/* ---- reports ---- */

/* The distinct sources (or systems) of the predicted rows, in file order. */
static int distinct(const struct val_report *v, bool systems, const char **out,
                    int cap)
{
    int n = 0;
    for (size_t i = 0; i < v->n; i++) {
        const char *s = systems ? v->rows[i].run->system : v->rows[i].run->source;
        bool seen = false;
        for (int k = 0; k < n && !seen; k++)
            seen = !strcmp(out[k], s);
        if (!seen && n < cap)
            out[n++] = s;
    }
    return n;
}

struct mem_stats { int n, agree, n_mem; double mem_ape; };

static struct mem_stats memory_of(const struct val_report *v, const char *source)
{
    struct mem_stats m = { 0 };
    for (size_t i = 0; i < v->n; i++) {
        const struct val_row *o = &v->rows[i];
        if (!o->predicted || (source && strcmp(o->run->source, source)))
            continue;
        m.n++;
        m.agree += o->pred_fits == !o->run->oom;
        if (o->run->measured_mem_gib > 0) {
            m.n_mem++;
            m.mem_ape += 100 * fabs(o->pred_mem_gib - o->run->measured_mem_gib) /
                         o->run->measured_mem_gib;
        }
    }
    if (m.n_mem)
        m.mem_ape /= m.n_mem;
    return m;
}

static void rank_of(const struct val_report *v, const char *source, int *groups,
                    double *rho, double *regret)
{
    *groups = 0;
    *rho = *regret = 0;
    for (size_t g = 0; g < v->n_groups; g++)
        if (!strcmp(v->groups[g].source, source)) {
            ++*groups;
            *rho += v->groups[g].spearman;
            *regret += v->groups[g].regret_pct;
        }
    if (*groups) {
        *rho /= *groups;
        *regret /= *groups;
    }
}

static void plan_text(const struct run_row *r, char *buf, size_t n)
{
    snprintf(buf, n, "tp%lld.pp%lld.dp%lld.mb%lld%s%s%s%s",
             (long long)r->tp, (long long)r->pp, (long long)r->dp,
             (long long)r->mbs, r->vpp > 1 ? ".vpp" : "", r->sp ? ".sp" : "",
             r->recompute == PLAN_RC_FULL ? ".rc-full"
             : r->recompute == PLAN_RC_SELECTIVE ? ".rc-sel" : "",
             r->zero ? (r->zero == 3 ? ".z3" : ".z1") : "");
}

static void table_rows(FILE *fp, const struct val_report *v)
{
    fprintf(fp, "%-18s %-13s %-14s %6s %-28s %10s %10s %8s %8s %4s %8s %3s  %s\n",
            "id", "source", "system", "gpus", "plan", "measured s", "predict s",
            "error %", "pred GiB", "fits", "meas GiB", "oom", "note");
    for (size_t i = 0; i < v->n; i++) {
        const struct val_row *o = &v->rows[i];
        const struct run_row *r = o->run;
        char plan[64], meas[16] = "-", pred[16] = "-", err[16] = "-";
        char pmem[16] = "-", mmem[16] = "-";
        plan_text(r, plan, sizeof plan);
        if (o->timed)
            snprintf(meas, sizeof meas, "%.3f", r->measured_iter_s);
        if (o->predicted) {
            snprintf(pred, sizeof pred, "%.3f", o->pred_s);
            snprintf(pmem, sizeof pmem, "%.1f", o->pred_mem_gib);
        }
        if (o->predicted && o->timed)
            snprintf(err, sizeof err, "%+.1f", o->err_pct);
        if (r->measured_mem_gib > 0)
            snprintf(mmem, sizeof mmem, "%.1f", r->measured_mem_gib);
        fprintf(fp, "%-18s %-13s %-14s %6lld %-28s %10s %10s %8s %8s %4s %8s %3s  %s\n",
                r->id, r->source, r->system, (long long)r->num_gpus, plan, meas,
                pred, err, pmem, o->predicted ? (o->pred_fits ? "y" : "n") : "-",
                mmem, r->oom ? "y" : "n", o->reason);
    }
}

static void stats_line(FILE *fp, const char *name, struct val_stats s)
{
    if (!s.n) {
        fprintf(fp, "  %-16s %6d %8s\n", name, 0, "-");
        return;
    }
    fprintf(fp, "  %-16s %6d %7.2f%% %7.2f%% %7.2f%% %+7.2f%% %7.2f%%  %s\n", name,
            s.n, s.mape, s.median, s.p90, s.bias, s.worst, s.worst_id);
}

static void table_summary(FILE *fp, const struct val_report *v)
{
    const char *names[64];
    int n, predicted = 0;
    for (size_t i = 0; i < v->n; i++)
        predicted += v->rows[i].predicted;
    fprintf(fp, "\n%zu rows, %d predicted, %zu not (see the note column)\n",
            v->n, predicted, v->n - (size_t)predicted);
    fprintf(fp, "\niteration time (timed rows)\n  %-16s %6s %8s %8s %8s %8s %8s  %s\n",
            "source", "rows", "MAPE", "median", "p90", "bias", "worst", "worst row");
    n = distinct(v, false, names, 64);
    for (int i = 0; i < n; i++) {
        char multi[64];
        struct val_stats all = stats_of(v, names[i], NULL), part;
        stats_line(fp, names[i], all);
        snprintf(multi, sizeof multi, "%s:multi-node", names[i]);
        part = stats_of(v, multi, NULL);
        if (part.n && part.n < all.n)
            stats_line(fp, "  multi-node", part);
    }
    stats_line(fp, "all", stats_of(v, NULL, NULL));
    fprintf(fp, "\n  %-16s\n", "system");
    n = distinct(v, true, names, 64);
    for (int i = 0; i < n; i++)
        stats_line(fp, names[i], stats_of(v, NULL, names[i]));
    fprintf(fp, "\nranking (groups: same source, model, GPUs, batch; >= 3 timed rows)\n"
            "  %-16s %6s %10s %12s\n", "source", "groups", "spearman", "top-1 regret");
    n = distinct(v, false, names, 64);
    for (int i = 0; i < n; i++) {
        int groups;
        double rho, regret;
        rank_of(v, names[i], &groups, &rho, &regret);
        if (groups)
            fprintf(fp, "  %-16s %6d %10.3f %11.2f%%\n", names[i], groups, rho,
                    regret);
    }
    fprintf(fp, "\nmemory (predicted fits vs ran / out of memory; peak vs measured)\n"
            "  %-16s %6s %10s %10s %10s\n", "source", "rows", "agreement",
            "mem rows", "mem MAPE");
    for (int i = 0; i < n; i++) {
        struct mem_stats m = memory_of(v, names[i]);
        if (!m.n) {
            fprintf(fp, "  %-16s %6d %10s\n", names[i], 0, "-");
            continue;
        }
        fprintf(fp, "  %-16s %6d %9.1f%% %10d", names[i], m.n,
                100.0 * m.agree / m.n, m.n_mem);
        if (m.n_mem)
            fprintf(fp, " %9.2f%%", m.mem_ape);
        fputc('\n', fp);
    }
}

/* ---- JSON ---- */

static json_t *num_or_null(bool have, double x)
{
    return have && isfinite(x) ? json_real(x) : json_null();
}

static json_t *stats_json(struct val_stats s)
{
    return json_pack("{s:i, s:o, s:o, s:o, s:o, s:o, s:s?}", "rows", s.n,
                     "mape_pct", num_or_null(s.n, s.mape),
                     "median_pct", num_or_null(s.n, s.median),
                     "p90_pct", num_or_null(s.n, s.p90),
                     "bias_pct", num_or_null(s.n, s.bias),
                     "worst_pct", num_or_null(s.n, s.worst), "worst_id", s.worst_id);
}

static json_t *row_json(const struct val_row *o)
{
    const struct run_row *r = o->run;
    char plan[64];
    plan_text(r, plan, sizeof plan);
    return json_pack("{s:s, s:s, s:s, s:I, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:s}",
                     "id", r->id, "source", r->source, "system", r->system,
                     "gpus", (json_int_t)r->num_gpus, "plan", plan,
                     "measured_iter_s", num_or_null(o->timed, r->measured_iter_s),
                     "predicted_iter_s", num_or_null(o->predicted, o->pred_s),
                     "error_pct", num_or_null(o->predicted && o->timed, o->err_pct),
                     "predicted_mem_gib", num_or_null(o->predicted, o->pred_mem_gib),
                     "predicted_fits", o->predicted ? json_boolean(o->pred_fits)
                                                    : json_null(),
                     "measured_mem_gib", num_or_null(r->measured_mem_gib > 0,
                                                     r->measured_mem_gib),
                     "oom", r->oom, "reason", o->reason);
}

static json_t *summary_json(const struct val_report *v)
{
    const char *names[64];
    json_t *src = json_object(), *sys = json_object(), *rank = json_object();
    json_t *mem = json_object(), *groups = json_array();
    int n = distinct(v, false, names, 64);
    for (int i = 0; i < n; i++) {
        int g;
        double rho, regret;
        struct mem_stats m = memory_of(v, names[i]);
        char multi[64];
        struct val_stats part;
        json_object_set_new(src, names[i], stats_json(stats_of(v, names[i], NULL)));
        snprintf(multi, sizeof multi, "%s:multi-node", names[i]);
        part = stats_of(v, multi, NULL);
        if (part.n)
            json_object_set_new(src, multi, stats_json(part));
        rank_of(v, names[i], &g, &rho, &regret);
        json_object_set_new(rank, names[i], json_pack("{s:i, s:o, s:o}", "groups", g,
                            "mean_spearman", num_or_null(g, rho),
                            "mean_regret_pct", num_or_null(g, regret)));
        json_object_set_new(mem, names[i], json_pack("{s:i, s:o, s:i, s:o}",
                            "rows", m.n, "oom_agreement_pct",
                            num_or_null(m.n, m.n ? 100.0 * m.agree / m.n : 0),
                            "mem_rows", m.n_mem,
                            "mem_mape_pct", num_or_null(m.n_mem, m.mem_ape)));
    }
    n = distinct(v, true, names, 64);
    for (int i = 0; i < n; i++)
        json_object_set_new(sys, names[i], stats_json(stats_of(v, NULL, names[i])));
    for (size_t g = 0; g < v->n_groups; g++) {
        const struct val_group *x = &v->groups[g];
        json_array_append_new(groups, json_pack("{s:s, s:s, s:I, s:I, s:i, s:f, s:f}",
            "source", x->source, "model", x->model, "gpus", (json_int_t)x->gpus,
            "gbs", (json_int_t)x->gbs, "rows", x->n, "spearman", x->spearman,
            "regret_pct", x->regret_pct));
    }
    return json_pack("{s:o, s:o, s:o, s:{s:o, s:o}, s:o}",
                     "overall", stats_json(stats_of(v, NULL, NULL)),
                     "sources", src, "systems", sys,
                     "ranking", "sources", rank, "groups", groups, "memory", mem);
}

static void csv_rows(FILE *fp, const struct val_report *v)
{
    fputs("id,source,system,gpus,plan,measured_iter_s,predicted_iter_s,error_pct,"
          "predicted_mem_gib,predicted_fits,measured_mem_gib,oom,reason\n", fp);
    for (size_t i = 0; i < v->n; i++) {
        const struct val_row *o = &v->rows[i];
        const struct run_row *r = o->run;
        char plan[64], reason[160];
        plan_text(r, plan, sizeof plan);
        snprintf(reason, sizeof reason, "%s", o->reason);
        for (char *q = reason; *q; q++)
            if (*q == ',')
                *q = ';';
        fprintf(fp, "%s,%s,%s,%lld,%s,", r->id, r->source, r->system,
                (long long)r->num_gpus, plan);
        if (o->timed)
            fprintf(fp, "%.6g", r->measured_iter_s);
        fputc(',', fp);
        if (o->predicted)
            fprintf(fp, "%.6g", o->pred_s);
        fputc(',', fp);
        if (o->predicted && o->timed)
            fprintf(fp, "%.3f", o->err_pct);
        fputc(',', fp);
        if (o->predicted)
            fprintf(fp, "%.3f,%s", o->pred_mem_gib, o->pred_fits ? "y" : "n");
        else
            fputc(',', fp);
        fputc(',', fp);
        if (r->measured_mem_gib > 0)
            fprintf(fp, "%.3f", r->measured_mem_gib);
        fprintf(fp, ",%s,%s\n", r->oom ? "y" : "n", reason);
    }
}

int res_validate_write(FILE *fp, enum res_format fmt, const struct val_report *v,
                       struct tpl_err *err)
{
    json_t *rows;
    switch (fmt) {
    case RES_FMT_TABLE:
        table_rows(fp, v);
        table_summary(fp, v);
        break;
    case RES_FMT_CSV:
        csv_rows(fp, v);
        break;
    case RES_FMT_JSON:
        rows = json_array();
        for (size_t i = 0; i < v->n; i++)
            json_array_append_new(rows, row_json(&v->rows[i]));
        return res_json_emit(fp, json_pack("{s:o, s:o}", "rows", rows,
                                           "summary", summary_json(v)), err);
    case RES_FMT_COUNT:
        TPL_BUG("bad format %d", (int)fmt);
    }
    return res_stream_done(fp, err);
}

/* ---- baseline ---- */

int res_validate_baseline(const struct val_report *v, const char *path,
                          double tolerance, FILE *msg, bool *worse,
                          struct tpl_err *err)
{
    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr), *mape;
    const char *source;
    json_t *value;
    *worse = false;
    if (!root)
        return tpl_errorf(err, jerr.line > 0 ? TPL_ECONFIG : TPL_EIO,
                          "%s:%d: %s", path, jerr.line, jerr.text);
    mape = json_object_get(root, "mape_pct");
    if (!json_is_object(mape)) {
        json_decref(root);
        return tpl_errorf(err, TPL_ECONFIG, "%s: missing object 'mape_pct'", path);
    }
    json_object_foreach(mape, source, value) {
        struct val_stats s = stats_of(v, source, NULL);
        double base = json_number_value(value);
        const char *verdict = "same";
        if (!json_is_number(value)) {
            json_decref(root);
            return tpl_errorf(err, TPL_ECONFIG, "%s: 'mape_pct.%s' must be a "
                              "number", path, source);
        }
        if (!s.n || s.mape > base + tolerance) {
            verdict = "WORSE";
            *worse = true;
        } else if (s.mape < base - tolerance)
            verdict = "better: update the baseline";
        if (s.n)
            fprintf(msg, "validate: %-14s MAPE %6.2f%% (baseline %6.2f%%): %s\n",
                    source, s.mape, base, verdict);
        else
            fprintf(msg, "validate: %-14s no timed rows (baseline %6.2f%%): %s\n",
                    source, base, verdict);
    }
    json_decref(root);
    return 0;
}
