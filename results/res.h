/* results/res.h: what every report of results/ includes: the writer kit
 * (writer.h) and the search's and predictor's results it formats. The
 * reports and their writers by format are in report.h. */
#ifndef RES_H
#define RES_H

#include "predictor/pred.h"
#include "results/writer.h"
#include "search/search.h"

#endif /* RES_H */
