/* results/writer.h: the writer kit every report shares: the output formats
 * and their names, why a plan is not feasible, a plan's JSON object and CSV
 * row, and the end of a stream. Writers take an open FILE and never print
 * anywhere else; report.h holds the table of writers by report and format. */
#ifndef RES_WRITER_H
#define RES_WRITER_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "predictor/pred.h"

enum res_format { RES_FMT_TABLE, RES_FMT_CSV, RES_FMT_JSON, RES_FMT_COUNT };

const char *res_format_name(enum res_format f);
int res_format_parse(const char *s, enum res_format *out);   /* 0 or -1 */
/* The format names for usage and error texts, from the one table of names:
 * ("|", "|") gives "table|csv|json", (", ", " or ") "table, csv or json".
 * Returns buf. */
const char *res_format_list(const char *sep, const char *last, char *buf,
                            size_t size);
/* Any n names joined the same way (into buf, truncated to size). */
const char *res_names_join(const char *const *names, int n, const char *sep,
                           const char *last, char *buf, size_t size);

/* "76.60 GiB usable", or with a headroom "76.60 GiB usable less 15.92 GiB
 * headroom": what a plan's memory total is held against. Returns buf. */
const char *res_usable_text(const struct pred_mem *m, char *buf, size_t n);
/* Why a plan is not feasible ("" when it is): the broken rule, or the
 * memory shortfall in GiB. */
void res_plan_reason(const struct pred_ctx *c, const struct plan *p,
                     const struct pred_result *r, char *buf, size_t n);

/* Model FLOPs per trained token (forward and backward, no recompute):
 * r->model_flops over the iteration's gbs x seq tokens. */
double res_flops_per_token(const struct pred_ctx *c, const struct pred_result *r);
/* NeMo's auto-configurator reports, per candidate plan, "Nodes", "GPUs per
 * Node", "Samples per Second" and "Model TFLOPS / GPU" beside TP, PP, CP,
 * EP, MBS, VP and GBS (NVIDIA/NeMo, nemo/collections/llm/tools/
 * auto_configurator/core/calculate_performance.py, get_results'
 * result_columns); the CSV row and the JSON object carry the same figures
 * as nodes, gpus_per_node, samples_per_s and model_tflops_per_gpu. */
/* Nodes a job of 'gpus' GPUs occupies (the last one may be partly used). */
int64_t res_nodes(const struct hw_system *hw, int64_t gpus);
/* Sequences per second: gbs over the iteration time. */
double res_samples_per_s(const struct pred_ctx *c, const struct pred_result *r);
/* Model FLOP/s per GPU in TFLOP/s (no recompute counted, as MFU). */
double res_model_tflops_per_gpu(const struct pred_result *r, int64_t gpus);

/* The JSON object of one predicted plan (keys in README.md "JSON output"):
 * a new reference, owned by the caller. */
json_t *res_plan_json(const struct pred_ctx *c, const struct plan *p,
                      const struct pred_result *r);

/* CSV: the header and one row per plan (a search writes its own ranking
 * columns in front of both); numbers in full precision, booleans as JSON
 * writes them (true, false), the system's calibrated flag and the
 * schema_version last. */
void res_csv_header(FILE *fp);
void res_csv_row(FILE *fp, const struct pred_ctx *c, const struct plan *p,
                 const struct pred_result *r);

/* The version of the machine outputs' layout (README "Machine outputs"):
 * JSON's top-level "schema_version" and CSV's last column. Keys and
 * columns may be added under one version (readers ignore the ones they do
 * not know); it grows when one is renamed, removed or changes its meaning
 * or unit. */
#define RES_SCHEMA_VERSION 1

/* Full precision (results/emit.c): the shortest decimal text of x that
 * reads back to x exactly ("" for NaN or infinity), into buf (at least
 * RES_NUM_LEN bytes). Returns buf. */
#define RES_NUM_LEN 32
const char *res_num_text(double x, char *buf, size_t n);
/* "," and x's shortest text: one CSV field. */
void res_csv_num(FILE *fp, double x);
/* "," and s as one quoted CSV field (RFC 4180: '"' doubled); "," alone
 * for NULL. */
void res_csv_text(FILE *fp, const char *s);
/* ",true" or ",false": a CSV boolean, spelled as in JSON. */
void res_csv_bool(FILE *fp, bool b);

/* Dump a JSON value (insertion order, 2-space indent, every real in its
 * shortest exact text; a top-level object opens with "schema_version"),
 * newline-terminated, and release it. */
int res_json_emit(FILE *fp, json_t *v, struct tpl_err *err);
/* TPL_EIO if any write to fp failed, else 0. */
int res_stream_done(FILE *fp, struct tpl_err *err);

/* For a system whose kernel efficiencies are modelling defaults
 * (efficiency.calibrated = false in its file), the one-line warning every
 * report that uses it prints; nothing for a calibrated one. */
void res_uncalibrated_note(FILE *fp, const struct hw_system *hw);

/* A token count as people say it: "300B", "15T", "2.5M" (3 significant
 * digits at most; below a thousand the number). Returns buf. */
const char *res_tokens_text(double tokens, char *buf, size_t n);

/* "gbs 512", or "gbs 512..2048 (the best per count)" for a batch range. */
const char *res_gbs_label(int64_t lo, int64_t hi, char *buf, size_t n);
/* o["nearby_gbs"] = the n batch sizes v (a count without a plan). */
void res_json_nearby(json_t *o, const int64_t *v, int n);

#define RES_GIB 1073741824.0

#endif /* RES_WRITER_H */
