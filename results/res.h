/* results/res.h: writers for what the predictor and the search return:
 * tables for people, CSV for spreadsheets, JSON for programs. Writers take
 * an open FILE and never print anywhere else. */
#ifndef RES_H
#define RES_H

#include <jansson.h>
#include <stdio.h>

#include "predictor/pred.h"

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

/* Dump a JSON value with the project's settings (sorted keys off, 2-space
 * indent, 10 significant digits), newline-terminated. */
int res_json_dump(FILE *fp, json_t *v, struct tpl_err *err);

#define RES_GIB 1073741824.0

#endif /* RES_H */
