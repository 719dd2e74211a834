/* fidelity/runs.c: the runs-file reader (../shared/data/RUNS.md). CSV as
 * RFC 4180 and spreadsheets write it, read with libcsv (Debian libcsv-dev,
 * CSV_STRICT): quoted fields (with commas, doubled quotes, line breaks),
 * "\n" or "\r\n" line ends, a UTF-8 byte-order mark, empty lines skipped;
 * spaces are kept. One table says where each column's value goes and how it
 * is checked; the checks across columns run once a row is read. */
#include "fidelity/runs.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <csv.h>

#include "common/alloc.h"
#include "spaces/gpus.h"

#define RUNS_MAX_BYTES  ((size_t)256 << 20)
#define MAX_DEGREE      ((int64_t)1 << 24)
#define NO_POS          ((size_t)-1)

enum kind { K_INT, K_YN, K_ID, K_TEXT, K_WORDS, K_CONFIDENCE, K_RECOMPUTE,
            K_ZERO, K_PRECISION, K_RUN_KIND, K_SECONDS, K_GIB, K_STACK };

struct column {
    const char *name;
    enum kind kind;
    size_t off;                 /* offsetof(struct run_row, ...) */
    size_t size;                /* char arrays: their size, NUL included */
    int64_t min, max;           /* K_INT */
    bool optional;              /* a file may leave it out (blank then) */
};

#define AT(f)              offsetof(struct run_row, f)
#define INT(n, f, lo, hi)  { n, K_INT, AT(f), 0, lo, hi, false }
#define STR(n, k, f)       { n, k, AT(f), sizeof(((struct run_row *)0)->f), 0, 0, \
                             false }
#define ONE(n, k, f)       { n, k, AT(f), 0, 0, 0, false }

/* The schema, in RUNS.md's order (also the order values are checked in). */
static const struct column columns[] = {
    STR("id", K_ID, id),
    STR("source", K_TEXT, source),
    STR("confidence", K_CONFIDENCE, confidence),
    STR("system", K_TEXT, system),
    STR("gpu", K_TEXT, gpu),
    INT("num_gpus", num_gpus, 1, SPACE_MAX_GPUS),
    INT("gpus_per_node", gpus_per_node, 1, MAX_DEGREE),
    STR("model", K_TEXT, model),
    INT("layers", layers, 1, MODEL_MAX_LAYERS),
    INT("hidden", hidden, 1, MODEL_MAX_HIDDEN),
    INT("heads", heads, 1, MAX_DEGREE),
    INT("kv_heads", kv_heads, 1, MAX_DEGREE),
    INT("ffn_hidden", ffn_hidden, 1, MODEL_MAX_FFN),
    INT("vocab", vocab, 1, MODEL_MAX_VOCAB),
    INT("seq_len", seq, 1, JOB_MAX_SEQ),
    ONE("glu", K_YN, glu),
    INT("moe_experts", moe_experts, 0, MAX_DEGREE),
    INT("moe_topk", moe_topk, 0, MAX_DEGREE),
    INT("tp", tp, 1, MAX_DEGREE),
    INT("pp", pp, 1, MAX_DEGREE),
    INT("dp", dp, 1, MAX_DEGREE),
    INT("cp", cp, 1, MAX_DEGREE),
    INT("ep", ep, 1, MAX_DEGREE),
    INT("vpp", vpp, 1, MAX_DEGREE),
    ONE("sp", K_YN, sp),
    ONE("recompute", K_RECOMPUTE, recompute),
    ONE("zero", K_ZERO, zero),
    INT("mbs", mbs, 1, MAX_DEGREE),
    INT("gbs", gbs, 1, JOB_MAX_GBS),
    ONE("precision", K_PRECISION, precision),
    ONE("measured_iter_s", K_SECONDS, measured_iter_s),
    ONE("measured_kind", K_RUN_KIND, kind),
    ONE("measured_mem_gib", K_GIB, measured_mem_gib),
    ONE("oom", K_YN, oom),
    STR("assumed", K_WORDS, assumed),
    /* RUNS.md "Stacks": the last column, optional (older files lack it) */
    { "stack", K_STACK, AT(stack), sizeof(((struct run_row *)0)->stack), 0, 0,
      true },
};
#define N_COLUMNS (sizeof columns / sizeof columns[0])
static_assert(N_COLUMNS == 36, "a column added to RUNS.md goes in 'columns'");

static const char *const kind_names[RUN_KIND_COUNT + 1] = {
    [RUN_MEASURED] = "measured", [RUN_DERIVED] = "derived",
    [RUN_NONE] = "none", [RUN_KIND_COUNT] = NULL,
};
static const char *const yn_names[] = { "n", "y", NULL };
static const char *const grade_names[] = { "A", "B", "C", NULL };
static const char *const zero_names[] = { "0", "1", "3", NULL };
static const int64_t zero_values[] = { 0, 1, 3 };
static const char *const stack_names[] = {
    "megatron-lm-2021", "megatron-deepspeed", "megatron-core", "torchtitan",
    "nemo-automodel", "other", NULL,
};
static_assert(RUN_KIND_COUNT == 3, "update kind_names");

const char *run_kind_name(enum run_kind k) { return kind_names[k]; }

/* ---- ids seen so far: open addressing over row indices ---- */

struct id_set {
    size_t *slot;               /* row index + 1; 0 = free */
    size_t cap, n;              /* cap: a power of two */
};

static size_t id_hash(const char *s)        /* FNV-1a */
{
    uint64_t h = 14695981039346656037u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return (size_t)h;
}

static void id_put(struct id_set *set, const struct run_row *rows, size_t i)
{
    size_t k = id_hash(rows[i].id) & (set->cap - 1);
    while (set->slot[k])
        k = (k + 1) & (set->cap - 1);
    set->slot[k] = i + 1;
}

static void id_grow(struct id_set *set, const struct run_row *rows)
{
    size_t *old = set->slot, old_cap = set->cap;
    set->cap = old_cap ? 2 * old_cap : 64;
    set->slot = xcalloc(set->cap, sizeof *set->slot);
    for (size_t k = 0; k < old_cap; k++)
        if (old[k])
            id_put(set, rows, old[k] - 1);
    free(old);
}

/* The index of the row already holding rows[i].id, or NO_POS after adding i. */
static size_t id_add(struct id_set *set, const struct run_row *rows, size_t i)
{
    if (2 * (set->n + 1) > set->cap)        /* at most half full */
        id_grow(set, rows);
    for (size_t k = id_hash(rows[i].id) & (set->cap - 1); set->slot[k];
         k = (k + 1) & (set->cap - 1))
        if (!strcmp(rows[set->slot[k] - 1].id, rows[i].id))
            return set->slot[k] - 1;
    id_put(set, rows, i);
    set->n++;
    return NO_POS;
}

/* ---- lines and fields ---- */

struct reader {
    const char *name;           /* for messages */
    const char *p;              /* next unread byte of the text */
    int line;                   /* 1-based line where the record ended */
    struct csv_parser csv;
    bool row_done, finished;
    char *buf;                  /* the record's fields, each NUL-ended */
    size_t used, buf_cap;
    size_t *off;                /* where each field starts in buf */
    char **field;
    size_t n_field, field_cap;
    size_t n_header;            /* fields in the header */
    size_t pos[N_COLUMNS];      /* header position of each column */
    struct id_set ids;
};

static int bad(const struct reader *rd, struct tpl_err *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* "NAME:LINE: ..." for the record being read. */
static int bad(const struct reader *rd, struct tpl_err *err, const char *fmt, ...)
{
    char what[288];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return tpl_errorf(err, TPL_ECONFIG, "%s:%d: %s", rd->name, rd->line, what);
}

/* libcsv's field callback: one more field of the record. */
static void on_field(void *s, size_t len, void *arg)
{
    struct reader *rd = arg;
    if (rd->used + len + 1 > rd->buf_cap) {
        rd->buf_cap = 2 * (rd->used + len + 1);
        rd->buf = xrealloc(rd->buf, rd->buf_cap);
    }
    if (rd->n_field == rd->field_cap) {
        rd->field_cap = rd->field_cap ? 2 * rd->field_cap : 64;
        rd->field = xrealloc(rd->field, rd->field_cap * sizeof *rd->field);
        rd->off = xrealloc(rd->off, rd->field_cap * sizeof *rd->off);
    }
    if (len)
        memcpy(rd->buf + rd->used, s, len);
    rd->buf[rd->used + len] = '\0';
    rd->off[rd->n_field++] = rd->used;
    rd->used += len + 1;
}

static void on_row(int c, void *arg)
{
    (void)c;
    ((struct reader *)arg)->row_done = true;
}

static int no_space(unsigned char c)    /* keep spaces: " 8" is not 8 */
{
    (void)c;
    return 0;
}

static int csv_bad(struct reader *rd, struct tpl_err *err)
{
    return bad(rd, err, "not CSV (RFC 4180): %s",
               csv_strerror(csv_error(&rd->csv)));
}

/* The next record into rd->field / rd->n_field, fed to libcsv a line at a
 * time so that rd->line is where it ended: 1, 0 at the end, or TPL_ECONFIG. */
static int next_record(struct reader *rd, struct tpl_err *err)
{
    rd->n_field = rd->used = 0;
    rd->row_done = false;
    while (!rd->row_done && *rd->p) {
        const char *s = rd->p, *nl = strchr(s, '\n');
        size_t n = nl ? (size_t)(nl - s) + 1 : strlen(s);
        rd->p += n;
        rd->line++;
        if (csv_parse(&rd->csv, s, n, on_field, on_row, rd) != n)
            return csv_bad(rd, err);
    }
    if (!rd->row_done && !rd->finished) {
        rd->finished = true;
        if (csv_fini(&rd->csv, on_field, on_row, rd))
            return csv_bad(rd, err);
    }
    for (size_t i = 0; i < rd->n_field; i++)
        rd->field[i] = rd->buf + rd->off[i];
    return rd->row_done;
}

static size_t column_find(const char *name)
{
    for (size_t c = 0; c < N_COLUMNS; c++)
        if (!strcmp(columns[c].name, name))
            return c;
    return NO_POS;
}

/* The text of column 'name' in the row now split. */
static const char *value_of(const struct reader *rd, const char *name)
{
    return rd->field[rd->pos[column_find(name)]];
}

static int read_header(struct reader *rd, struct tpl_err *err)
{
    int rc = next_record(rd, err);
    if (rc < 0)
        return rc;
    if (rc == 0)
        return tpl_errorf(err, TPL_ECONFIG, "%s: no header line (empty file)",
                          rd->name);
    rd->n_header = rd->n_field;
    for (size_t c = 0; c < N_COLUMNS; c++)
        rd->pos[c] = NO_POS;
    for (size_t i = 0; i < rd->n_field; i++) {
        size_t c = column_find(rd->field[i]);
        if (c == NO_POS)
            continue;                   /* other columns are ignored */
        if (rd->pos[c] != NO_POS)
            return bad(rd, err, "column '%s' appears twice", columns[c].name);
        rd->pos[c] = i;
    }
    for (size_t c = 0; c < N_COLUMNS; c++)
        if (rd->pos[c] == NO_POS && !columns[c].optional)
            return bad(rd, err, "missing column '%s'", columns[c].name);
    return 0;
}

/* ---- one value ---- */

static int choice(const char *v, const char *const *names)
{
    for (int i = 0; names[i]; i++)
        if (!strcmp(names[i], v))
            return i;
    return -1;
}

/* Decimal digits only (no sign, space or '+'); past int64 reads as
 * INT64_MAX, above every column's maximum. */
static int digits(const char *v, int64_t *out)
{
    int64_t x = 0;
    if (!*v)
        return -1;
    for (; *v; v++) {
        if (*v < '0' || *v > '9')
            return -1;
        x = x > (INT64_MAX - (*v - '0')) / 10 ? INT64_MAX : 10 * x + (*v - '0');
    }
    *out = x;
    return 0;
}

/* A finite number > 0 in plain decimal ("1.5", "2e-3"): no sign, space, hex,
 * inf or nan, and the whole field read. */
static bool positive(const char *v, double *out)
{
    char *end;
    if (!((*v >= '0' && *v <= '9') || *v == '.') ||
        strspn(v, "0123456789.eE+-") != strlen(v))
        return false;
    errno = 0;
    *out = strtod(v, &end);
    return *end == '\0' && errno == 0 && isfinite(*out) && *out > 0;
}

static bool is_text(const char *v, size_t size)
{
    size_t n = strlen(v);
    if (n == 0 || n >= size)
        return false;
    for (; *v; v++)
        if ((unsigned char)*v < 0x20 || *v == 0x7f)    /* would garble reports */
            return false;
    return true;
}

static bool is_id(const char *v, size_t size)
{
    size_t n = strlen(v);
    return n > 0 && n < size && strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
        "abcdefghijklmnopqrstuvwxyz0123456789._+-") == n;
}

/* Blank, or [a-z_] words joined by single ';'. */
static bool is_words(const char *v, size_t size)
{
    size_t n = strlen(v);
    if (n == 0)
        return true;
    return n < size && strspn(v, "abcdefghijklmnopqrstuvwxyz_;") == n &&
           v[0] != ';' && v[n - 1] != ';' && !strstr(v, ";;");
}

static int must_be(char *must, size_t n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* What a value must be, into 'must'; returns -1. */
static int must_be(char *must, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(must, n, fmt, ap);
    va_end(ap);
    return -1;
}

static int set_int(const struct column *c, const char *v, int64_t *dst,
                   char *must, size_t n)
{
    int64_t x;
    if (digits(v, &x) || x < c->min)
        return must_be(must, n, "an integer >= %" PRId64, c->min);
    if (x > c->max)
        return must_be(must, n, "an integer <= %" PRId64, c->max);
    *dst = x;
    return 0;
}

/* The text kinds: checked, then copied into their char array. */
static int set_text(const struct column *c, const char *v, char *dst,
                    char *must, size_t n)
{
    switch (c->kind) {
    case K_ID:
        if (!is_id(v, c->size))
            return must_be(must, n, "1 to %zu characters of [A-Za-z0-9._+-]",
                            c->size - 1);
        break;
    case K_TEXT:
        if (!is_text(v, c->size))
            return must_be(must, n, "1 to %zu printable characters",
                            c->size - 1);
        break;
    case K_WORDS:
        if (!is_words(v, c->size))
            return must_be(must, n, "blank or [a-z_] words joined by ';' "
                            "(at most %zu characters)", c->size - 1);
        break;
    default:                            /* K_CONFIDENCE */
        if (choice(v, grade_names) < 0)
            return must_be(must, n, "'A', 'B' or 'C'");
        break;
    }
    strcpy(dst, v);
    return 0;
}

/* A stack of RUNS.md "Stacks" (every name fits the field). */
static int set_stack(const char *v, char *dst, char *must, size_t n)
{
    if (choice(v, stack_names) < 0)
        return must_be(must, n, "megatron-lm-2021, megatron-deepspeed, "
                       "megatron-core, torchtitan, nemo-automodel or other");
    strcpy(dst, v);
    return 0;
}

/* Check 'v' and store it in 'row'; -1 with what it must be in 'must'. */
static int set_field(const struct column *c, const char *v,
                     struct run_row *row, char *must, size_t n)
{
    void *dst = (char *)row + c->off;
    int i;
    double x = 0;
    switch (c->kind) {
    case K_INT:
        return set_int(c, v, dst, must, n);
    case K_YN:
        if ((i = choice(v, yn_names)) < 0)
            return must_be(must, n, "'y' or 'n'");
        *(bool *)dst = i == 1;
        return 0;
    case K_ID:
    case K_TEXT:
    case K_WORDS:
    case K_CONFIDENCE:
        return set_text(c, v, dst, must, n);
    case K_RECOMPUTE:                   /* plan's aliases ("sel") are not */
        if (plan_recompute_parse(v, dst) ||    /* in the schema */
            strcmp(plan_recompute_name(*(enum plan_recompute *)dst), v))
            return must_be(must, n, "'none', 'selective' or 'full'");
        return 0;
    case K_ZERO:
        if ((i = choice(v, zero_names)) < 0)
            return must_be(must, n, "0, 1 or 3");
        *(int64_t *)dst = zero_values[i];
        return 0;
    case K_PRECISION:
        if (job_precision_parse(v, dst))
            return must_be(must, n, "'bf16', 'fp16' or 'fp8'");
        return 0;
    case K_RUN_KIND:
        if ((i = choice(v, kind_names)) < 0)
            return must_be(must, n, "'measured', 'derived' or 'none'");
        *(enum run_kind *)dst = (enum run_kind)i;
        return 0;
    case K_STACK:
        return set_stack(v, dst, must, n);
    case K_SECONDS:
    case K_GIB:
        if (*v && !positive(v, &x))
            return must_be(must, n, "a number > 0 or blank");
        *(double *)dst = *v ? x : c->kind == K_GIB ? -1 : 0;
        return 0;
    }
    TPL_BUG("column '%s' of unknown kind %d", c->name, (int)c->kind);
}

/* 'v' for a message: a long value is cut, so the message keeps its end. */
static const char *shown(const char *v, char *buf, size_t n)
{
    if (strlen(v) < n)
        return v;
    snprintf(buf, n, "%.*s...", (int)(n - 4), v);
    return buf;
}

/* ---- one row ---- */

/* tp*pp*dp*cp, or -1 past int64 (each degree may be up to 2^24). */
static int64_t degrees_product(const struct run_row *r)
{
    const int64_t d[4] = { r->tp, r->pp, r->dp, r->cp };
    int64_t p = 1;
    for (int i = 0; i < 4; i++) {
        if (p > INT64_MAX / d[i])
            return -1;
        p *= d[i];
    }
    return p;
}

static int check_shape(const struct reader *rd, const struct run_row *r,
                       struct tpl_err *err)
{
    int64_t gpus = degrees_product(r);
    char n[32] = "more than 2^63";
    if (r->heads % r->kv_heads)
        return bad(rd, err, "column 'kv_heads': must divide heads (%" PRId64
                   "), not '%s'", r->heads, value_of(rd, "kv_heads"));
    if (gpus >= 0)
        snprintf(n, sizeof n, "%" PRId64, gpus);
    if (gpus != r->num_gpus)
        return bad(rd, err, "column 'num_gpus': must equal tp*pp*dp*cp (%s), "
                   "not '%s'", n, value_of(rd, "num_gpus"));
    if (r->gbs % (r->dp * r->mbs))
        return bad(rd, err, "column 'gbs': must be a multiple of dp*mbs (%"
                   PRId64 "), not '%s'", r->dp * r->mbs, value_of(rd, "gbs"));
    if (r->sp && r->tp == 1)
        return bad(rd, err, "column 'sp': must be 'n' when tp is 1, not 'y'");
    return 0;
}

/* A time exactly when measured_kind says there is one. */
static int check_time(const struct reader *rd, const struct run_row *r,
                      struct tpl_err *err)
{
    const char *v = value_of(rd, "measured_iter_s");
    char buf[48];
    if (r->kind == RUN_NONE && *v)
        return bad(rd, err, "column 'measured_iter_s': must be blank when "
                   "measured_kind is 'none', not '%s'", shown(v, buf, sizeof buf));
    if (r->kind != RUN_NONE && !*v)
        return bad(rd, err, "column 'measured_iter_s': must be a number > 0 "
                   "when measured_kind is '%s', not ''", run_kind_name(r->kind));
    return 0;
}

static int read_row(const struct reader *rd, struct run_row *row,
                    struct tpl_err *err)
{
    if (rd->n_field != rd->n_header)
        return bad(rd, err, "%zu fields, the header has %zu", rd->n_field,
                   rd->n_header);
    memset(row, 0, sizeof *row);
    row->line = rd->line;
    for (size_t c = 0; c < N_COLUMNS; c++) {
        const char *v = rd->pos[c] == NO_POS ? NULL : rd->field[rd->pos[c]];
        char must[112], buf[48];
        if (!v)
            continue;                   /* an optional column left out */
        if (set_field(&columns[c], v, row, must, sizeof must))
            return bad(rd, err, "column '%s': must be %s, not '%s'",
                       columns[c].name, must, shown(v, buf, sizeof buf));
    }
    if (check_shape(rd, row, err) || check_time(rd, row, err))
        return TPL_ECONFIG;
    return 0;
}

/* Row out->n, read and checked, becomes part of 'out' when its id is new. */
static int add_row(struct reader *rd, struct runs *out, size_t *cap,
                   struct tpl_err *err)
{
    size_t k;
    int rc;
    if (out->n == *cap) {
        *cap = *cap ? 2 * *cap : 256;
        out->rows = xrealloc(out->rows, *cap * sizeof *out->rows);
    }
    rc = read_row(rd, &out->rows[out->n], err);
    if (rc)
        return rc;
    k = id_add(&rd->ids, out->rows, out->n);
    if (k != NO_POS)
        return bad(rd, err, "column 'id': '%s' repeats line %d",
                   out->rows[k].id, out->rows[k].line);
    out->n++;
    return 0;
}

int runs_parse(struct runs *out, const char *name, const char *text,
               struct tpl_err *err)
{
    struct reader rd = { .name = name, .p = text };
    size_t cap = 0;
    int rc;
    out->rows = NULL;
    out->n = 0;
    if (!strncmp(rd.p, "\xef\xbb\xbf", 3))   /* UTF-8 byte-order mark */
        rd.p += 3;
    if (csv_init(&rd.csv, CSV_STRICT | CSV_STRICT_FINI))
        TPL_BUG("csv_init: out of memory");
    csv_set_space_func(&rd.csv, no_space);
    rc = read_header(&rd, err);
    out->has_stack = rc == 0 && rd.pos[column_find("stack")] != NO_POS;
    while (!rc && (rc = next_record(&rd, err)) == 1)
        rc = add_row(&rd, out, &cap, err);
    rc = rc < 0 ? rc : 0;
    csv_free(&rd.csv);
    free(rd.buf);
    free(rd.off);
    free(rd.field);
    free(rd.ids.slot);
    if (rc)
        runs_release(out);
    return rc;
}

void runs_release(struct runs *r)
{
    free(r->rows);
    r->rows = NULL;
    r->n = 0;
}

/* ---- the file ---- */

static int cannot_read(const char *path, int errnum, struct tpl_err *err)
{
    return tpl_errorf(err, TPL_EIO, "cannot read '%s': %s", path,
                      strerror(errnum ? errnum : EIO));
}

static int too_big(const char *path, struct tpl_err *err)
{
    return tpl_errorf(err, TPL_ECONFIG, "%s: larger than 256 MiB", path);
}

/* All of 'f' into a NUL-terminated *text; stops once past RUNS_MAX_BYTES. */
static size_t slurp(FILE *f, size_t cap, char **text)
{
    size_t n = 0, got;
    char *buf = xmalloc(cap);
    do {
        if (cap - n == 1) {
            cap *= 2;
            buf = xrealloc(buf, cap);
        }
        got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
    } while (got && n <= RUNS_MAX_BYTES);
    buf[n] = '\0';
    *text = buf;
    return n;
}

static int read_file(const char *path, char **text, size_t *n,
                     struct tpl_err *err)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    size_t cap = 65536;
    int failed, errnum;
    if (!f)
        return cannot_read(path, errno, err);
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode)) {
        if ((uintmax_t)st.st_size > RUNS_MAX_BYTES) {
            fclose(f);
            return too_big(path, err);
        }
        cap = (size_t)st.st_size + 2;   /* one fread to the end, one for EOF */
    }
    errno = 0;
    *n = slurp(f, cap, text);
    failed = ferror(f);
    errnum = errno;
    fclose(f);
    if (failed || *n > RUNS_MAX_BYTES) {
        free(*text);
        return failed ? cannot_read(path, errnum, err) : too_big(path, err);
    }
    return 0;
}

static int line_of(const char *text, const char *at)
{
    int line = 1;
    for (const char *p = text; (p = memchr(p, '\n', (size_t)(at - p))); p++)
        line++;
    return line;
}

int runs_load(struct runs *out, const char *path, struct tpl_err *err)
{
    char *text = NULL;
    const char *nul;
    size_t n = 0;
    int rc;
    out->rows = NULL;
    out->n = 0;
    rc = read_file(path, &text, &n, err);
    if (rc)
        return rc;
    nul = memchr(text, '\0', n);
    if (nul)
        rc = tpl_errorf(err, TPL_ECONFIG, "%s:%d: NUL byte, not text", path,
                        line_of(text, nul));
    else
        rc = runs_parse(out, path, text, err);
    free(text);
    return rc;
}
