/* common/conf.h: reading libconfig files with one-line errors that name the
 * file, the line and the field ("dgx-h100:14: 'hbm_gib' must be > 0"), the
 * check for unknown fields, and the --set overrides. Every input file kind
 * (model, system, scenario) is read through here. */
#ifndef TPL_CONF_H
#define TPL_CONF_H

#include <libconfig.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

struct conf {                   /* caller-owned: conf_load_* / conf_release */
    config_t cfg;
    char *name;                 /* file path, or preset name, for messages */
    bool loaded;
};

/* Parse a file (TPL_EIO when unreadable, TPL_ECONFIG with file:line on a
 * syntax error) or a string that stands for the preset 'name'. On failure
 * the conf holds nothing and conf_release is still safe. */
int conf_load_file(struct conf *c, const char *path, struct tpl_err *err);
int conf_load_string(struct conf *c, const char *name, const char *text,
                     struct tpl_err *err);
void conf_release(struct conf *c);

/* Apply "section.field=value" to the tree before validation. The value takes
 * the field's kind when the field is a string, else the kind it reads as
 * (integer, number, true/false, string); validation then judges it and names
 * "--set section.field" as the place. A field that does not exist is added,
 * so validation reports it as unknown. TPL_EUSAGE on a malformed assignment. */
int conf_apply_set(struct conf *c, const char *assignment, struct tpl_err *err);

/* The section ("gpu") of an assignment "gpu.hbm_gib=96" into buf. */
int conf_set_section(const char *assignment, char *buf, size_t n,
                     struct tpl_err *err);

/* A group being read: borrowed from its conf, valid until conf_release. */
struct conf_group {
    const struct conf *c;
    const config_setting_t *s;
    const char *name;
};

int conf_group(const struct conf *c, const char *name, struct conf_group *out,
               struct tpl_err *err);
/* Fail on any member not in 'known' (NULL-terminated); at the root, the
 * known groups. */
int conf_check_known(const struct conf *c, const config_setting_t *s,
                     const char *what, const char *const known[],
                     struct tpl_err *err);
int conf_check_group_known(const struct conf_group *g, const char *const known[],
                           struct tpl_err *err);

/* Required members with range checks. Messages: "'layers' must be an integer
 * in [1, 16384]", "missing field 'heads' in 'model'". */
int conf_int(const struct conf_group *g, const char *key, int64_t min,
             int64_t max, int64_t *out, struct tpl_err *err);
int conf_num(const struct conf_group *g, const char *key, double min,
             bool min_open, double max, double *out, struct tpl_err *err);
int conf_bool(const struct conf_group *g, const char *key, bool *out,
              struct tpl_err *err);
int conf_str(const struct conf_group *g, const char *key, char *buf, size_t n,
             struct tpl_err *err);
int conf_enum(const struct conf_group *g, const char *key,
              const char *const names[], int n_names, int *out,
              struct tpl_err *err);
/* A name token: one or more lower-case letters, digits, '-' or '_' (a GPU
 * architecture's name, "hopper"). conf_token reads a string member that
 * must be one, shorter than n. */
bool conf_is_token(const char *v);
int conf_token(const struct conf_group *g, const char *key, char *buf, size_t n,
               struct tpl_err *err);
/* Optional: returns 0 and leaves *out alone when the member is absent. */
bool conf_has(const struct conf_group *g, const char *key);
/* Every one of the required 'keys' (NULL-terminated) present, or one error
 * naming all that are missing, so a new file is fixed in one pass:
 * "m.cfg:3: missing fields 'bias', 'dropout' in 'model'" ("missing field
 * 'x'" for one). */
int conf_require(const struct conf_group *g, const char *const keys[],
                 struct tpl_err *err);

/* "file:line" of a setting, or "--set section.field" when overridden. */
void conf_where(const struct conf *c, const config_setting_t *s, char *buf,
                size_t n);



/* ---- presets compiled into the binary ---- */

struct conf_preset {
    const char *name;           /* "llama3-70b" */
    const char *text;           /* the .cfg file's contents */
};

/* Load 'name' as a preset from 'presets' (n of them), or as a file path when
 * it names no preset (or contains '/' or ends in ".cfg"). 'kind' ("model",
 * "system") words the error for a name that is neither. */
int conf_load_named(struct conf *c, const char *name,
                    const struct conf_preset *presets, size_t n,
                    const char *kind, struct tpl_err *err);
const struct conf_preset *conf_preset_find(const struct conf_preset *presets,
                                           size_t n, const char *name);
#endif /* TPL_CONF_H */
