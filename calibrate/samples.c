/* calibrate/samples.c: the kernel-sample reader (see samples.h). Strict
 * comma-separated numbers under a header: no quoting, "\n" or "\r\n" line
 * ends, empty lines skipped, lines of any length (getline). One table per
 * file kind says which columns the fit reads, where each value goes and
 * what it must be. */
#include "calibrate/samples.h"

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/rng.h"

#define NO_POS      ((size_t)-1)
#define MAX_COUNT   1048576.0   /* nodes, GPUs per node */

static const struct { const char *file, *name; } ops[CAL_OP_COUNT] = {
    [CAL_OP_GELU] = { "gelu", "gelu" }, [CAL_OP_RESADD] = { "res_add", "res_add" },
    [CAL_OP_NORM] = { "layernorm", "layernorm" },
    [CAL_OP_L1] = { "linear1", "linear1" }, [CAL_OP_L2] = { "linear2", "linear2" },
    [CAL_OP_L3] = { "linear3", "linear3" }, [CAL_OP_L4] = { "linear4", "linear4" },
    [CAL_OP_FLASH] = { "flash_atten", "flash_atten" },
    [CAL_OP_RMSNORM] = { "RMSlayernorm", "rmsnorm (eager)" },
    [CAL_OP_ROPE] = { "RoPE", "rope (eager)" },
    [CAL_OP_SOFTMAX] = { "softmax", "softmax" },
    [CAL_OP_SUTMS] = { "ScaledUpperTriangMaskedSoftmax", "masked softmax" },
    [CAL_OP_FILLMASK] = { "fillmask", "fillmask" },
    [CAL_OP_BADDBMM] = { "baddbmm", "baddbmm" }, [CAL_OP_BMM] = { "bmm", "bmm" },
    [CAL_OP_EMBED] = { "embedding", "embedding" },
    [CAL_OP_XENT] = { "parallel_cross_entropy_128", "cross_entropy" },
    [CAL_OP_LFINAL] = { "linear_final", "linear_final" },
    [CAL_OP_OPT_FIRST] = { "firstStage_optimizer", "optimizer (first)" },
    [CAL_OP_OPT_MIDDLE] = { "middleStage_optimizer", "optimizer (middle)" },
    [CAL_OP_OPT_LAST] = { "lastStage_optimizer", "optimizer (last)" },
    [CAL_OP_AR_INTRA] = { NULL, "allreduce (node)" },
    [CAL_OP_AR_INTER] = { NULL, "allreduce (nodes)" },
    [CAL_OP_P2P_INTRA] = { NULL, "p2p (node)" },
    [CAL_OP_P2P_INTER] = { NULL, "p2p (nodes)" },
    [CAL_OP_AG_INTRA] = { NULL, "allgather (node)" },
    [CAL_OP_AG_INTER] = { NULL, "allgather (nodes)" },
};
static_assert(CAL_OP_COUNT == 27, "update ops");

const char *cal_op_name(enum cal_op op) { return ops[op].name; }
bool cal_op_is_link(enum cal_op op) { return !ops[op].file; }
bool cal_op_is_step(enum cal_op op)
{
    return op >= CAL_OP_OPT_FIRST && op <= CAL_OP_OPT_LAST;
}

/* ---- the columns of each file kind ---- */

enum rule { R_POSITIVE, R_TIME, R_COUNT };  /* > 0; >= 0; integer in [1, 2^20] */

struct column {
    const char *name;
    size_t off;                 /* offsetof(struct cal_sample, ...) */
    double scale;               /* file unit -> struct unit */
    enum rule rule;
    bool required;
};

#define AT(f) offsetof(struct cal_sample, f)

static const struct column op_cols[] = {
    { "mp", AT(mp), 1, R_POSITIVE, false }, { "b", AT(b), 1, R_POSITIVE, false },
    { "h", AT(h), 1, R_POSITIVE, false }, { "l", AT(l), 1, R_POSITIVE, false },
    { "dim", AT(dim), 1, R_POSITIVE, false },
    { "encoders", AT(enc), 1, R_POSITIVE, false },
    { "F_dur(us)", AT(t[0]), 1e-6, R_TIME, false },
    { "dur(us)", AT(t[0]), 1e-6, R_TIME, false },
    { "B_dur(us)", AT(t[1]), 1e-6, R_TIME, false },
};
static const struct column nccl_cols[] = {
    { "shape", AT(shape), 1, R_POSITIVE, true },
    { "nodes", AT(nodes), 1, R_COUNT, true },
    { "GPUsPerNode", AT(gpn), 1, R_COUNT, true },
    { "dur(us)", AT(t[0]), 1e-6, R_TIME, true },
};
#define MAX_COLS 9

static const char *const musts[] = {
    [R_POSITIVE] = "a number > 0", [R_TIME] = "a number >= 0",
    [R_COUNT] = "an integer in [1, 1048576]",
};

/* ---- lines and fields ---- */

struct reader {
    FILE *fp;
    const char *name;           /* for messages */
    int line;                   /* 1-based line now in buf */
    char *buf;                  /* that line, split in place at the commas */
    size_t buf_cap;
    char **field;
    size_t n_field, field_cap, n_header;
    const struct column *cols;
    size_t n_cols, pos[MAX_COLS];   /* header position of each column */
};

static int bad(const struct reader *rd, struct tpl_err *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* "NAME:LINE: ..." for the line being read. */
static int bad(const struct reader *rd, struct tpl_err *err, const char *fmt, ...)
{
    char what[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return tpl_errorf(err, TPL_ECONFIG, "%s:%d: %s", rd->name, rd->line, what);
}

/* The next non-empty line into rd->buf without its line end: 1, or 0 at
 * the end, or an error (a NUL byte, a read error). */
static int next_line(struct reader *rd, struct tpl_err *err)
{
    ssize_t n;
    errno = 0;
    while ((n = getline(&rd->buf, &rd->buf_cap, rd->fp)) >= 0) {
        rd->line++;
        if (strlen(rd->buf) != (size_t)n)
            return bad(rd, err, "NUL byte, not text");
        if (n && rd->buf[n - 1] == '\n')
            rd->buf[--n] = '\0';
        if (n && rd->buf[n - 1] == '\r')
            rd->buf[--n] = '\0';
        if (n)
            return 1;
    }
    if (ferror(rd->fp))
        return tpl_errorf(err, TPL_EIO, "cannot read '%s': %s", rd->name,
                          strerror(errno ? errno : EIO));
    return 0;
}

static void split(struct reader *rd)
{
    char *s = rd->buf, *comma;
    rd->n_field = 0;
    do {
        if (rd->n_field == rd->field_cap) {
            rd->field_cap = rd->field_cap ? 2 * rd->field_cap : 16;
            rd->field = xrealloc(rd->field, rd->field_cap * sizeof *rd->field);
        }
        rd->field[rd->n_field++] = s;
        if ((comma = strchr(s, ','))) {
            *comma = '\0';
            s = comma + 1;
        }
    } while (comma);
}

static int read_header(struct reader *rd, struct tpl_err *err)
{
    int rc = next_line(rd, err);
    if (rc <= 0)
        return rc ? rc : tpl_errorf(err, TPL_ECONFIG, "%s: no header line "
                                    "(empty file)", rd->name);
    split(rd);
    rd->n_header = rd->n_field;
    for (size_t c = 0; c < rd->n_cols; c++) {
        rd->pos[c] = NO_POS;
        for (size_t i = 0; i < rd->n_field; i++) {
            if (strcmp(rd->field[i], rd->cols[c].name))
                continue;
            if (rd->pos[c] != NO_POS)
                return bad(rd, err, "column '%s' appears twice", rd->cols[c].name);
            rd->pos[c] = i;
        }
        if (rd->pos[c] == NO_POS && rd->cols[c].required)
            return bad(rd, err, "missing column '%s'", rd->cols[c].name);
    }
    return 0;
}

/* ---- one value, one row ---- */

/* A finite plain decimal ("1.5", "2e-3", "0"): no sign, space, hex, inf or
 * nan, the whole field read, and within the rule. */
static bool number(const char *v, enum rule rule, double *out)
{
    char *end;
    if (!((*v >= '0' && *v <= '9') || *v == '.') ||
        strspn(v, "0123456789.eE+-") != strlen(v))
        return false;
    errno = 0;
    *out = strtod(v, &end);
    if (*end || errno || !isfinite(*out))
        return false;
    switch (rule) {
    case R_POSITIVE: return *out > 0;
    case R_TIME:     return *out >= 0;
    case R_COUNT:    return *out >= 1 && *out <= MAX_COUNT && *out == floor(*out);
    }
    return false;
}

/* 'v' for a message: a long value is cut, so the message keeps its end. */
static const char *shown(const char *v, char *buf, size_t n)
{
    if (strlen(v) < n)
        return v;
    snprintf(buf, n, "%.*s...", (int)(n - 4), v);
    return buf;
}

static int read_row(const struct reader *rd, struct cal_sample *s,
                    struct tpl_err *err)
{
    if (rd->n_field != rd->n_header)
        return bad(rd, err, "%zu fields, the header has %zu", rd->n_field,
                   rd->n_header);
    *s = (struct cal_sample){ .mp = 1, .b = 1, .h = 1, .l = 1, .dim = 1, .enc = 1 };
    for (size_t c = 0; c < rd->n_cols; c++) {
        const struct column *col = &rd->cols[c];
        const char *v;
        char buf[48];
        double x;
        if (rd->pos[c] == NO_POS)
            continue;
        v = rd->field[rd->pos[c]];
        if (!number(v, col->rule, &x))
            return bad(rd, err, "column '%s': must be %s, not '%s'", col->name,
                       musts[col->rule], shown(v, buf, sizeof buf));
        *(double *)((char *)s + col->off) = x * col->scale;
    }
    return 0;
}

static int read_rows(struct reader *rd, struct cal_set *out, struct tpl_err *err)
{
    int cap = 0, rc;
    while ((rc = next_line(rd, err)) == 1) {
        split(rd);
        if (out->n == cap) {
            cap = cap ? 2 * cap : 256;
            out->s = xrealloc(out->s, (size_t)cap * sizeof *out->s);
        }
        if ((rc = read_row(rd, &out->s[out->n], err)))
            return rc;
        out->n++;
    }
    return rc;
}

int cal_csv_read(FILE *fp, const char *name, enum cal_csv kind,
                 struct cal_set *out, struct tpl_err *err)
{
    struct reader rd = { .fp = fp, .name = name };
    int rc;
    rd.cols = kind == CAL_CSV_NCCL ? nccl_cols : op_cols;
    rd.n_cols = kind == CAL_CSV_NCCL ? sizeof nccl_cols / sizeof nccl_cols[0]
                                     : sizeof op_cols / sizeof op_cols[0];
    out->s = NULL;
    out->n = 0;
    rc = read_header(&rd, err);
    if (rc == 0)
        rc = read_rows(&rd, out, err);
    free(rd.buf);
    free(rd.field);
    if (rc) {
        free(out->s);
        out->s = NULL;
        out->n = 0;
    }
    return rc;
}

static int load_csv(const char *path, enum cal_csv kind, struct cal_set *out,
                    struct tpl_err *err)
{
    FILE *fp = fopen(path, "r");
    int rc;
    out->s = NULL;
    out->n = 0;
    if (!fp)
        return tpl_errorf(err, TPL_EIO, "cannot read '%s': %s", path, strerror(errno));
    rc = cal_csv_read(fp, path, kind, out, err);
    fclose(fp);
    return rc;
}

/* ---- the authors' own errors: <GPU>.csv ---- */

/* Its Best_config column is quoted and holds commas: the first four fields
 * (GPU, Function, Precision, Propagation) and the last (Best_error%, a
 * fraction) are read, the rest skipped. */
static int authors_line(struct reader *rd, struct cal_samples *S,
                        struct tpl_err *err)
{
    static const char *const dirs[2] = { "fwd", "bwd" };
    char *last = strrchr(rd->buf, ','), buf[48];
    double x;
    split(rd);
    if (rd->n_field < 5)
        return 0;
    for (int o = 0; o < CAL_OP_COUNT; o++)
        for (int d = 0; d < 2; d++) {
            const char *dir = cal_op_is_step((enum cal_op)o) ? (d ? "-" : "dur")
                                                            : dirs[d];
            if (!ops[o].file || strcmp(rd->field[1], ops[o].file) ||
                strcmp(rd->field[3], dir))
                continue;
            if (!number(last + 1, R_TIME, &x))
                return bad(rd, err, "column 'Best_error%%': must be a number "
                           ">= 0, not '%s'", shown(last + 1, buf, sizeof buf));
            S->authors_pct[o][d] = 100 * x;
        }
    return 0;
}

static int load_authors(struct cal_samples *S, const char *path,
                        struct tpl_err *err)
{
    struct reader rd = { .name = path };
    int rc;
    if (!(rd.fp = fopen(path, "r")))
        return 0;                               /* optional */
    while ((rc = next_line(&rd, err)) == 1 && (rc = authors_line(&rd, S, err)) == 0)
        ;
    free(rd.buf);
    free(rd.field);
    fclose(rd.fp);
    return rc;
}

/* The collectives' summary, nccl/<GPU>.csv: GPU, Function, Precision,
 * Nodes, GPUsPerNode, ..., Best_error% (a fraction) per sampled file. */
static const char *const nccl_kinds[4] = { "allreduce", "allreduce_large", "p2p",
                                           "allgather_large" };

static int nccl_authors_line(struct reader *rd, struct cal_samples *S,
                             struct tpl_err *err)
{
    char *last = strrchr(rd->buf, ','), buf[48];
    double x, nodes, gpn;
    split(rd);
    if (rd->n_field < 6 || S->n_nccl_authors == 32)
        return 0;
    for (int k = 0; k < 4; k++) {
        if (strcmp(rd->field[1], nccl_kinds[k]) || !number(rd->field[3], R_TIME, &nodes) ||
            !number(rd->field[4], R_TIME, &gpn))
            continue;
        if (!number(last + 1, R_TIME, &x))
            return bad(rd, err, "column 'Best_error%%': must be a number >= 0, not '%s'",
                       shown(last + 1, buf, sizeof buf));
        S->nccl_authors[S->n_nccl_authors++] = (struct cal_nccl_authors){
            k, (int)nodes, (int)gpn, 100 * x };
    }
    return 0;
}

static int load_nccl_authors(struct cal_samples *S, const char *path,
                             struct tpl_err *err)
{
    struct reader rd = { .name = path };
    int rc;
    if (!(rd.fp = fopen(path, "r")))
        return 0;                               /* optional */
    while ((rc = next_line(&rd, err)) == 1 && (rc = nccl_authors_line(&rd, S, err)) == 0)
        ;
    free(rd.buf);
    free(rd.field);
    fclose(rd.fp);
    return rc;
}

/* The authors' error of one collective file; -1: none. */
static double nccl_authors_pct(const struct cal_samples *S, int kind, int nodes, int gpn)
{
    for (int i = 0; i < S->n_nccl_authors; i++)
        if (S->nccl_authors[i].kind == kind && S->nccl_authors[i].nodes == nodes &&
            S->nccl_authors[i].gpn == gpn)
            return S->nccl_authors[i].pct;
    return -1;
}

/* ---- a folder ---- */

/* The GPU's name: operator/<GPU>.csv, the one file there without '_'. */
static int find_prefix(struct cal_samples *S, const char *dir, struct tpl_err *err)
{
    char path[600];
    DIR *d;
    struct dirent *e;
    snprintf(path, sizeof path, "%s/operator", dir);
    if (!(d = opendir(path)))
        return tpl_errorf(err, TPL_EIO, "cannot read '%s': %s", path,
                          strerror(errno));
    S->prefix[0] = '\0';
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (!strchr(e->d_name, '_') && n > 4 && !strcmp(e->d_name + n - 4, ".csv") &&
            n - 4 < sizeof S->prefix)
            snprintf(S->prefix, sizeof S->prefix, "%.*s", (int)(n - 4), e->d_name);
    }
    closedir(d);
    if (!S->prefix[0])
        return tpl_errorf(err, TPL_ECONFIG, "'%s': no <GPU>.csv summary naming "
                          "the GPU", path);
    return 0;
}

static void append(struct cal_set *to, const struct cal_set *from)
{
    to->s = xrealloc(to->s, (size_t)(to->n + from->n + 1) * sizeof *to->s);
    memcpy(to->s + to->n, from->s, (size_t)from->n * sizeof *from->s);
    to->n += from->n;
}

/* A configuration whose samples the authors' own tree model misses by more
 * than this (%) is not a function of the message size (the Perlmutter
 * 4-GPU all-gather's rate falls from 136 GB/s to 10-30 GB/s within the
 * file, 77 %; Vista's 4- and 8-node all-gathers 1702 and 326 %): its
 * samples are left out as disturbed runs. */
#define NCCL_DISTURBED_PCT 50.0

/* A collective file's samples, into 'to', those of a disturbed
 * configuration marked failed; its authors' error weighted into the
 * tier's (authors_pct, a sample-weighted mean over the files used). */
static void add_nccl(struct cal_samples *S, enum cal_op to, struct cal_set *one,
                     double pct)
{
    bool disturbed = pct > NCCL_DISTURBED_PCT;
    for (int j = 0; j < one->n; j++)
        one->s[j].failed = disturbed;
    if (pct >= 0 && !disturbed) {
        double n0 = S->authors_n[to], a0 = fmax(S->authors_pct[to][0], 0);
        S->authors_pct[to][0] = (a0 * n0 + pct * one->n) / (n0 + one->n);
        S->authors_n[to] += one->n;
    }
    append(&S->op[to], one);
}

/* nccl/<GPU>_<kind>_fp16_<nodes>_<gpus>.csv of 2 GPUs or more, kind
 * allreduce, allreduce_large, p2p or allgather_large: its samples, into the
 * tier its nodes say; 0 for any other name. */
static int load_nccl_file(struct cal_samples *S, const char *dir,
                          const char *file, struct tpl_err *err)
{
    static const enum cal_op tier[4] = { CAL_OP_AR_INTRA, CAL_OP_AR_INTRA,
                                         CAL_OP_P2P_INTRA, CAL_OP_AG_INTRA };
    char path[900], want[128], tail[32];
    int nodes, gpn, rc = 0;
    for (int i = 0; rc == 0 && i < 4; i++) {
        struct cal_set one;
        size_t len;
        enum cal_op intra = tier[i];    /* the nodes tier follows it */
        snprintf(want, sizeof want, "%s_%s_fp16_", S->prefix, nccl_kinds[i]);
        len = strlen(want);
        if (strncmp(file, want, len) ||
            sscanf(file + len, "%d_%d%31s", &nodes, &gpn, tail) != 3 ||
            strcmp(tail, ".csv") || nodes * gpn < 2)
            continue;
        snprintf(path, sizeof path, "%s/nccl/%s", dir, file);
        if ((rc = load_csv(path, CAL_CSV_NCCL, &one, err)) == 0)
            add_nccl(S, nodes > 1 ? intra + 1 : intra, &one,
                     nccl_authors_pct(S, i, nodes, gpn));
        free(one.s);
    }
    return rc;
}

static int load_nccl(struct cal_samples *S, const char *dir, struct tpl_err *err)
{
    char path[600];
    DIR *d;
    struct dirent *e;
    int rc = 0;
    snprintf(path, sizeof path, "%s/nccl/%s.csv", dir, S->prefix);
    if ((rc = load_nccl_authors(S, path, err)))
        return rc;
    snprintf(path, sizeof path, "%s/nccl", dir);
    if (!(d = opendir(path)))
        return 0;                               /* operators only */
    while (rc == 0 && (e = readdir(d)))
        rc = load_nccl_file(S, dir, e->d_name, err);
    closedir(d);
    return rc;
}

static int load_operators(struct cal_samples *S, const char *dir,
                          struct tpl_err *err)
{
    char path[900];
    int rc = 0;
    for (int o = 0; rc == 0 && o < CAL_OP_COUNT; o++) {
        if (!ops[o].file)
            continue;
        snprintf(path, sizeof path, "%s/operator/%s_%s_fp16.csv", dir, S->prefix,
                 ops[o].file);
        if (access(path, F_OK) == 0)
            rc = load_csv(path, CAL_CSV_OPERATOR, &S->op[o], err);
    }
    snprintf(path, sizeof path, "%s/operator/%s.csv", dir, S->prefix);
    return rc ? rc : load_authors(S, path, err);
}

/* One operator's random hold-out (20 %, PCG from 'seed') and the largest
 * mp and sequence for the extrapolation hold-outs (0 when every sample
 * has the same); a collective's largest group (ranks) and message. */
static void hold_out(struct cal_samples *S, enum cal_op o, uint64_t seed)
{
    double lo_mp = HUGE_VAL, lo_l = HUGE_VAL;
    bool link = cal_op_is_link(o);
    for (int j = 0; j < S->op[o].n; j++) {
        struct tpl_rng r;
        const struct cal_sample *x = &S->op[o].s[j];
        double mp = link ? x->nodes * x->gpn : x->mp, l = link ? x->shape : x->l;
        S->max_mp[o] = fmax(S->max_mp[o], mp);
        S->max_l[o] = fmax(S->max_l[o], l);
        lo_mp = fmin(lo_mp, mp);
        lo_l = fmin(lo_l, l);
        tpl_rng_seed(&r, seed, (uint64_t)o << 32 | (uint64_t)j);
        S->op[o].s[j].test = tpl_rng_unit(&r) < 0.2;
    }
    if (lo_mp == S->max_mp[o])
        S->max_mp[o] = 0;
    if (lo_l == S->max_l[o])
        S->max_l[o] = 0;
}

int cal_samples_load(struct cal_samples *S, const char *dir, uint64_t seed,
                     struct tpl_err *err)
{
    int rc;
    memset(S, 0, sizeof *S);
    for (int o = 0; o < CAL_OP_COUNT; o++)
        S->authors_pct[o][0] = S->authors_pct[o][1] = -1;
    rc = find_prefix(S, dir, err);
    if (rc == 0)
        rc = load_operators(S, dir, err);
    if (rc == 0)
        rc = load_nccl(S, dir, err);
    if (rc) {
        cal_samples_release(S);
        return rc;
    }
    for (int o = 0; o < CAL_OP_COUNT; o++)          /* unusable samples */
        S->unusable[o] = S->authors_pct[o][0] > 100 || S->authors_pct[o][1] > 100;
    for (int o = 0; o < CAL_OP_COUNT; o++)          /* the random hold-out */
        hold_out(S, (enum cal_op)o, seed);
    return 0;
}


void cal_samples_release(struct cal_samples *S)
{
    for (int o = 0; o < CAL_OP_COUNT; o++) {
        free(S->op[o].s);
        S->op[o].s = NULL;
        S->op[o].n = 0;
    }
}
