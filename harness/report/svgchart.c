/* svgchart.c — inline SVG charts (svgchart.h). */
#include "svgchart.h"

const char cdch_svgchart_css[] =
    ".xchart svg .grid{stroke:#dde1e7}.xchart svg text{font-size:11px;fill:#5d6675}.xchart svg .tl{text-anchor:end}"
    ".xchart svg .tx,.xchart svg .ax{text-anchor:middle}.xchart svg .ax{font-size:12px}\n"
    ".xchart .xlegend{display:flex;flex-wrap:wrap;gap:16px;font-size:12.5px;color:#5d6675;margin-top:6px}"
    ".xchart .xlegend i{display:inline-block;width:12px;height:12px;border-radius:2px;margin-right:6px;"
    "vertical-align:-1px}\n";

/* The axis top: v rounded up to 1, 2, 2.5, 4, 5 or 8 times a power of ten (ticks at quarters). */
static double nice_top(double v)
{
    double p = 1;
    while (p * 10 <= v)
        p *= 10;
    while (p > v)
        p /= 10;
    static const double steps[] = {1, 2, 2.5, 4, 5, 8, 10};
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
        if (steps[i] * p >= v)
            return steps[i] * p;
    return 10 * p;
}

static double series_max(const cdch_chart_series *s, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++)
        if (s->v[i] > m)
            m = s->v[i];
    return m > 0 ? m : 1;
}

void cdch_svg_chart(cdch_buf *b, const char *const *xlabels, size_t n, const cdch_chart_series *s, size_t ns,
                    const char *lunit, const char *runit, const char *xtitle)
{
    const double W = 760, H = 300, L = 70, R = 70, T = 20, B = 40, pw = W - L - R, ph = H - T - B;
    double lmax = 0, rmax = 0;
    size_t nbars = 0;
    for (size_t k = 0; k < ns; k++) {
        double m = series_max(&s[k], n);
        if (s[k].bars) {
            lmax = m > lmax ? m : lmax;
            nbars++;
        } else {
            rmax = m > rmax ? m : rmax;
        }
    }
    lmax = nice_top(lmax > 0 ? lmax * 1.05 : 1);
    rmax = nice_top(rmax > 0 ? rmax * 1.05 : 1);
    double slot = pw / (double)(n ? n : 1);
    cdch_buf_printf(b, "<div class=\"xchart\"><svg viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" role=\"img\">\n",
                    W, H, W, H);
    for (int t = 0; t <= 4; t++) { /* grid and both axes' ticks */
        double y = T + ph - ph * t / 4.0;
        cdch_buf_printf(b,
                        "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>"
                        "<text x=\"%.0f\" y=\"%.1f\" class=\"tl\">%.3g</text>",
                        L, W - R, y, y, L - 6, y + 4, lmax * t / 4.0);
        if (ns > nbars)
            cdch_buf_printf(b, "<text x=\"%.0f\" y=\"%.1f\">%.3g</text>", W - R + 6, y + 4, rmax * t / 4.0);
        cdch_put_str(b, "\n");
    }
    cdch_buf_printf(b, "<text x=\"12\" y=\"%.0f\" class=\"ax\" transform=\"rotate(-90 12 %.0f)\">%s</text>\n",
                    T + ph / 2, T + ph / 2, lunit);
    if (ns > nbars)
        cdch_buf_printf(b, "<text x=\"%.0f\" y=\"%.0f\" class=\"ax\" transform=\"rotate(90 %.0f %.0f)\">%s</text>\n",
                        W - 12, T + ph / 2, W - 12, T + ph / 2, runit);
    size_t bi = 0;
    for (size_t k = 0; k < ns; k++) {
        if (s[k].bars) {
            double bw = slot * 0.7 / (double)nbars;
            for (size_t i = 0; i < n; i++) {
                double h = ph * s[k].v[i] / lmax, x = L + slot * (double)i + slot * 0.15 + bw * (double)bi;
                cdch_buf_printf(b,
                                "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">"
                                "<title>%s: %.4g</title></rect>\n",
                                x, T + ph - h, bw, h, s[k].color, s[k].name, s[k].v[i]);
            }
            bi++;
            continue;
        }
        cdch_buf_printf(b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", s[k].color);
        for (size_t i = 0; i < n; i++)
            cdch_buf_printf(b, "%.1f,%.1f ", L + slot * ((double)i + 0.5), T + ph - ph * s[k].v[i] / rmax);
        cdch_put_str(b, "\"/>\n");
        for (size_t i = 0; i < n; i++)
            cdch_buf_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>%s: %.4g</title></circle>\n",
                            L + slot * ((double)i + 0.5), T + ph - ph * s[k].v[i] / rmax, s[k].color, s[k].name,
                            s[k].v[i]);
    }
    for (size_t i = 0; i < n; i++)
        cdch_buf_printf(b, "<text x=\"%.1f\" y=\"%.0f\" class=\"tx\">%s</text>", L + slot * ((double)i + 0.5),
                        T + ph + 18, xlabels[i]);
    cdch_buf_printf(b, "\n<text x=\"%.0f\" y=\"%.0f\" class=\"tx\">%s</text>\n</svg>\n<div class=\"xlegend\">",
                    L + pw / 2, H - 4, xtitle);
    for (size_t k = 0; k < ns; k++)
        cdch_buf_printf(b, "<span><i style=\"background:%s\"></i>%s</span>", s[k].color, s[k].name);
    cdch_put_str(b, "</div></div>\n");
}
