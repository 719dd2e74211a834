/* tests/fuzz/fuzz_samples.c: the kernel-sample reader on arbitrary bytes,
 * read as an operator file and as an NCCL file: refused with nothing left
 * behind, or parsed into samples whose values are in range. */
#include "fuzz.h"
#include "calibrate/samples.h"

static void check(const struct cal_set *s)
{
    for (int i = 0; i < s->n; i++) {
        const struct cal_sample *x = &s->s[i];
        if (!(x->mp > 0 && x->b > 0 && x->h > 0 && x->l > 0 && x->dim > 0) ||
            !(x->t[0] >= 0 && x->t[1] >= 0) || !isfinite(x->t[0]) ||
            !isfinite(x->t[1]))
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    for (int kind = CAL_CSV_OPERATOR; kind <= CAL_CSV_NCCL; kind++) {
        struct tpl_err err = { 0 };
        struct cal_set s;
        FILE *fp = size ? fmemopen((void *)data, size, "r") : NULL;
        if (!fp)
            return 0;
        if (cal_csv_read(fp, "fuzz", (enum cal_csv)kind, &s, &err) == 0) {
            if (s.n > 0 && s.s == NULL)
                abort();
            check(&s);
            free(s.s);
        } else if (s.s || s.n || !err.msg[0])
            abort();
        fclose(fp);
    }
    return 0;
}
