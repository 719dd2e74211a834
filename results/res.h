/* results/res.h: writers for what the predictor and the search return:
 * tables for people, CSV for spreadsheets, JSON for programs. Writers take
 * an open FILE and never print anywhere else. */
#ifndef RES_H
#define RES_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "predictor/pred.h"
#include "search/search.h"

enum res_format { RES_FMT_TABLE, RES_FMT_CSV, RES_FMT_JSON, RES_FMT_COUNT };

const char *res_format_name(enum res_format f);
int res_format_parse(const char *s, enum res_format *out);   /* 0 or -1 */

/* Why a plan is not feasible ("" when it is): the broken rule, or the
 * memory shortfall in GiB. */
void res_plan_reason(const struct pred_ctx *c, const struct plan *p,
                     const struct pred_result *r, char *buf, size_t n);

/* The JSON object of one predicted plan (keys in README.md "JSON output"):
 * a new reference, owned by the caller. */
json_t *res_plan_json(const struct pred_ctx *c, const struct plan *p,
                      const struct pred_result *r);

/* The whole `predict` report. TPL_EIO if the stream fails. */
int res_predict_write(FILE *fp, enum res_format fmt, const struct pred_ctx *c,
                      const struct plan *p, const struct pred_result *r,
                      struct tpl_err *err);

/* CSV: the header (with a leading "rank" column when ranked) and one row
 * per plan (rank 0: no rank column). */
void res_csv_header(FILE *fp, bool ranked);
void res_csv_row(FILE *fp, int rank, const struct pred_ctx *c,
                 const struct plan *p, const struct pred_result *r);

/* Dump a JSON value with the project's settings (insertion order, 2-space
 * indent, 10 significant digits), newline-terminated, and release it. */
int res_json_emit(FILE *fp, json_t *v, struct tpl_err *err);
/* TPL_EIO if any write to fp failed, else 0. */
int res_stream_done(FILE *fp, struct tpl_err *err);

/* The report of a search: per GPU count the ranked plans (each predicted in
 * full again for the report), counts of what was rejected and why, or why
 * nothing fits. 'work' adds the figures that depend on the run and its
 * thread count (evaluated, pruned by the time bound, seconds); without it
 * the output is byte-identical for any thread count. */
int res_search_write(FILE *fp, enum res_format fmt, const struct pred_ctx *c,
                     const struct search_result *s, bool work,
                     struct tpl_err *err);

#define RES_GIB 1073741824.0

#endif /* RES_H */
