/* results/emit.c: numbers as machine outputs write them (writer.h): the
 * shortest decimal text that reads back to the same double, in CSV fields
 * and in JSON, and the JSON dump itself, since jansson's own writes every
 * real with one fixed precision (10 digits lost information; 17 prints
 * 0.1 as 0.10000000000000001). Layout as jansson's JSON_INDENT(2), keys in
 * insertion order; a top-level object opens with "schema_version". */
#include "results/writer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *res_num_text(double x, char *buf, size_t n)
{
    if (!isfinite(x)) {
        buf[0] = '\0';
        return buf;
    }
    /* DBL_DIG (15) digits always print a double whose shortest form is at
     * most 15 digits exactly (C17 5.2.4.2.2); 17 always read back
     * (IEEE 754-2008 sec. 5.12.2). */
    for (int p = 15; p <= 17; p++) {
        snprintf(buf, n, "%.*g", p, x);
        if (strtod(buf, NULL) == x)
            break;
    }
    return buf;
}

void res_csv_num(FILE *fp, double x)
{
    char buf[RES_NUM_LEN];
    fputc(',', fp);
    fputs(res_num_text(x, buf, sizeof buf), fp);
}

void res_csv_text(FILE *fp, const char *s)
{
    fputc(',', fp);
    if (!s)
        return;
    fputc('"', fp);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', fp);
        fputc(*s, fp);
    }
    fputc('"', fp);
}

int res_stream_done(FILE *fp, struct tpl_err *err)
{
    return ferror(fp) ? tpl_errorf(err, TPL_EIO, "cannot write the report") : 0;
}

/* ---- JSON ---- */

/* A real as jansson writes one (a ".0" on integral values, no '+' or
 * leading zeros in the exponent: "1e20", "2.5e-7"), with the shortest
 * digits. */
static void json_real_text(FILE *fp, double x)
{
    char buf[RES_NUM_LEN + 4], *e;
    res_num_text(x, buf, RES_NUM_LEN);
    if (strspn(buf, "0123456789-") == strlen(buf))
        strcat(buf, ".0");
    if ((e = strchr(buf, 'e'))) {
        char *d = e + 1, *s = d;
        if (*s == '+')
            s++;
        else if (*s == '-')
            s++, d++;
        while (*s == '0' && s[1])
            s++;
        memmove(d, s, strlen(s) + 1);
    }
    fputs(buf, fp);
}

static void json_str(FILE *fp, const char *s)
{
    json_t *v = json_string(s);
    char *t = v ? json_dumps(v, JSON_ENCODE_ANY) : NULL;
    fputs(t ? t : "\"\"", fp);
    free(t);
    json_decref(v);
}

static void json_newline(FILE *fp, int depth)
{
    fputc('\n', fp);
    for (int i = 0; i < depth; i++)
        fputs("  ", fp);
}

static void json_value(FILE *fp, const json_t *v, int depth);

static void json_obj(FILE *fp, const json_t *v, int depth)
{
    const char *key;
    json_t *x;
    bool first = true;
    fputc('{', fp);
    if (depth == 0) {
        json_newline(fp, 1);
        fprintf(fp, "\"schema_version\": %d", RES_SCHEMA_VERSION);
        first = false;
    }
    json_object_foreach((json_t *)v, key, x) {
        fputs(first ? "" : ",", fp);
        json_newline(fp, depth + 1);
        json_str(fp, key);
        fputs(": ", fp);
        json_value(fp, x, depth + 1);
        first = false;
    }
    if (!first)
        json_newline(fp, depth);
    fputc('}', fp);
}

static void json_arr(FILE *fp, const json_t *v, int depth)
{
    size_t i;
    json_t *x;
    fputc('[', fp);
    json_array_foreach(v, i, x) {
        fputs(i ? "," : "", fp);
        json_newline(fp, depth + 1);
        json_value(fp, x, depth + 1);
    }
    if (json_array_size(v))
        json_newline(fp, depth);
    fputc(']', fp);
}

static void json_value(FILE *fp, const json_t *v, int depth)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:  json_obj(fp, v, depth); break;
    case JSON_ARRAY:   json_arr(fp, v, depth); break;
    case JSON_STRING:  json_str(fp, json_string_value(v)); break;
    case JSON_INTEGER: fprintf(fp, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
                       break;
    case JSON_REAL:    json_real_text(fp, json_real_value(v)); break;
    case JSON_TRUE:    fputs("true", fp); break;
    case JSON_FALSE:   fputs("false", fp); break;
    case JSON_NULL:    fputs("null", fp); break;
    }
}

int res_json_emit(FILE *fp, json_t *v, struct tpl_err *err)
{
    int bad;
    if (v)
        json_value(fp, v, 0);
    bad = !v || fputc('\n', fp) == EOF;
    json_decref(v);
    return bad ? tpl_errorf(err, TPL_EIO, "cannot write JSON output")
               : res_stream_done(fp, err);
}
