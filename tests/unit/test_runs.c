/* tests/unit/test_runs.c: the runs-file reader (fidelity/runs.h): a small
 * file field by field, the shared runs-dev.csv, and one table of malformed
 * inputs, each made from a valid file by changing one field. */
#include "helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fidelity/runs.h"

static const char header[] =
    "id,source,confidence,system,gpu,num_gpus,gpus_per_node,model,layers,"
    "hidden,heads,kv_heads,ffn_hidden,vocab,seq_len,glu,moe_experts,moe_topk,"
    "tp,pp,dp,cp,ep,vpp,sp,recompute,zero,mbs,gbs,precision,measured_iter_s,"
    "measured_kind,measured_mem_gib,oom,assumed";
/* line 2: a derived time, no memory, nothing assumed */
static const char row1[] =
    "R-1,narayanan21,A,selene-a100,A100-SXM4-80GB,64,8,GPT-3.6B,30,3072,32,"
    "32,12288,51200,2048,n,0,0,2,1,32,1,1,1,n,full,0,16,512,fp16,3.7,derived,"
    ",n,";
/* line 3: tp 1, GQA, MoE, dp*mbs = 8, measured time and memory */
static const char row2[] =
    "R-2,bloom_prequel,B,jeanzay-a100,A100-SXM4-80GB,16,8,Test-MoE-1B,24,2048,"
    "32,8,5632,32000,4096,y,8,2,1,2,8,1,2,2,n,selective,1,1,64,bf16,12.5,"
    "measured,61.5,n,vocab;zero";

/* Append 'line' to 'out', its field 'k' replaced by 'v' (dropped when v is
 * NULL; k < 0 changes nothing), then a line end. */
static void put_line(char *out, size_t n, const char *line, int k,
                     const char *v, const char *eol)
{
    const char *s = line;
    bool first = true;
    for (int i = 0;; i++) {
        const char *comma = strchr(s, ',');
        int len = comma ? (int)(comma - s) : (int)strlen(s);
        size_t at = strlen(out);
        if (i != k || v)
            snprintf(out + at, n - at, "%s%.*s", first ? "" : ",",
                     i == k ? (int)strlen(v) : len, i == k ? v : s);
        first = first && i == k && !v;
        if (!comma)
            break;
        s = comma + 1;
    }
    strncat(out, eol, n - strlen(out) - 1);
}

static int column_index(const char *col)
{
    const char *s = header;
    size_t n = strlen(col);
    for (int i = 0; s; i++, s = strchr(s, ',') ? strchr(s, ',') + 1 : NULL)
        if (!strncmp(s, col, n) && (s[n] == ',' || s[n] == '\0'))
            return i;
    cr_assert_fail("no column '%s' in the template", col);
    return -1;
}

enum { NONE, HDR, ROW };                /* where a case changes the template */
enum { CRLF = 1, NUL = 2 };             /* NUL: the first '@' becomes a NUL */

/* The template with one field of the header or of line 3 changed. */
static void csv_with(char *out, size_t n, int where, const char *col,
                     const char *v, int flags)
{
    int k = where == NONE ? -1 : column_index(col);
    const char *eol = flags & CRLF ? "\r\n" : "\n";
    out[0] = '\0';
    put_line(out, n, header, where == HDR ? k : -1, v, eol);
    put_line(out, n, row1, -1, NULL, eol);
    put_line(out, n, row2, where == ROW ? k : -1, v, eol);
}

/* text[0..len) written to a temporary file, then runs_load; 'path' gets its
 * name (the file is gone again). */
static int load_bytes(const char *text, size_t len, struct runs *out,
                      char *path, struct tpl_err *err)
{
    int fd, rc;
    strcpy(path, "/tmp/trainplan-runs-XXXXXX");
    fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, text, len), (ssize_t)len);
    close(fd);
    rc = runs_load(out, path, err);
    unlink(path);
    return rc;
}

Test(runs, small_file_field_by_field)
{
    char text[2048];
    struct runs r;
    struct tpl_err err = { 0 };
    const struct run_row *a, *b;
    csv_with(text, sizeof text, NONE, NULL, NULL, 0);
    cr_assert_eq(runs_parse(&r, "t.csv", text, &err), 0, "%s", err.msg);
    cr_assert_eq(r.n, 2);
    a = &r.rows[0];
    b = &r.rows[1];
    cr_assert_eq(a->line, 2);
    cr_assert_str_eq(a->id, "R-1");
    cr_assert_str_eq(a->source, "narayanan21");
    cr_assert_str_eq(a->confidence, "A");
    cr_assert_str_eq(a->system, "selene-a100");
    cr_assert_str_eq(a->gpu, "A100-SXM4-80GB");
    cr_assert_str_eq(a->model, "GPT-3.6B");
    cr_assert(a->num_gpus == 64 && a->gpus_per_node == 8);
    cr_assert(a->layers == 30 && a->hidden == 3072 && a->heads == 32 &&
              a->kv_heads == 32 && a->ffn_hidden == 12288 &&
              a->vocab == 51200 && a->seq == 2048);
    cr_assert(!a->glu && a->moe_experts == 0 && a->moe_topk == 0);
    cr_assert(a->tp == 2 && a->pp == 1 && a->dp == 32 && a->cp == 1 &&
              a->ep == 1 && a->vpp == 1 && !a->sp);
    cr_assert_eq(a->recompute, PLAN_RECOMPUTE_FULL);
    cr_assert(a->zero == 0 && a->mbs == 16 && a->gbs == 512);
    cr_assert_eq(a->precision, JOB_PREC_FP16);
    cr_assert_eq(a->measured_iter_s, 3.7);
    cr_assert_eq(a->kind, RUN_DERIVED);
    cr_assert_lt(a->measured_mem_gib, 0);
    cr_assert(!a->oom);
    cr_assert_str_eq(a->assumed, "");

    cr_assert_eq(b->line, 3);
    cr_assert_str_eq(b->id, "R-2");
    cr_assert_str_eq(b->confidence, "B");
    cr_assert(b->kv_heads == 8 && b->seq == 4096 && b->glu);
    cr_assert(b->moe_experts == 8 && b->moe_topk == 2);
    cr_assert(b->tp == 1 && b->pp == 2 && b->dp == 8 && b->ep == 2 &&
              b->vpp == 2);
    cr_assert_eq(b->recompute, PLAN_RECOMPUTE_SELECTIVE);
    cr_assert_eq(b->zero, 1);
    cr_assert_eq(b->precision, JOB_PREC_BF16);
    cr_assert_eq(b->measured_iter_s, 12.5);
    cr_assert_eq(b->kind, RUN_MEASURED);
    cr_assert_eq(b->measured_mem_gib, 61.5);
    cr_assert_str_eq(b->assumed, "vocab;zero");
    runs_release(&r);
    cr_assert(r.rows == NULL && r.n == 0);
}

/* Columns in another order, an unknown column, blank lines, no final line
 * end, and a header with no rows. */
Test(runs, any_column_order_and_blank_lines)
{
    char text[4096];
    struct runs r;
    struct tpl_err err = { 0 };
    snprintf(text, sizeof text,
             "\n"
             "note,assumed,oom,measured_mem_gib,measured_kind,measured_iter_s,"
             "precision,gbs,mbs,zero,recompute,sp,vpp,ep,cp,dp,pp,tp,moe_topk,"
             "moe_experts,glu,seq_len,vocab,ffn_hidden,kv_heads,heads,hidden,"
             "layers,model,gpus_per_node,num_gpus,gpu,system,confidence,source,"
             "id\r\n"
             "\r\n"
             "x,,y,,none,,fp8,16,2,3,none,y,1,1,1,2,1,4,0,0,n,1024,1000,256,4,"
             "4,64,2,Tiny,8,8,H100-SXM5-80GB,dgx-h100,C,mlperf_gpt3,T-1\n\n\n"
             "x,,n,40,measured,0.25,bf16,8,1,0,full,n,1,1,1,8,1,1,0,0,n,1024,"
             "1000,256,4,4,64,2,Tiny,8,8,H100-SXM5-80GB,dgx-h100,C,"
             "mlperf_gpt3,T-2");
    cr_assert_eq(runs_parse(&r, "t.csv", text, &err), 0, "%s", err.msg);
    cr_assert_eq(r.n, 2);
    cr_assert_eq(r.rows[0].line, 4);
    cr_assert_str_eq(r.rows[0].id, "T-1");
    cr_assert(r.rows[0].oom && r.rows[0].sp && r.rows[0].tp == 4);
    cr_assert_eq(r.rows[0].kind, RUN_NONE);
    cr_assert_eq(r.rows[0].measured_iter_s, 0);
    cr_assert_eq(r.rows[0].zero, 3);
    cr_assert_eq(r.rows[1].line, 7);
    cr_assert_str_eq(r.rows[1].id, "T-2");
    cr_assert_eq(r.rows[1].measured_mem_gib, 40);
    runs_release(&r);

    cr_assert_eq(runs_parse(&r, "t.csv", header, &err), 0, "%s", err.msg);
    cr_assert(r.n == 0 && r.rows == NULL);
    cr_assert_eq(runs_parse(&r, "t.csv", "\n\r\n", &err), TPL_ECONFIG);
    cr_assert_str_eq(err.msg, "t.csv: no header line (empty file)");
    cr_assert(r.n == 0 && r.rows == NULL);
}

struct bad_case {
    int where;                  /* NONE, HDR or ROW (line 3) */
    const char *col;            /* the field changed */
    const char *value;          /* its new text; NULL: the field dropped */
    int flags;                  /* CRLF, NUL */
    const char *msg;            /* after "NAME:"; NULL: it must load */
};

#define IT "3: column 'measured_iter_s': "
#define MUST_INT1 "must be an integer >= 1, not "

Test(runs, malformed_inputs_name_line_and_column)
{
    static const struct bad_case cases[] = {
        { NONE, NULL, NULL, 0, NULL },
        { NONE, NULL, NULL, CRLF, NULL },
        { HDR, "tp", "tpx", 0, "1: missing column 'tp'" },
        { HDR, "assumed", NULL, 0, "1: missing column 'assumed'" },
        { HDR, "assumed", "tp", 0, "1: column 'tp' appears twice" },
        { HDR, "assumed", "assumed,note", 0, "2: 35 fields, the header has 36" },
        { ROW, "tp", "1,2", 0, "3: 36 fields, the header has 35" },
        { ROW, "assumed", "zero,", 0, "3: 36 fields, the header has 35" },
        { ROW, "assumed", NULL, 0, "3: 34 fields, the header has 35" },
        { ROW, "tp", "x", 0, "3: column 'tp': " MUST_INT1 "'x'" },
        { ROW, "tp", "x", CRLF, "3: column 'tp': " MUST_INT1 "'x'" },
        { ROW, "tp", "0", 0, "3: column 'tp': " MUST_INT1 "'0'" },
        { ROW, "pp", "-1", 0, "3: column 'pp': " MUST_INT1 "'-1'" },
        { ROW, "dp", "+8", 0, "3: column 'dp': " MUST_INT1 "'+8'" },
        { ROW, "hidden", " 2048", 0, "3: column 'hidden': " MUST_INT1 "' 2048'" },
        { ROW, "mbs", "1.0", 0, "3: column 'mbs': " MUST_INT1 "'1.0'" },
        { ROW, "layers", "", 0, "3: column 'layers': " MUST_INT1 "''" },
        { ROW, "moe_topk", "-2", 0,
          "3: column 'moe_topk': must be an integer >= 0, not '-2'" },
        { ROW, "seq_len", "2097152", 0,
          "3: column 'seq_len': must be an integer <= 1048576, not '2097152'" },
        { ROW, "vocab", "99999999999999999999", 0, "3: column 'vocab': must be "
          "an integer <= 4194304, not '99999999999999999999'" },
        { ROW, "num_gpus", "2097152", 0,
          "3: column 'num_gpus': must be an integer <= 1048576, not '2097152'" },
        { ROW, "source", "", 0,
          "3: column 'source': must be 1 to 31 printable characters, not ''" },
        { ROW, "system", "abcdefghijklmnopqrstuvwxyz-12345", 0, "3: column "
          "'system': must be 1 to 31 printable characters, not "
          "'abcdefghijklmnopqrstuvwxyz-12345'" },
        { ROW, "model", "GPT\t1B", 0,
          "3: column 'model': must be 1 to 95 printable characters, not 'GPT\t1B'" },
        { ROW, "glu", "yes", 0, "3: column 'glu': must be 'y' or 'n', not 'yes'" },
        { ROW, "oom", "N", 0, "3: column 'oom': must be 'y' or 'n', not 'N'" },
        { ROW, "recompute", "partial", 0, "3: column 'recompute': must be "
          "'none', 'selective' or 'full', not 'partial'" },
        { ROW, "recompute", "sel", 0, "3: column 'recompute': must be "
          "'none', 'selective' or 'full', not 'sel'" },
        { ROW, "zero", "2", 0, "3: column 'zero': must be 0, 1 or 3, not '2'" },
        { ROW, "precision", "fp32", 0, "3: column 'precision': must be "
          "'bf16', 'fp16' or 'fp8', not 'fp32'" },
        { ROW, "confidence", "D", 0,
          "3: column 'confidence': must be 'A', 'B' or 'C', not 'D'" },
        { ROW, "measured_kind", "guess", 0, "3: column 'measured_kind': must "
          "be 'measured', 'derived' or 'none', not 'guess'" },
        { ROW, "measured_iter_s", "abc", 0, IT "must be a number > 0 or blank, not 'abc'" },
        { ROW, "measured_iter_s", "0", 0, IT "must be a number > 0 or blank, not '0'" },
        { ROW, "measured_iter_s", "-1", 0, IT "must be a number > 0 or blank, not '-1'" },
        { ROW, "measured_iter_s", "nan", 0, IT "must be a number > 0 or blank, not 'nan'" },
        { ROW, "measured_iter_s", "inf", 0, IT "must be a number > 0 or blank, not 'inf'" },
        { ROW, "measured_iter_s", "1e999", 0, IT "must be a number > 0 or blank, not '1e999'" },
        { ROW, "measured_iter_s", "0x10", 0, IT "must be a number > 0 or blank, not '0x10'" },
        { ROW, "measured_iter_s", "1.5s", 0, IT "must be a number > 0 or blank, not '1.5s'" },
        { ROW, "measured_iter_s", "", 0, IT "must be a number > 0 when "
          "measured_kind is 'measured', not ''" },
        { ROW, "measured_kind", "none", 0, IT "must be blank when "
          "measured_kind is 'none', not '12.5'" },
        { ROW, "measured_mem_gib", "0", 0, "3: column 'measured_mem_gib': "
          "must be a number > 0 or blank, not '0'" },
        { ROW, "id", "R-1", 0, "3: column 'id': 'R-1' repeats line 2" },
        { ROW, "id", "R 2", 0, "3: column 'id': must be 1 to 63 characters "
          "of [A-Za-z0-9._+-], not 'R 2'" },
        { ROW, "id", "", 0, "3: column 'id': must be 1 to 63 characters "
          "of [A-Za-z0-9._+-], not ''" },
        { ROW, "assumed", "Vocab", 0, "3: column 'assumed': must be blank or "
          "[a-z_] words joined by ';' (at most 159 characters), not 'Vocab'" },
        { ROW, "assumed", "vocab;;zero", 0, "3: column 'assumed': must be "
          "blank or [a-z_] words joined by ';' (at most 159 characters), "
          "not 'vocab;;zero'" },
        { ROW, "num_gpus", "15", 0,
          "3: column 'num_gpus': must equal tp*pp*dp*cp (16), not '15'" },
        { ROW, "tp", "16777216", 0, "3: column 'num_gpus': must equal "
          "tp*pp*dp*cp (268435456), not '16'" },
        { ROW, "gbs", "60", 0,
          "3: column 'gbs': must be a multiple of dp*mbs (8), not '60'" },
        { ROW, "sp", "y", 0, "3: column 'sp': must be 'n' when tp is 1, not 'y'" },
        { ROW, "kv_heads", "5", 0,
          "3: column 'kv_heads': must divide heads (32), not '5'" },
        { ROW, "assumed", "Bad", CRLF, "3: column 'assumed': must be blank or "
          "[a-z_] words joined by ';' (at most 159 characters), not 'Bad'" },
        { ROW, "model", "Test@MoE", NUL, "3: NUL byte, not text" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct bad_case *c = &cases[i];
        char text[2048], name[64] = "t.csv", expect[400];
        struct runs r = { (struct run_row *)1, 99, false };
        struct tpl_err err = { 0 };
        int rc;
        csv_with(text, sizeof text, c->where, c->col, c->value, c->flags);
        if (c->flags & NUL) {
            size_t len = strlen(text);
            *strchr(text, '@') = '\0';
            rc = load_bytes(text, len, &r, name, &err);
        } else {
            rc = runs_parse(&r, name, text, &err);
        }
        if (!c->msg) {
            cr_assert_eq(rc, 0, "case %zu: %s", i, err.msg);
            cr_assert_eq(r.n, 2, "case %zu", i);
            runs_release(&r);
            continue;
        }
        snprintf(expect, sizeof expect, "%s:%s", name, c->msg);
        cr_assert_eq(rc, TPL_ECONFIG, "case %zu: %d", i, rc);
        cr_assert_eq(err.code, TPL_ECONFIG, "case %zu", i);
        cr_assert_str_eq(err.msg, expect, "case %zu", i);
        cr_assert(r.rows == NULL && r.n == 0, "case %zu: rows left", i);
    }
}

/* Text fields are stored whole, or refused: never cut. */
Test(runs, longest_values_fit_and_one_more_is_refused)
{
    char text[2048], words[170], id[70], expect[400];
    struct runs r;
    struct tpl_err err = { 0 };
    memset(words, 'a', 159);
    words[159] = '\0';
    csv_with(text, sizeof text, ROW, "assumed", words, 0);
    cr_assert_eq(runs_parse(&r, "t.csv", text, &err), 0, "%s", err.msg);
    cr_assert_str_eq(r.rows[1].assumed, words);
    runs_release(&r);
    strcat(words, "a");
    csv_with(text, sizeof text, ROW, "assumed", words, 0);
    cr_assert_eq(runs_parse(&r, "t.csv", text, &err), TPL_ECONFIG);
    snprintf(expect, sizeof expect, "t.csv:3: column 'assumed': must be blank "
             "or [a-z_] words joined by ';' (at most 159 characters), not "
             "'%.44s...'", words);
    cr_assert_str_eq(err.msg, expect);
    memset(id, 'x', 63);
    id[63] = '\0';
    csv_with(text, sizeof text, ROW, "id", id, 0);
    cr_assert_eq(runs_parse(&r, "t.csv", text, &err), 0, "%s", err.msg);
    cr_assert_str_eq(r.rows[1].id, id);
    runs_release(&r);
    strcat(id, "x");
    csv_with(text, sizeof text, ROW, "id", id, 0);
    cr_assert_eq(runs_parse(&r, "t.csv", text, &err), TPL_ECONFIG);
}

/* Rows grow without a limit, and a repeated id is found far apart. */
Test(runs, many_rows_and_far_repeat)
{
    size_t n = 5000, cap = n * (sizeof row1 + 8) + sizeof header + 8;
    char *text = malloc(cap), *p = text;
    struct runs r;
    struct tpl_err err = { 0 };
    p += sprintf(p, "%s\n", header);
    for (size_t i = 0; i < n; i++)
        p += sprintf(p, "R%zu%s\n", i, strchr(row1, ','));
    cr_assert_eq(runs_parse(&r, "t.csv", text, &err), 0, "%s", err.msg);
    cr_assert_eq(r.n, n);
    cr_assert_str_eq(r.rows[n - 1].id, "R4999");
    cr_assert_eq(r.rows[n - 1].line, 5001);
    runs_release(&r);
    sprintf(p, "R17%s\n", strchr(row1, ','));
    cr_assert_eq(runs_parse(&r, "t.csv", text, &err), TPL_ECONFIG);
    cr_assert_str_eq(err.msg, "t.csv:5002: column 'id': 'R17' repeats line 19");
    free(text);
}

Test(runs, unreadable_or_too_big_files)
{
    char path[] = "/tmp/trainplan-runs-XXXXXX", expect[400];
    struct runs r = { (struct run_row *)1, 99, false };
    struct tpl_err err = { 0 };
    int fd;
    cr_assert_eq(runs_load(&r, "/nonexistent/runs.csv", &err), TPL_EIO);
    cr_assert_str_eq(err.msg, "cannot read '/nonexistent/runs.csv': "
                     "No such file or directory");
    cr_assert(r.rows == NULL && r.n == 0);
    cr_assert_eq(runs_load(&r, "/tmp", &err), TPL_EIO);
    cr_assert_str_eq(err.msg, "cannot read '/tmp': Is a directory");
    fd = mkstemp(path);                 /* sparse: no 257 MiB written */
    cr_assert_geq(fd, 0);
    cr_assert_eq(ftruncate(fd, (off_t)257 << 20), 0);
    close(fd);
    cr_assert_eq(runs_load(&r, path, &err), TPL_ECONFIG);
    snprintf(expect, sizeof expect, "%s: larger than 256 MiB", path);
    cr_assert_str_eq(err.msg, expect);
    unlink(path);
}

Test(runs, kind_names)
{
    cr_assert_str_eq(run_kind_name(RUN_MEASURED), "measured");
    cr_assert_str_eq(run_kind_name(RUN_DERIVED), "derived");
    cr_assert_str_eq(run_kind_name(RUN_NONE), "none");
}

static char *read_whole(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0
        && (buf = malloc((size_t)n + 1)) != NULL) {
        *len = fread(buf, 1, (size_t)n, f);
        buf[*len] = '\0';
    }
    fclose(f);
    return buf;
}

/* The `source` row of RUNS.md's column table lists every known source as
 * backticked words: "| source | ... | `narayanan21 vtrain ...` |". */
static bool source_documented(const char *runs_md, const char *source)
{
    const char *row = strstr(runs_md, "\n| source |");
    const char *end, *p;
    size_t n = strlen(source);
    if (!row)
        return false;
    end = strchr(row + 1, '\n');
    for (p = strstr(row, source); p && (!end || p < end); p = strstr(p + 1, source)) {
        char before = p[-1], after = p[n];
        if ((before == ' ' || before == '`') && (after == ' ' || after == '`'))
            return true;
    }
    return false;
}

/* ../shared/data/runs-dev.csv (RUNS.md), where this checkout has it. The
 * file grows between rounds, so this checks properties, not a row count:
 * every row parses (runs_load is strict), ids are unique, every source is
 * one RUNS.md documents, the first row is where the file puts it, and rows
 * without a time carry memory or OOM data (RUNS.md: "Rows without a time
 * are kept only if they carry memory or OOM data"). */
Test(runs, shared_dev_file_loads)
{
    const char *shared = getenv("TRAINPLAN_SHARED");
    char path[4096], md_path[4096];
    struct runs r;
    struct tpl_err err = { 0 };
    char *md;
    size_t md_len;
    snprintf(path, sizeof path, "%s/data/runs-dev.csv",
             shared && *shared ? shared : "../shared");
    snprintf(md_path, sizeof md_path, "%s/data/RUNS.md",
             shared && *shared ? shared : "../shared");
    if (access(path, F_OK) != 0 || access(md_path, F_OK) != 0)
        skip_without_shared("%s or RUNS.md absent", path);
    cr_assert_eq(runs_load(&r, path, &err), 0, "%s", err.msg);
    md = read_whole(md_path, &md_len);
    cr_assert_not_null(md);
    cr_assert_gt(r.n, 1000);
    for (size_t i = 0; i < r.n; i++) {
        const struct run_row *row = &r.rows[i];
        cr_assert(source_documented(md, row->source), "%s: source '%s' not in RUNS.md",
                  row->id, row->source);
        if (row->kind == RUN_NONE)
            cr_assert(row->oom || row->measured_mem_gib > 0, "%s: nothing measured", row->id);
        for (size_t j = i + 1; j < r.n; j++)
            cr_assert_str_neq(row->id, r.rows[j].id, "lines %d and %d", row->line, r.rows[j].line);
    }
    cr_assert_str_eq(r.rows[0].id, "NAR21-T1-01");
    cr_assert_eq(r.rows[0].line, 2);
    free(md);
    runs_release(&r);
}

/* The optional last column 'stack' (RUNS.md "Stacks"): read when there,
 * "" without it (has_stack false), and a name outside the list refused
 * with its line and column. */
Test(runs, optional_stack_column)
{
    char text[2048];
    struct runs r;
    struct tpl_err err = { 0 };
    snprintf(text, sizeof text, "%s\n%s\n", header, row1);
    cr_assert_eq(runs_parse(&r, "t", text, &err), 0, "%s", err.msg);
    cr_assert(!r.has_stack);
    cr_assert_str_eq(r.rows[0].stack, "");
    runs_release(&r);
    snprintf(text, sizeof text, "%s,stack\n%s,megatron-lm-2021\n%s,other\n",
             header, row1, row2);
    cr_assert_eq(runs_parse(&r, "t", text, &err), 0, "%s", err.msg);
    cr_assert(r.has_stack);
    cr_assert_str_eq(r.rows[0].stack, "megatron-lm-2021");
    cr_assert_str_eq(r.rows[1].stack, "other");
    runs_release(&r);
    snprintf(text, sizeof text, "%s,stack\n%s,megatron-lm-2021\n%s,deepspeed\n",
             header, row1, row2);
    cr_assert_eq(runs_parse(&r, "t", text, &err), TPL_ECONFIG);
    cr_assert_str_eq(err.msg, "t:3: column 'stack': must be megatron-lm-2021, "
                     "megatron-deepspeed, megatron-core, torchtitan, "
                     "nemo-automodel or other, not 'deepspeed'");
}

/* Runs files as spreadsheets write them (RFC 4180): a UTF-8 byte-order
 * mark, CRLF, quoted fields holding commas, doubled quotes and a line
 * break; the line of a record is where it ends. An unterminated quote is
 * an error naming the line. */
Test(runs, rfc4180_as_spreadsheets_write)
{
    static const char text[] =
        "\xef\xbb\xbf" "id,source,confidence,system,gpu,num_gpus,gpus_per_node,"
        "model,layers,hidden,heads,kv_heads,ffn_hidden,vocab,seq_len,glu,"
        "moe_experts,moe_topk,tp,pp,dp,cp,ep,vpp,sp,recompute,zero,mbs,gbs,"
        "precision,measured_iter_s,measured_kind,measured_mem_gib,oom,assumed,"
        "note\r\n"
        "\"T-1\",mlperf_gpt3,C,dgx-h100,H100-SXM5-80GB,8,8,Tiny,2,64,4,4,256,"
        "1000,1024,n,0,0,4,1,2,1,1,1,y,none,1,2,16,fp8,,none,,y,,"
        "\"tp, pp: a \"\"quoted\"\"\r\nnote\"\r\n";
    struct runs r;
    struct tpl_err err = { 0 };
    cr_assert_eq(runs_parse(&r, "t.csv", text, &err), 0, "%s", err.msg);
    cr_assert_eq(r.n, 1);
    cr_assert_str_eq(r.rows[0].id, "T-1");
    cr_assert_eq(r.rows[0].line, 3);
    cr_assert_eq(r.rows[0].tp, 4);
    runs_release(&r);
    char broken[sizeof text];
    snprintf(broken, sizeof broken, "%.*s\"T-1,x\r\n",
             (int)(strchr(text, '\n') + 1 - text), text);   /* the header */
    cr_assert_eq(runs_parse(&r, "t.csv", broken, &err), TPL_ECONFIG);
    cr_assert(strstr(err.msg, "t.csv:2: not CSV (RFC 4180)"), "%s", err.msg);
}
