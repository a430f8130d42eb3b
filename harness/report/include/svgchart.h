/* svgchart.h — the inline SVG charts of the HTML pages (`estimate --html`,
 * the deployment section of report.html): one value per x label, series
 * drawn as bars on the left axis or lines with points on the right axis,
 * axis tops rounded to a nice number, a legend below. Plain SVG and CSS,
 * no script: the pages stay self-contained.
 *
 * Owns: nothing; appends to the caller's buffer.
 */
#ifndef CDCH_SVGCHART_H
#define CDCH_SVGCHART_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

typedef struct cdch_chart_series {
    const char *name, *color; /* legend text, a CSS colour */
    const double *v;          /* n values */
    bool bars;                /* bars on the left axis; else a line on the right axis */
} cdch_chart_series;

/* The CSS the charts need (classes under .xchart), for the page's <style>. */
extern const char cdch_svgchart_css[];

/* A chart inside <div class="xchart">: x labels (n of them, HTML-safe text),
 * ns series, the left and right axes' units and the x axis' title. */
void cdch_svg_chart(cdch_buf *b, const char *const *xlabels, size_t n, const cdch_chart_series *s, size_t ns,
                    const char *lunit, const char *runit, const char *xtitle);

#endif
