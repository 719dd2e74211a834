/* common/conf.c: libconfig reading with file:line:field errors, unknown-field
 * checks and --set overrides (see conf.h). Settings changed by --set carry a
 * hook pointer to set_mark, so messages can name "--set" as their origin. */
#include "common/conf.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/alloc.h"
#include "common/names.h"

#include <sys/stat.h>
#include <unistd.h>

static char set_mark;           /* hook value of overridden settings */

static void conf_init(struct conf *c, const char *name)
{
    config_init(&c->cfg);
    config_set_auto_convert(&c->cfg, CONFIG_TRUE);  /* accept 989 as 989.0 */
    c->name = xstrdup(name);
    c->loaded = false;
}

static int parse_failed(struct conf *c, bool from_file, struct tpl_err *err)
{
    int rc;
    if (from_file && config_error_type(&c->cfg) == CONFIG_ERR_FILE_IO)
        rc = tpl_errorf(err, TPL_EIO, "cannot read '%s': %s", c->name,
                        strerror(errno ? errno : EIO));
    else
        rc = tpl_errorf(err, TPL_ECONFIG, "%s:%d: %s", c->name,
                        config_error_line(&c->cfg), config_error_text(&c->cfg));
    conf_release(c);
    return rc;
}

int conf_load_file(struct conf *c, const char *path, struct tpl_err *err)
{
    struct stat st;
    conf_init(c, path);
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        config_read_file(&c->cfg, "");      /* sets CONFIG_ERR_FILE_IO */
        errno = EISDIR;
        return parse_failed(c, true, err);
    }
    errno = 0;
    if (!config_read_file(&c->cfg, path))
        return parse_failed(c, true, err);
    c->loaded = true;
    return 0;
}

int conf_load_string(struct conf *c, const char *name, const char *text,
                     struct tpl_err *err)
{
    conf_init(c, name);
    if (!config_read_string(&c->cfg, text))
        return parse_failed(c, false, err);
    c->loaded = true;
    return 0;
}

void conf_release(struct conf *c)
{
    if (c->name)
        config_destroy(&c->cfg);
    free(c->name);
    c->name = NULL;
    c->loaded = false;
}

/* ---- places and messages ---- */

void conf_where(const struct conf *c, const config_setting_t *s, char *buf,
                size_t n)
{
    if (s && config_setting_get_hook(s) == &set_mark) {
        const config_setting_t *p = config_setting_parent(s);
        snprintf(buf, n, "--set %s.%s", p && config_setting_name(p)
                 ? config_setting_name(p) : "", config_setting_name(s));
        return;
    }
    snprintf(buf, n, "%s:%d", c->name, s ? config_setting_source_line(s) : 0);
}

static const char *type_name(int type)
{
    switch (type) {
    case CONFIG_TYPE_GROUP:  return "a group";
    case CONFIG_TYPE_INT:
    case CONFIG_TYPE_INT64:  return "an integer";
    case CONFIG_TYPE_FLOAT:  return "a number";
    case CONFIG_TYPE_STRING: return "a string";
    case CONFIG_TYPE_BOOL:   return "a boolean";
    case CONFIG_TYPE_ARRAY:  return "an array";
    case CONFIG_TYPE_LIST:   return "a list";
    default:                 return "nothing";
    }
}

static int bad(const struct conf_group *g, const config_setting_t *s,
               const char *key, const char *must, struct tpl_err *err)
{
    char where[200];
    conf_where(g->c, s, where, sizeof where);
    return tpl_errorf(err, TPL_ECONFIG, "%s: '%s' must be %s, not %s", where,
                      key, must, type_name(config_setting_type(s)));
}

static int out_of_range(const struct conf_group *g, const config_setting_t *s,
                        const char *key, const char *must, struct tpl_err *err)
{
    char where[200];
    conf_where(g->c, s, where, sizeof where);
    return tpl_errorf(err, TPL_ECONFIG, "%s: '%s' must be %s", where, key, must);
}

static const config_setting_t *member(const struct conf_group *g,
                                      const char *key, struct tpl_err *err)
{
    const config_setting_t *s = config_setting_get_member(g->s, key);
    if (!s)
        tpl_errorf(err, TPL_ECONFIG, "%s:%d: missing field '%s' in '%s'",
                   g->c->name, config_setting_source_line(g->s), key, g->name);
    return s;
}

/* ---- groups and unknown fields ---- */

int conf_group(const struct conf *c, const char *name, struct conf_group *out,
               struct tpl_err *err)
{
    const config_setting_t *s = config_lookup(&c->cfg, name);
    out->c = c;
    out->s = s;
    out->name = name;
    if (!s)
        return tpl_errorf(err, TPL_ECONFIG, "%s: missing group '%s'",
                          c->name, name);
    if (config_setting_type(s) != CONFIG_TYPE_GROUP) {
        char where[200];
        conf_where(c, s, where, sizeof where);
        return tpl_errorf(err, TPL_ECONFIG, "%s: '%s' must be a group, not %s",
                          where, name, type_name(config_setting_type(s)));
    }
    return 0;
}

int conf_check_known(const struct conf *c, const config_setting_t *s,
                     const char *what, const char *const known[],
                     struct tpl_err *err)
{
    int n = config_setting_length(s);
    for (int i = 0; i < n; i++) {
        const config_setting_t *m = config_setting_get_elem(s, (unsigned)i);
        const char *name = config_setting_name(m);
        bool ok = false;
        for (int k = 0; known[k] && !ok; k++)
            ok = name && strcmp(name, known[k]) == 0;
        if (!ok) {
            char where[200];
            size_t n_known = 0;
            const char *near;
            while (known[n_known])
                n_known++;
            near = name ? tpl_nearest_name(name, known, n_known,
                                           sizeof known[0]) : NULL;
            conf_where(c, m, where, sizeof where);
            return tpl_errorf(err, TPL_ECONFIG, "%s: unknown %s '%s' in %s%s%s%s",
                              where, config_setting_is_root(s) ? "group" : "field",
                              name ? name : "?", what, near ? " (did you mean '"
                              : "", near ? near : "", near ? "'?)" : "");
        }
    }
    return 0;
}

int conf_check_group_known(const struct conf_group *g, const char *const known[],
                           struct tpl_err *err)
{
    char what[80];
    snprintf(what, sizeof what, "'%s'", g->name);
    return conf_check_known(g->c, g->s, what, known, err);
}

/* ---- typed members ---- */

bool conf_has(const struct conf_group *g, const char *key)
{
    return config_setting_get_member(g->s, key) != NULL;
}

int conf_require(const struct conf_group *g, const char *const keys[],
                 struct tpl_err *err)
{
    char names[sizeof err->msg];
    size_t len = 0;
    int n = 0;
    names[0] = '\0';
    for (int k = 0; keys[k]; k++)
        if (!conf_has(g, keys[k]) && len < sizeof names) {
            len += (size_t)snprintf(names + len, sizeof names - len, "%s'%s'",
                                    n ? ", " : "", keys[k]);
            n++;
        }
    if (n == 0)
        return 0;
    return tpl_errorf(err, TPL_ECONFIG, "%s:%d: missing field%s %s in '%s'",
                      g->c->name, config_setting_source_line(g->s),
                      n > 1 ? "s" : "", names, g->name);
}

int conf_int(const struct conf_group *g, const char *key, int64_t min,
             int64_t max, int64_t *out, struct tpl_err *err)
{
    const config_setting_t *s = member(g, key, err);
    char must[96];
    int64_t v;
    if (!s)
        return TPL_ECONFIG;
    snprintf(must, sizeof must, "an integer in [%" PRId64 ", %" PRId64 "]",
             min, max);
    if (config_setting_type(s) != CONFIG_TYPE_INT &&
        config_setting_type(s) != CONFIG_TYPE_INT64)
        return bad(g, s, key, must, err);
    v = config_setting_get_int64(s);
    if (v < min || v > max)
        return out_of_range(g, s, key, must, err);
    *out = v;
    return 0;
}

int conf_num(const struct conf_group *g, const char *key, double min,
             bool min_open, double max, double *out, struct tpl_err *err)
{
    const config_setting_t *s = member(g, key, err);
    char must[96];
    double v;
    int t;
    if (!s)
        return TPL_ECONFIG;
    snprintf(must, sizeof must, "a number in %s%.10g, %.10g]",
             min_open ? "(" : "[", min, max);
    t = config_setting_type(s);
    if (t != CONFIG_TYPE_INT && t != CONFIG_TYPE_INT64 && t != CONFIG_TYPE_FLOAT)
        return bad(g, s, key, must, err);
    v = t == CONFIG_TYPE_FLOAT ? config_setting_get_float(s)
                               : (double)config_setting_get_int64(s);
    if (!isfinite(v) || v < min || (min_open && v == min) || v > max)
        return out_of_range(g, s, key, must, err);
    *out = v;
    return 0;
}

int conf_bool(const struct conf_group *g, const char *key, bool *out,
              struct tpl_err *err)
{
    const config_setting_t *s = member(g, key, err);
    if (!s)
        return TPL_ECONFIG;
    if (config_setting_type(s) != CONFIG_TYPE_BOOL)
        return bad(g, s, key, "true or false", err);
    *out = config_setting_get_bool(s);
    return 0;
}

int conf_str(const struct conf_group *g, const char *key, char *buf, size_t n,
             struct tpl_err *err)
{
    const config_setting_t *s = member(g, key, err);
    const char *v;
    if (!s)
        return TPL_ECONFIG;
    if (config_setting_type(s) != CONFIG_TYPE_STRING)
        return bad(g, s, key, "a string", err);
    v = config_setting_get_string(s);
    if (!*v)
        return out_of_range(g, s, key, "a non-empty string", err);
    if (strlen(v) >= n) {
        char must[64];
        snprintf(must, sizeof must, "at most %zu characters long", n - 1);
        return out_of_range(g, s, key, must, err);
    }
    memcpy(buf, v, strlen(v) + 1);
    return 0;
}

bool conf_is_token(const char *v)
{
    if (!*v)
        return false;
    for (; *v; v++)
        if (!((*v >= 'a' && *v <= 'z') || (*v >= '0' && *v <= '9') ||
              *v == '-' || *v == '_'))
            return false;
    return true;
}

int conf_token(const struct conf_group *g, const char *key, char *buf, size_t n,
               struct tpl_err *err)
{
    int rc = conf_str(g, key, buf, n, err);
    if (rc || conf_is_token(buf))
        return rc;
    return out_of_range(g, config_setting_get_member(g->s, key), key,
                        "lower-case letters, digits, '-' or '_'", err);
}

int conf_enum(const struct conf_group *g, const char *key,
              const char *const names[], int n_names, int *out,
              struct tpl_err *err)
{
    char v[64], must[160] = "one of";
    int rc = conf_str(g, key, v, sizeof v, err);
    if (rc)
        return rc;
    for (int i = 0; i < n_names; i++)
        if (strcmp(v, names[i]) == 0) {
            *out = i;
            return 0;
        }
    for (int i = 0; i < n_names; i++) {
        size_t len = strlen(must);
        snprintf(must + len, sizeof must - len, "%s'%s'", i ? ", " : " ",
                 names[i]);
    }
    return out_of_range(g, config_setting_get_member(g->s, key), key, must, err);
}

/* ---- overrides ---- */

int conf_set_section(const char *assignment, char *buf, size_t n,
                     struct tpl_err *err)
{
    const char *dot = strchr(assignment, '.');
    const char *eq = strchr(assignment, '=');
    size_t len;
    if (!dot || !eq || dot > eq || dot == assignment || eq == dot + 1 ||
        memchr(dot + 1, '.', (size_t)(eq - dot - 1)) || eq - dot - 1 >= 64)
        return tpl_errorf(err, TPL_EUSAGE, "--set '%s': expected "
                          "section.field=value", assignment);
    len = (size_t)(dot - assignment);
    if (len >= n)
        return tpl_errorf(err, TPL_EUSAGE, "--set '%s': section name too long",
                          assignment);
    memcpy(buf, assignment, len);
    buf[len] = '\0';
    return 0;
}

enum value_kind { VALUE_INT, VALUE_FLOAT, VALUE_BOOL, VALUE_STRING };

static enum value_kind read_value(const char *v, long long *i, double *d, int *b)
{
    char *end;
    if (*v) {
        errno = 0;
        *i = strtoll(v, &end, 10);
        if (!*end && errno == 0)
            return VALUE_INT;
        errno = 0;
        *d = strtod(v, &end);
        if (!*end && errno == 0 && isfinite(*d))
            return VALUE_FLOAT;
    }
    if (!strcmp(v, "true") || !strcmp(v, "false")) {
        *b = !strcmp(v, "true");
        return VALUE_BOOL;
    }
    return VALUE_STRING;
}

static const int kind_type[] = {
    [VALUE_INT] = CONFIG_TYPE_INT64, [VALUE_FLOAT] = CONFIG_TYPE_FLOAT,
    [VALUE_BOOL] = CONFIG_TYPE_BOOL, [VALUE_STRING] = CONFIG_TYPE_STRING,
};

/* The field of "section.field=value" into 'field'; -1 when it is too long
 * or itself dotted. */
static int set_field_name(const char *assignment, char *field, size_t n)
{
    const char *dot = strchr(assignment, '.'), *eq = strchr(assignment, '=');
    size_t len = (size_t)(eq - dot - 1);
    if (len >= n || memchr(dot + 1, '.', len))
        return -1;
    memcpy(field, dot + 1, len);
    field[len] = '\0';
    return 0;
}

/* The section's group, added when the file has none; NULL when the name
 * is taken by something that is not a group. */
static config_setting_t *set_group(struct conf *c, const char *section)
{
    config_setting_t *grp = config_lookup(&c->cfg, section);
    if (!grp)
        grp = config_setting_add(config_root_setting(&c->cfg), section,
                                 CONFIG_TYPE_GROUP);
    return grp && config_setting_type(grp) == CONFIG_TYPE_GROUP ? grp : NULL;
}

/* Append one element to the array 'a'; -1 when libconfig refuses it (an
 * element of another type than the first: arrays are of one scalar type). */
static int array_append(config_setting_t *a, const char *v)
{
    long long i = 0;
    double d = 0;
    int b = 0;
    switch (read_value(v, &i, &d, &b)) {
    case VALUE_INT:    return config_setting_set_int64_elem(a, -1, i) ? 0 : -1;
    case VALUE_FLOAT:  return config_setting_set_float_elem(a, -1, d) ? 0 : -1;
    case VALUE_BOOL:   return config_setting_set_bool_elem(a, -1, b) ? 0 : -1;
    case VALUE_STRING: return config_setting_set_string_elem(a, -1, v) ? 0 : -1;
    }
    return -1;
}

/* A list value: "[1,2,4]" (brackets, comma-separated scalars), or one
 * number or boolean for a field the file holds as a list ("space.tp=8" as
 * [8], as a sweep's --vary gives one value at a time); NULL when an
 * element does not fit the array's type or the list is empty. */
static config_setting_t *set_list(config_setting_t *grp, const char *field,
                                  const char *value)
{
    char buf[256], *save, *tok;
    size_t n = strlen(value);
    config_setting_t *a;
    bool bracketed = n >= 2 && value[0] == '[' && value[n - 1] == ']';
    if (bracketed)
        snprintf(buf, sizeof buf, "%.*s", (int)(n - 2), value + 1);
    else
        snprintf(buf, sizeof buf, "%s", value);
    if (n >= sizeof buf)
        return NULL;
    config_setting_remove(grp, field);
    if (!(a = config_setting_add(grp, field, CONFIG_TYPE_ARRAY)))
        return NULL;
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
        if (array_append(a, tok))
            return NULL;
    return config_setting_length(a) > 0 ? a : NULL;
}

/* Whether 'value' is written as a list, or is a number or boolean for a
 * field the file holds as one. */
static bool list_value(const config_setting_t *s, const char *value)
{
    long long i;
    double d;
    int b;
    size_t n = strlen(value);
    if (n >= 2 && value[0] == '[' && value[n - 1] == ']')
        return true;
    return s && (config_setting_type(s) == CONFIG_TYPE_ARRAY ||
                 config_setting_type(s) == CONFIG_TYPE_LIST) &&
           read_value(value, &i, &d, &b) != VALUE_STRING;
}

/* Write 'value' into the field, typed as the file has it (a string stays a
 * string, a list a list), else as the value reads; NULL for a bad field
 * name or list. */
static config_setting_t *set_value(config_setting_t *grp, const char *field,
                                   const char *value)
{
    config_setting_t *s = config_setting_get_member(grp, field);
    long long i = 0;
    double d = 0;
    int b = 0;
    enum value_kind kind;
    if (list_value(s, value))
        return set_list(grp, field, value);
    /* "auto" stands for a value the program picks: what replaces it reads
     * as what it is ("space.tp=8" over tp = "auto") */
    kind = s && config_setting_type(s) == CONFIG_TYPE_STRING &&
           strcmp(config_setting_get_string(s), "auto")
         ? VALUE_STRING : read_value(value, &i, &d, &b);
    if (s && config_setting_type(s) != kind_type[kind]) {
        config_setting_remove(grp, field);
        s = NULL;
    }
    if (!s && !(s = config_setting_add(grp, field, kind_type[kind])))
        return NULL;
    switch (kind) {
    case VALUE_INT:    config_setting_set_int64(s, i); break;
    case VALUE_FLOAT:  config_setting_set_float(s, d); break;
    case VALUE_BOOL:   config_setting_set_bool(s, b); break;
    case VALUE_STRING: config_setting_set_string(s, value); break;
    }
    return s;
}

int conf_apply_set(struct conf *c, const char *assignment, struct tpl_err *err)
{
    char section[64], field[64];
    config_setting_t *grp, *s;
    int rc = conf_set_section(assignment, section, sizeof section, err);
    if (rc)
        return rc;
    if (set_field_name(assignment, field, sizeof field))
        return tpl_errorf(err, TPL_EUSAGE, "--set '%s': expected "
                          "section.field=value", assignment);
    if (!(grp = set_group(c, section)))
        return tpl_errorf(err, TPL_EUSAGE, "--set '%s': '%s' is not a section",
                          assignment, section);
    if (!(s = set_value(grp, field, strchr(assignment, '=') + 1)))
        return tpl_errorf(err, TPL_EUSAGE, "--set '%s': bad field name '%s', "
                          "or a list ([v,...]) of values of different types",
                          assignment, field);
    config_setting_set_hook(s, &set_mark);
    return 0;
}

/* ---- presets ---- */

const struct conf_preset *conf_preset_find(const struct conf_preset *presets,
                                           size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)     /* names are lower case: any case */
        if (!strcasecmp(presets[i].name, name))
            return &presets[i];
    return NULL;
}

static bool looks_like_path(const char *name)
{
    size_t n = strlen(name);
    return strchr(name, '/') || (n > 4 && !strcmp(name + n - 4, ".cfg"));
}

int conf_load_named(struct conf *c, const char *name,
                    const struct conf_preset *presets, size_t n,
                    const char *kind, struct tpl_err *err)
{
    const struct conf_preset *p = looks_like_path(name) ? NULL
                                : conf_preset_find(presets, n, name);
    const char *near;
    c->name = NULL;
    if (p)
        return conf_load_string(c, p->name, p->text, err);
    if (looks_like_path(name) || access(name, F_OK) == 0)
        return conf_load_file(c, name, err);
    near = tpl_nearest_name(name, presets, n, sizeof presets[0]);
    return tpl_errorf(err, TPL_ECONFIG, "unknown %s '%s': not a preset "
                      "(see 'trainplan list %ss') nor a file%s%s%s", kind,
                      name, kind, near ? "; did you mean '" : "",
                      near ? near : "", near ? "'?" : "");
}
