/* sweep/grid.c: the grid of a sweep: varied and linked fields, their
 * values (lists and ranges), the item count, an item's indices and its
 * --set assignments, and the sweep's hash. */
#include "sweep/sweep.h"

#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"

void sweep_init(struct sweep *sw)
{
    memset(sw, 0, sizeof *sw);
    sw->axes = xcalloc(SWEEP_MAX_AXES, sizeof *sw->axes);
    sw->links = xcalloc(SWEEP_MAX_LINKS, sizeof *sw->links);
    sw->price = -1;
    sw->max_items = SWEEP_DEFAULT_MAX_ITEMS;
}

void sweep_release(struct sweep *sw)
{
    free(sw->axes);
    free(sw->links);
    memset(sw, 0, sizeof *sw);
}

/* ---- values ---- */

static int add_value(struct sweep_axis *a, const char *v, size_t len)
{
    if (a->n >= SWEEP_MAX_VALUES || len == 0 || len >= SWEEP_VALUE_LEN)
        return -1;
    memcpy(a->v[a->n], v, len);
    a->v[a->n++][len] = 0;
    return 0;
}

/* LO:HI:xF (LO, LO*F, ... up to HI) or LO:HI:+S / LO:HI:S (LO, LO+S, ...). */
static int add_range(struct sweep_axis *a, const char *tok)
{
    char *end, buf[SWEEP_VALUE_LEN];
    double lo = strtod(tok, &end), hi, step;
    bool geo;
    if (*end != ':' || (hi = strtod(end + 1, &end), *end != ':'))
        return -1;
    geo = end[1] == 'x';
    step = strtod(end + 1 + (geo || end[1] == '+'), &end);
    if (*end || !(hi >= lo) || !(step > (geo ? 1 : 0)) || (geo && !(lo > 0)))
        return -1;
    for (double v = lo; v <= hi * (1 + 1e-12); v = geo ? v * step : v + step) {
        int len = snprintf(buf, sizeof buf, "%.10g", v);
        if (add_value(a, buf, (size_t)len))
            return -1;
    }
    return 0;
}

static int parse_values(struct sweep_axis *a, const char *list)
{
    const char *p = list;
    while (*p) {
        size_t len = strcspn(p, ",");
        char tok[64];
        if (len == 0 || len >= sizeof tok)
            return -1;
        memcpy(tok, p, len);
        tok[len] = 0;
        if (strchr(tok, ':') ? add_range(a, tok) : add_value(a, tok, len))
            return -1;
        p += len + (p[len] == ',');
    }
    return a->n > 0 ? 0 : -1;
}

/* "section.field=values" into a (field and values). */
static int parse_axis(struct sweep_axis *a, const char *spec)
{
    const char *eq = strchr(spec, '=');
    size_t len = eq ? (size_t)(eq - spec) : 0;
    memset(a, 0, sizeof *a);
    if (!eq || len >= SWEEP_FIELD_LEN || !memchr(spec, '.', len) ||
        spec[0] == '.' || eq[-1] == '.')
        return -1;
    memcpy(a->field, spec, len);
    return parse_values(a, eq + 1);
}

static int find_axis(const struct sweep *sw, const char *field, size_t len)
{
    for (int i = 0; i < sw->n_axes; i++)
        if (strlen(sw->axes[i].field) == len && !strncmp(sw->axes[i].field, field, len))
            return i;
    return -1;
}

int sweep_add_vary(struct sweep *sw, const char *spec, const char *where,
                   struct tpl_err *err)
{
    struct sweep_axis *a = &sw->axes[sw->n_axes];
    if (sw->n_axes >= SWEEP_MAX_AXES)
        return tpl_errorf(err, TPL_ECONFIG, "%s: more than %d varied fields",
                          where, SWEEP_MAX_AXES);
    if (parse_axis(a, spec))
        return tpl_errorf(err, TPL_ECONFIG, "%s: 'vary' must be section.field="
                          "V1,V2,... or LO:HI:xF or LO:HI:+S (at most %d values), "
                          "not '%s'", where, SWEEP_MAX_VALUES, spec);
    if (find_axis(sw, a->field, strlen(a->field)) >= 0)
        return tpl_errorf(err, TPL_ECONFIG, "%s: 'vary' names '%s' twice", where,
                          a->field);
    snprintf(a->where, sizeof a->where, "%s", where);
    sw->n_axes++;
    return 0;
}

int sweep_add_link(struct sweep *sw, const char *spec, const char *where,
                   struct tpl_err *err)
{
    struct sweep_axis *l = &sw->links[sw->n_links];
    const char *colon = strchr(spec, ':');
    int axis = colon ? find_axis(sw, spec, (size_t)(colon - spec)) : -1;
    if (sw->n_links >= SWEEP_MAX_LINKS)
        return tpl_errorf(err, TPL_ECONFIG, "%s: more than %d linked fields",
                          where, SWEEP_MAX_LINKS);
    if (!colon || parse_axis(l, colon + 1))
        return tpl_errorf(err, TPL_ECONFIG, "%s: 'link' must be VARIED.FIELD:"
                          "section.field=V1,V2,..., not '%s'", where, spec);
    if (axis < 0)
        return tpl_errorf(err, TPL_ECONFIG, "%s: 'link' follows '%.*s', which "
                          "is not varied", where, (int)(colon - spec), spec);
    if (l->n != sw->axes[axis].n)
        return tpl_errorf(err, TPL_ECONFIG, "%s: 'link' '%s' has %d values, "
                          "'%s' %d", where, l->field, l->n, sw->axes[axis].field,
                          sw->axes[axis].n);
    l->axis = axis;
    snprintf(l->where, sizeof l->where, "%s", where);
    sw->n_links++;
    return 0;
}

/* ---- items ---- */

int sweep_count(const struct sweep *sw, uint64_t *n, struct tpl_err *err)
{
    long double size = (long double)sw->n_models * sw->n_systems;
    for (int i = 0; i < sw->n_axes; i++)
        size *= sw->axes[i].n;
    if (size > (long double)sw->max_items)
        return tpl_errorf(err, TPL_ECONFIG, "the grid has %.4Lg items, more "
                          "than --max-items %llu", size,
                          (unsigned long long)sw->max_items);
    *n = (uint64_t)size;
    return 0;
}

void sweep_decode(const struct sweep *sw, uint64_t item, int *model,
                  int *system, int axis_idx[SWEEP_MAX_AXES])
{
    for (int i = sw->n_axes - 1; i >= 0; i--) {
        axis_idx[i] = (int)(item % (uint64_t)sw->axes[i].n);
        item /= (uint64_t)sw->axes[i].n;
    }
    *system = (int)(item % (uint64_t)sw->n_systems);
    *model = (int)(item / (uint64_t)sw->n_systems);
}

int sweep_item_sets(const struct sweep *sw, uint64_t item,
                    char (*buf)[SWEEP_SET_LEN], const char **sets)
{
    int idx[SWEEP_MAX_AXES], m, s, n = 0;
    sweep_decode(sw, item, &m, &s, idx);
    for (int i = 0; i < sw->n_sets; i++)
        sets[n++] = sw->sets[i];
    for (int i = 0; i < sw->n_axes; i++, n++) {
        snprintf(buf[n], SWEEP_SET_LEN, "%s=%s", sw->axes[i].field,
                 sw->axes[i].v[idx[i]]);
        sets[n] = buf[n];
    }
    for (int i = 0; i < sw->n_links; i++, n++) {
        const struct sweep_axis *l = &sw->links[i];
        snprintf(buf[n], SWEEP_SET_LEN, "%s=%s", l->field, l->v[idx[l->axis]]);
        sets[n] = buf[n];
    }
    return n;
}

/* ---- hash ---- */

static uint64_t fnv(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
    return (h ^ 0xff) * 0x100000001b3ULL;       /* a separator */
}

static uint64_t hash_axes(uint64_t h, const struct sweep_axis *a, int n)
{
    for (int i = 0; i < n; i++) {
        h = fnv(h, a[i].field);
        for (int k = 0; k < a[i].n; k++)
            h = fnv(h, a[i].v[k]);
    }
    return h;
}

uint64_t sweep_hash(const struct sweep *sw)
{
    char nums[96];
    uint64_t h = fnv(0xcbf29ce484222325ULL, sw->scenario);
    for (int i = 0; i < sw->n_models; i++)
        h = fnv(h, sw->models[i]);
    h = fnv(h, "|");
    for (int i = 0; i < sw->n_systems; i++)
        h = fnv(h, sw->systems[i]);
    for (int i = 0; i < sw->n_sets; i++)
        h = fnv(h, sw->sets[i]);
    h = hash_axes(fnv(h, "|"), sw->axes, sw->n_axes);
    h = hash_axes(fnv(h, "|"), sw->links, sw->n_links);
    snprintf(nums, sizeof nums, "%a|%a", sw->tokens, sw->price);
    return fnv(fnv(h, sw->gpus), nums);
}
