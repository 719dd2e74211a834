/* spaces/gpus.c: parsing of GPU-count lists and ranges. */
#include "spaces/gpus.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/conf.h"

struct where { const char *label, *spec; };

static int bad(struct tpl_err *err, const struct where *w, const char *why)
{
    return tpl_errorf(err, TPL_EUSAGE, "%s '%s': %s", w->label, w->spec, why);
}

/* A whole number in [1, SPACE_MAX_GPUS] at *p, advancing *p. */
static int number(const char **p, int64_t *out)
{
    char *end;
    long long v;
    if (**p < '0' || **p > '9')
        return -1;
    errno = 0;
    v = strtoll(*p, &end, 10);
    if (errno || v < 1 || v > SPACE_MAX_GPUS)
        return -1;
    *p = end;
    *out = v;
    return 0;
}

static int push(struct gpu_list *l, size_t *cap, int64_t v)
{
    if (l->n == SPACE_MAX_GPU_COUNTS)
        return -1;
    if (l->n == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        l->v = xrealloc(l->v, *cap * sizeof *l->v);
    }
    l->v[l->n++] = v;
    return 0;
}

/* One comma-separated item: N, A..B (doubling) or A..B:S. */
static int item(struct gpu_list *l, size_t *cap, const char **p,
                const struct where *spec, struct tpl_err *err)
{
    int64_t a, b, step = 0;
    if (number(p, &a))
        return bad(err, spec, "expected a GPU count in [1, 1048576]");
    if (strncmp(*p, "..", 2) != 0)
        return push(l, cap, a) ? bad(err, spec, "too many GPU counts") : 0;
    *p += 2;
    if (number(p, &b))
        return bad(err, spec, "expected a range end in [1, 1048576] after '..'");
    if (**p == ':') {
        (*p)++;
        if (number(p, &step))
            return bad(err, spec, "expected a step in [1, 1048576] after ':'");
    }
    if (b < a)
        return bad(err, spec, "range end is below its start");
    for (int64_t v = a; v <= b; v = step ? v + step : 2 * v)
        if (push(l, cap, v))
            return bad(err, spec, "too many GPU counts (at most 65536)");
    return 0;
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

int gpu_list_parse(struct gpu_list *out, const char *spec, const char *label,
                   struct tpl_err *err)
{
    const struct where w = { label, spec };
    const char *p = spec;
    size_t cap = 0, k = 0;
    out->v = NULL;
    out->n = 0;
    for (;;) {
        int rc = item(out, &cap, &p, &w, err);
        if (rc) {
            gpu_list_release(out);
            return rc;
        }
        if (*p == '\0')
            break;
        if (*p != ',' || p[1] == '\0') {
            gpu_list_release(out);
            return bad(err, &w, "expected N, A..B or A..B:STEP, joined by commas");
        }
        p++;
    }
    qsort(out->v, out->n, sizeof *out->v, cmp_i64);
    for (size_t i = 0; i < out->n; i++)         /* unique */
        if (k == 0 || out->v[i] != out->v[k - 1])
            out->v[k++] = out->v[i];
    out->n = k;
    return 0;
}

void gpu_list_release(struct gpu_list *l)
{
    free(l->v);
    l->v = NULL;
    l->n = 0;
}

int gpu_list_check_conf(const struct conf_group *g, const char *spec,
                        struct tpl_err *err)
{
    char label[240];
    struct gpu_list l;
    conf_where(g->c, config_setting_get_member(g->s, "gpus"), label,
               sizeof label - 8);
    strcat(label, ": 'gpus'");
    if (gpu_list_parse(&l, spec, label, err))
        return err ? (err->code = TPL_ECONFIG) : TPL_ECONFIG;
    gpu_list_release(&l);
    return 0;
}
