/* common/names.h: "did you mean" for a mistyped name: the nearest name of a
 * table by edit distance (Levenshtein), as git's help.c suggests commands. */
#ifndef TPL_NAMES_H
#define TPL_NAMES_H

#include <stddef.h>

/* Levenshtein distance of a and b, compared case-insensitively; names
 * longer than 63 characters count as far from everything (64). */
int tpl_edit_distance(const char *a, const char *b);

/* The name nearest to s among n table rows of 'stride' bytes, each starting
 * with a 'const char *' name (NULL names are skipped): within 2 edits (1
 * for an s of 4 or 5 characters, 0 for shorter), or having s as a prefix;
 * the first of the closest. NULL when none is near. */
const char *tpl_nearest_name(const char *s, const void *table, size_t n,
                             size_t stride);

#endif /* TPL_NAMES_H */
