/* common/names.c: nearest names (see names.h). */
#include "common/names.h"

#include <ctype.h>
#include <string.h>

int tpl_edit_distance(const char *a, const char *b)
{
    int row[64], la = (int)strlen(a), lb = (int)strlen(b);
    if (la > 63 || lb > 63)
        return 64;
    for (int j = 0; j <= lb; j++)
        row[j] = j;
    for (int i = 1; i <= la; i++) {
        int diag = row[0];
        row[0] = i;
        for (int j = 1; j <= lb; j++) {
            int up = row[j], cost = tolower((unsigned char)a[i - 1]) !=
                                    tolower((unsigned char)b[j - 1]);
            int best = diag + cost;
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            diag = up;
            row[j] = best;
        }
    }
    return row[lb];
}

const char *tpl_nearest_name(const char *s, const void *table, size_t n,
                             size_t stride)
{
    const char *best = NULL;
    int best_d = 3, limit = strlen(s) <= 3 ? 0 : strlen(s) <= 5 ? 1 : 2;
    for (size_t i = 0; i < n; i++) {
        const char *name = *(const char *const *)(const void *)
                           ((const char *)table + i * stride);
        int d;
        if (!name)
            continue;
        d = s[0] && !strncmp(name, s, strlen(s)) ? 0 : tpl_edit_distance(s, name);
        if (d <= limit && d < best_d)
            best = name, best_d = d;
    }
    return best;
}
