/* tests/unit/exporttext.h: a plan's launch settings as text, and the
 * checks on them, for the tests of results/export.c (test_export.c) and
 * of the dimensions whose spellings it writes (test_rclayers.c,
 * test_offload.c). */
#ifndef TEST_EXPORTTEXT_H
#define TEST_EXPORTTEXT_H

#include <stdio.h>

#include "helpers.h"
#include "results/export.h"

/* The settings as text (static: one at a time). */
static inline const char *export_text(enum res_framework fw,
                                      const struct pred_ctx *c,
                                      const struct plan *p)
{
    static char buf[16384];
    struct pred_result r = { .rule = PLAN_OK };
    struct tpl_err err = { 0 };
    FILE *fp = fmemopen(buf, sizeof buf, "w");
    cr_assert_not_null(fp);
    cr_assert_eq(res_export_write(fp, fw, c, p, &r, &err), 0, "%s", err.msg);
    fclose(fp);
    return buf;
}

/* Why the framework refuses the plan (static: one at a time); fails the
 * test when it runs it. */
static inline const char *refused(enum res_framework fw, const struct pred_ctx *c,
                                  const struct plan *p)
{
    static char why[256];
    struct pred_result r = { .rule = PLAN_OK };
    cr_assert_eq(res_export_runnable(fw, c, p, &r, why, sizeof why), -1,
                 "runnable: %s", c->model.name);
    return why;
}

/* Fails the test, with the reason, when the framework refuses the plan. */
static inline void assert_runnable(enum res_framework fw, const struct pred_ctx *c,
                                   const struct plan *p)
{
    char why[256];
    struct pred_result r = { .rule = PLAN_OK };
    cr_assert_eq(res_export_runnable(fw, c, p, &r, why, sizeof why), 0, "%s", why);
}

#define assert_has(text, line) \
    cr_assert_not_null(strstr((text), (line)), "missing <%s> in:\n%s", (line), (text))
#define assert_lacks(text, word) \
    cr_assert_null(strstr((text), (word)), "unexpected <%s> in:\n%s", (word), (text))

#endif /* TEST_EXPORTTEXT_H */
