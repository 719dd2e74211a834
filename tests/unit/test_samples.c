/* tests/unit/test_samples.c: the kernel-sample reader (calibrate/samples.h):
 * values land where they belong, lines and headers of any length, and every
 * malformed file refused with file, line and column. */
#include "helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate/samples.h"

static int parse(const char *text, enum cal_csv kind, struct cal_set *out,
                 struct tpl_err *err)
{
    FILE *fp = fmemopen((void *)text, strlen(text), "r");
    int rc;
    cr_assert_not_null(fp);
    rc = cal_csv_read(fp, "s.csv", kind, out, err);
    fclose(fp);
    return rc;
}

Test(samples, operator_values_and_defaults)
{
    struct cal_set s;
    struct tpl_err err = { 0 };
    cr_assert_eq(parse("b,l,dim,F_dur(us),B_dur(us)\r\n\r\n2.0,1024,5632.0,54.8,0\r\n",
                       CAL_CSV_OPERATOR, &s, &err), 0, "%s", err.msg);
    cr_assert_eq(s.n, 1);
    cr_assert_eq(s.s[0].mp, 1.0);           /* absent: 1 */
    cr_assert_eq(s.s[0].h, 1.0);
    cr_assert_eq(s.s[0].b, 2.0);
    cr_assert_eq(s.s[0].dim, 5632.0);
    assert_rel(s.s[0].t[0], 54.8e-6, 1e-12);
    cr_assert_eq(s.s[0].t[1], 0.0);         /* 0: not sampled */
    free(s.s);
}

Test(samples, nccl_values)
{
    struct cal_set s;
    struct tpl_err err = { 0 };
    cr_assert_eq(parse("shape,nodes,GPUsPerNode,dur(us)\n20971520.0,2.0,4,18449.6\n",
                       CAL_CSV_NCCL, &s, &err), 0, "%s", err.msg);
    cr_assert_eq(s.n, 1);
    cr_assert_eq(s.s[0].shape, 20971520.0);
    cr_assert_eq(s.s[0].nodes, 2.0);
    cr_assert_eq(s.s[0].gpn, 4.0);
    assert_rel(s.s[0].t[0], 18449.6e-6, 1e-12);
    free(s.s);
}

/* More than 16 columns and 1024 bytes a line: read whole, not cut. */
Test(samples, long_lines_and_many_columns)
{
    char *text = malloc(20000), *p = text;
    struct cal_set s;
    struct tpl_err err = { 0 };
    for (int i = 0; i < 40; i++)
        p += sprintf(p, "extra_column_with_a_long_name_%d,", i);
    p += sprintf(p, "dim,F_dur(us)\n");
    for (int i = 0; i < 40; i++)
        p += sprintf(p, "%d.000000000000000000000000000,", i);
    sprintf(p, "4096,%0900d.5\n", 7);
    cr_assert_gt(strlen(text), 2048);
    cr_assert_eq(parse(text, CAL_CSV_OPERATOR, &s, &err), 0, "%s", err.msg);
    cr_assert_eq(s.n, 1);
    cr_assert_eq(s.s[0].dim, 4096.0);
    assert_rel(s.s[0].t[0], 7.5e-6, 1e-12);
    free(s.s);
    free(text);
}

static const struct bad_case {
    enum cal_csv kind;
    const char *text, *msg;
} bad_cases[] = {
    { CAL_CSV_OPERATOR, "", "s.csv: no header line (empty file)" },
    { CAL_CSV_OPERATOR, "\n\n", "s.csv: no header line (empty file)" },
    { CAL_CSV_OPERATOR, "b,l,dim,F_dur(us)\n2,1024,abc,5\n",
      "s.csv:2: column 'dim': must be a number > 0, not 'abc'" },
    { CAL_CSV_OPERATOR, "b,l,dim,F_dur(us)\n2,1024,4096x,5\n",
      "s.csv:2: column 'dim': must be a number > 0, not '4096x'" },
    { CAL_CSV_OPERATOR, "b,l,dim,F_dur(us)\n2,,4096,5\n",
      "s.csv:2: column 'l': must be a number > 0, not ''" },
    { CAL_CSV_OPERATOR, "b,l,dim,F_dur(us)\n2,1024,0,5\n",
      "s.csv:2: column 'dim': must be a number > 0, not '0'" },
    { CAL_CSV_OPERATOR, "b,l,dim,F_dur(us)\n2,1024,4096,-5\n",
      "s.csv:2: column 'F_dur(us)': must be a number >= 0, not '-5'" },
    { CAL_CSV_OPERATOR, "b,l,dim,F_dur(us)\n2,1024,4096,nan\n",
      "s.csv:2: column 'F_dur(us)': must be a number >= 0, not 'nan'" },
    { CAL_CSV_OPERATOR, "b,l,dim,F_dur(us)\n2,1024,4096,1e999\n",
      "s.csv:2: column 'F_dur(us)': must be a number >= 0, not '1e999'" },
    { CAL_CSV_OPERATOR, "b,l,dim,F_dur(us)\n2,1024,4096, 5\n",
      "s.csv:2: column 'F_dur(us)': must be a number >= 0, not ' 5'" },
    { CAL_CSV_OPERATOR, "b,l,dim,F_dur(us)\n2,1024,4096,5\n2,1024,4096\n",
      "s.csv:3: 3 fields, the header has 4" },
    { CAL_CSV_OPERATOR, "b,l,dim,F_dur(us)\n2,1024,4096,5,\n",
      "s.csv:2: 5 fields, the header has 4" },
    { CAL_CSV_OPERATOR, "b,l,dim,dim,F_dur(us)\n",
      "s.csv:1: column 'dim' appears twice" },
    { CAL_CSV_NCCL, "nodes,GPUsPerNode,dur(us)\n1,2,679.4\n",
      "s.csv:1: missing column 'shape'" },
    { CAL_CSV_NCCL, "shape,nodes,dur(us)\n1,2,679.4\n",
      "s.csv:1: missing column 'GPUsPerNode'" },
    { CAL_CSV_NCCL, "shape,nodes,GPUsPerNode,dur(us)\n1024,1.5,2,679.4\n",
      "s.csv:2: column 'nodes': must be an integer in [1, 1048576], not '1.5'" },
    { CAL_CSV_NCCL, "shape,nodes,GPUsPerNode,dur(us)\n1024,1,1e300,679.4\n",
      "s.csv:2: column 'GPUsPerNode': must be an integer in [1, 1048576], not '1e300'" },
};

Test(samples, malformed_files_name_line_and_column)
{
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        struct cal_set s = { (void *)1, 7 };
        struct tpl_err err = { 0 };
        cr_assert_eq(parse(bad_cases[i].text, bad_cases[i].kind, &s, &err),
                     TPL_ECONFIG, "case %zu", i);
        cr_assert_str_eq(err.msg, bad_cases[i].msg, "case %zu", i);
        cr_assert_null(s.s, "case %zu", i);
        cr_assert_eq(s.n, 0, "case %zu", i);
    }
}

Test(samples, nul_byte_is_refused)
{
    static const char text[] = "b,l,dim\n2,1\0x24,4096\n";
    FILE *fp = fmemopen((void *)text, sizeof text - 1, "r");
    struct cal_set s;
    struct tpl_err err = { 0 };
    cr_assert_eq(cal_csv_read(fp, "s.csv", CAL_CSV_OPERATOR, &s, &err), TPL_ECONFIG);
    cr_assert_str_eq(err.msg, "s.csv:2: NUL byte, not text");
    fclose(fp);
}
