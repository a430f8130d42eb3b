/* collation.c — MySQL 8 character sets and collations (ids as in
 * information_schema.COLLATIONS, which TABLE_MAP optional metadata
 * carries) and conversion of the scenario's UTF-8 text into a column's
 * charset, the bytes MySQL logs.
 *
 * latin1 is MySQL's latin1, i.e. Windows-1252 (0x80..0x9F hold the cp1252
 * characters; the five cp1252 holes map to the same C1 controls).
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "scenario_internal.h"

typedef struct charset_info {
    const char *name;
    unsigned mbmaxlen;
    sc_cs kind;
} charset_info;

static const charset_info k_charsets[] = {
    {"big5", 2, SC_CS_OTHER},     {"dec8", 1, SC_CS_OTHER},     {"cp850", 1, SC_CS_OTHER},
    {"hp8", 1, SC_CS_OTHER},      {"koi8r", 1, SC_CS_OTHER},    {"latin1", 1, SC_CS_LATIN1},
    {"latin2", 1, SC_CS_OTHER},   {"swe7", 1, SC_CS_OTHER},     {"ascii", 1, SC_CS_ASCII},
    {"ujis", 3, SC_CS_OTHER},     {"sjis", 2, SC_CS_OTHER},     {"hebrew", 1, SC_CS_OTHER},
    {"tis620", 1, SC_CS_OTHER},   {"euckr", 2, SC_CS_OTHER},    {"koi8u", 1, SC_CS_OTHER},
    {"gb2312", 2, SC_CS_OTHER},   {"greek", 1, SC_CS_OTHER},    {"cp1250", 1, SC_CS_OTHER},
    {"gbk", 2, SC_CS_OTHER},      {"latin5", 1, SC_CS_OTHER},   {"armscii8", 1, SC_CS_OTHER},
    {"utf8mb3", 3, SC_CS_UTF8MB3}, {"ucs2", 2, SC_CS_UCS2},     {"cp866", 1, SC_CS_OTHER},
    {"keybcs2", 1, SC_CS_OTHER},  {"macce", 1, SC_CS_OTHER},    {"macroman", 1, SC_CS_OTHER},
    {"cp852", 1, SC_CS_OTHER},    {"latin7", 1, SC_CS_OTHER},   {"utf8mb4", 4, SC_CS_UTF8MB4},
    {"cp1251", 1, SC_CS_OTHER},   {"utf16", 4, SC_CS_UTF16},    {"utf16le", 4, SC_CS_UTF16LE},
    {"cp1256", 1, SC_CS_OTHER},   {"cp1257", 1, SC_CS_OTHER},   {"utf32", 4, SC_CS_UTF32},
    {"binary", 1, SC_CS_BINARY},  {"geostd8", 1, SC_CS_OTHER},  {"cp932", 2, SC_CS_OTHER},
    {"eucjpms", 3, SC_CS_OTHER},  {"gb18030", 4, SC_CS_OTHER},
};
#define N_CHARSETS (sizeof k_charsets / sizeof k_charsets[0])

typedef struct collation_info {
    uint32_t id;
    const char *name;
    const char *charset;
    bool is_default;
} collation_info;

/* The common MySQL 8.0 collations (information_schema.COLLATIONS). */
static const collation_info k_collations[] = {
    {1, "big5_chinese_ci", "big5", true},
    {3, "dec8_swedish_ci", "dec8", true},
    {4, "cp850_general_ci", "cp850", true},
    {5, "latin1_german1_ci", "latin1", false},
    {6, "hp8_english_ci", "hp8", true},
    {7, "koi8r_general_ci", "koi8r", true},
    {8, "latin1_swedish_ci", "latin1", true},
    {9, "latin2_general_ci", "latin2", true},
    {10, "swe7_swedish_ci", "swe7", true},
    {11, "ascii_general_ci", "ascii", true},
    {12, "ujis_japanese_ci", "ujis", true},
    {13, "sjis_japanese_ci", "sjis", true},
    {14, "cp1251_bulgarian_ci", "cp1251", false},
    {15, "latin1_danish_ci", "latin1", false},
    {16, "hebrew_general_ci", "hebrew", true},
    {18, "tis620_thai_ci", "tis620", true},
    {19, "euckr_korean_ci", "euckr", true},
    {22, "koi8u_general_ci", "koi8u", true},
    {24, "gb2312_chinese_ci", "gb2312", true},
    {25, "greek_general_ci", "greek", true},
    {26, "cp1250_general_ci", "cp1250", true},
    {28, "gbk_chinese_ci", "gbk", true},
    {30, "latin5_turkish_ci", "latin5", true},
    {31, "latin1_german2_ci", "latin1", false},
    {32, "armscii8_general_ci", "armscii8", true},
    {33, "utf8mb3_general_ci", "utf8mb3", true},
    {35, "ucs2_general_ci", "ucs2", true},
    {36, "cp866_general_ci", "cp866", true},
    {37, "keybcs2_general_ci", "keybcs2", true},
    {38, "macce_general_ci", "macce", true},
    {39, "macroman_general_ci", "macroman", true},
    {40, "cp852_general_ci", "cp852", true},
    {41, "latin7_general_ci", "latin7", true},
    {45, "utf8mb4_general_ci", "utf8mb4", false},
    {46, "utf8mb4_bin", "utf8mb4", false},
    {47, "latin1_bin", "latin1", false},
    {48, "latin1_general_ci", "latin1", false},
    {49, "latin1_general_cs", "latin1", false},
    {50, "cp1251_bin", "cp1251", false},
    {51, "cp1251_general_ci", "cp1251", true},
    {54, "utf16_general_ci", "utf16", true},
    {55, "utf16_bin", "utf16", false},
    {56, "utf16le_general_ci", "utf16le", true},
    {57, "cp1256_general_ci", "cp1256", true},
    {59, "cp1257_general_ci", "cp1257", true},
    {60, "utf32_general_ci", "utf32", true},
    {61, "utf32_bin", "utf32", false},
    {62, "utf16le_bin", "utf16le", false},
    {63, "binary", "binary", true},
    {65, "ascii_bin", "ascii", false},
    {77, "latin2_bin", "latin2", false},
    {83, "utf8mb3_bin", "utf8mb3", false},
    {84, "big5_bin", "big5", false},
    {87, "gbk_bin", "gbk", false},
    {88, "sjis_bin", "sjis", false},
    {90, "ucs2_bin", "ucs2", false},
    {92, "geostd8_general_ci", "geostd8", true},
    {94, "latin1_spanish_ci", "latin1", false},
    {95, "cp932_japanese_ci", "cp932", true},
    {97, "eucjpms_japanese_ci", "eucjpms", true},
    {101, "utf16_unicode_ci", "utf16", false},
    {128, "ucs2_unicode_ci", "ucs2", false},
    {160, "utf32_unicode_ci", "utf32", false},
    {192, "utf8mb3_unicode_ci", "utf8mb3", false},
    {214, "utf8mb3_unicode_520_ci", "utf8mb3", false},
    {223, "utf8mb3_general_mysql500_ci", "utf8mb3", false},
    {224, "utf8mb4_unicode_ci", "utf8mb4", false},
    {246, "utf8mb4_unicode_520_ci", "utf8mb4", false},
    {248, "gb18030_chinese_ci", "gb18030", true},
    {249, "gb18030_bin", "gb18030", false},
    {250, "gb18030_unicode_520_ci", "gb18030", false},
    {255, "utf8mb4_0900_ai_ci", "utf8mb4", true},
    {256, "utf8mb4_de_pb_0900_ai_ci", "utf8mb4", false},
    {264, "utf8mb4_sv_0900_ai_ci", "utf8mb4", false},
    {265, "utf8mb4_tr_0900_ai_ci", "utf8mb4", false},
    {263, "utf8mb4_es_0900_ai_ci", "utf8mb4", false},
    {278, "utf8mb4_0900_as_cs", "utf8mb4", false},
    {303, "utf8mb4_ja_0900_as_cs", "utf8mb4", false},
    {305, "utf8mb4_0900_as_ci", "utf8mb4", false},
    {306, "utf8mb4_ru_0900_ai_ci", "utf8mb4", false},
    {308, "utf8mb4_zh_0900_as_cs", "utf8mb4", false},
    {309, "utf8mb4_0900_bin", "utf8mb4", false},
};
#define N_COLLATIONS (sizeof k_collations / sizeof k_collations[0])

static const charset_info *find_charset(const char *name)
{
    if (!name)
        return NULL;
    if (strcasecmp(name, "utf8") == 0)
        name = "utf8mb3";
    for (size_t i = 0; i < N_CHARSETS; i++)
        if (strcasecmp(k_charsets[i].name, name) == 0)
            return &k_charsets[i];
    return NULL;
}

/* "utf8_bin" -> "utf8mb3_bin" (MySQL 8.0 still accepts the old names). */
static const collation_info *find_collation(const char *name)
{
    if (!name)
        return NULL;
    char buf[96];
    if (strncasecmp(name, "utf8_", 5) == 0 && strlen(name) < sizeof buf - 3) {
        snprintf(buf, sizeof buf, "utf8mb3_%s", name + 5);
        name = buf;
    }
    for (size_t i = 0; i < N_COLLATIONS; i++)
        if (strcasecmp(k_collations[i].name, name) == 0)
            return &k_collations[i];
    return NULL;
}

uint32_t cdch_collation_id(const char *collation)
{
    const collation_info *c = find_collation(collation);
    return c ? c->id : 0;
}

const char *cdch_collation_name(uint32_t id)
{
    for (size_t i = 0; i < N_COLLATIONS; i++)
        if (k_collations[i].id == id)
            return k_collations[i].name;
    return NULL;
}

const char *cdch_default_collation(const char *charset)
{
    const charset_info *cs = find_charset(charset);
    if (!cs)
        return NULL;
    for (size_t i = 0; i < N_COLLATIONS; i++)
        if (k_collations[i].is_default && strcmp(k_collations[i].charset, cs->name) == 0)
            return k_collations[i].name;
    return NULL;
}

uint32_t cdch_charset_mbmaxlen(const char *charset)
{
    const charset_info *cs = find_charset(charset);
    return cs ? cs->mbmaxlen : 0;
}

sc_cs sc_charset_kind(const char *charset)
{
    const charset_info *cs = find_charset(charset);
    return cs ? cs->kind : SC_CS_OTHER;
}

const char *sc_charset_canon(const char *charset)
{
    const charset_info *cs = find_charset(charset);
    return cs ? cs->name : NULL;
}

const char *sc_collation_charset(const char *collation)
{
    const collation_info *c = find_collation(collation);
    return c ? c->charset : NULL;
}

const char *sc_collation_canon(const char *collation)
{
    const collation_info *c = find_collation(collation);
    return c ? c->name : NULL;
}

/* ---- UTF-8 -------------------------------------------------------------------- */

int sc_utf8_next(const char *s, size_t len, size_t *i, uint32_t *cp)
{
    const unsigned char *p = (const unsigned char *)s + *i;
    size_t n = len - *i;
    if (n == 0)
        return -1;
    unsigned char c = p[0];
    uint32_t v;
    size_t k;
    if (c < 0x80) {
        *cp = c;
        (*i)++;
        return 0;
    } else if (c >= 0xC2 && c <= 0xDF) {
        v = c & 0x1F;
        k = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
        v = c & 0x0F;
        k = 2;
    } else if (c >= 0xF0 && c <= 0xF4) {
        v = c & 0x07;
        k = 3;
    } else {
        return -1;
    }
    if (n < k + 1)
        return -1;
    for (size_t j = 1; j <= k; j++) {
        if ((p[j] & 0xC0) != 0x80)
            return -1;
        v = v << 6 | (p[j] & 0x3F);
    }
    if ((k == 2 && (v < 0x800 || (v >= 0xD800 && v <= 0xDFFF))) || (k == 3 && (v < 0x10000 || v > 0x10FFFF)))
        return -1;
    *cp = v;
    *i += k + 1;
    return 0;
}

void sc_utf8_put(cdch_buf *b, uint32_t cp)
{
    if (cp < 0x80) {
        cdch_put_u8(b, (uint8_t)cp);
    } else if (cp < 0x800) {
        cdch_put_u8(b, (uint8_t)(0xC0 | cp >> 6));
        cdch_put_u8(b, (uint8_t)(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        cdch_put_u8(b, (uint8_t)(0xE0 | cp >> 12));
        cdch_put_u8(b, (uint8_t)(0x80 | ((cp >> 6) & 0x3F)));
        cdch_put_u8(b, (uint8_t)(0x80 | (cp & 0x3F)));
    } else {
        cdch_put_u8(b, (uint8_t)(0xF0 | cp >> 18));
        cdch_put_u8(b, (uint8_t)(0x80 | ((cp >> 12) & 0x3F)));
        cdch_put_u8(b, (uint8_t)(0x80 | ((cp >> 6) & 0x3F)));
        cdch_put_u8(b, (uint8_t)(0x80 | (cp & 0x3F)));
    }
}

/* cp1252 0x80..0x9F */
static const uint16_t k_cp1252_hi[32] = {
    0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
    0x2039, 0x0152, 0x008D, 0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
    0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
};

static int latin1_byte(uint32_t cp)
{
    if (cp < 0x80 || (cp >= 0xA0 && cp <= 0xFF))
        return (int)cp;
    for (int i = 0; i < 32; i++)
        if (k_cp1252_hi[i] == cp)
            return 0x80 + i;
    return -1;
}

int sc_charset_encode(sc_cs cs, const char *charset, const char *utf8, size_t len, cdch_arena *a,
                      const uint8_t **out, size_t *out_len, size_t *nchars, cdch_err *err)
{
    size_t n = 0;
    if (cs == SC_CS_BINARY) {
        *out = cdch_arena_memdup(a, utf8, len);
        *out_len = len;
        *nchars = len;
        return 0;
    }
    cdch_buf b = CDCH_BUF_INIT;
    size_t i = 0;
    while (i < len) {
        uint32_t cp;
        size_t at = i;
        if (sc_utf8_next(utf8, len, &i, &cp) < 0) {
            cdch_buf_free(&b);
            return cdch_err_set(err, "invalid UTF-8 at byte %zu of the text", at);
        }
        n++;
        switch (cs) {
        case SC_CS_UTF8MB4: cdch_put_bytes(&b, utf8 + at, i - at); break;
        case SC_CS_UTF8MB3:
            if (cp > 0xFFFF) {
                cdch_buf_free(&b);
                return cdch_err_set(err, "character U+%04X needs 4 bytes in UTF-8, which utf8mb3 cannot store "
                                         "(use utf8mb4)", cp);
            }
            cdch_put_bytes(&b, utf8 + at, i - at);
            break;
        case SC_CS_ASCII:
        case SC_CS_OTHER:
            if (cp > 0x7F) {
                cdch_buf_free(&b);
                if (cs == SC_CS_ASCII)
                    return cdch_err_set(err, "character U+%04X is not ASCII (column charset ascii)", cp);
                return cdch_err_set(err,
                                    "character U+%04X: text for charset %s must be ASCII here (give other "
                                    "characters as raw bytes: {hex: ...})",
                                    cp, charset);
            }
            cdch_put_u8(&b, (uint8_t)cp);
            break;
        case SC_CS_LATIN1: {
            int c = latin1_byte(cp);
            if (c < 0) {
                cdch_buf_free(&b);
                return cdch_err_set(err, "character U+%04X cannot be stored in latin1 (cp1252)", cp);
            }
            cdch_put_u8(&b, (uint8_t)c);
            break;
        }
        case SC_CS_UCS2:
            if (cp > 0xFFFF) {
                cdch_buf_free(&b);
                return cdch_err_set(err, "character U+%04X is outside the BMP, which ucs2 cannot store", cp);
            }
            cdch_put_be(&b, cp, 2);
            break;
        case SC_CS_UTF16:
        case SC_CS_UTF16LE: {
            uint32_t u[2];
            int k = 1;
            if (cp > 0xFFFF) {
                u[0] = 0xD800 + ((cp - 0x10000) >> 10);
                u[1] = 0xDC00 + ((cp - 0x10000) & 0x3FF);
                k = 2;
            } else {
                u[0] = cp;
            }
            for (int j = 0; j < k; j++) {
                if (cs == SC_CS_UTF16)
                    cdch_put_be(&b, u[j], 2);
                else
                    cdch_put_le(&b, u[j], 2);
            }
            break;
        }
        case SC_CS_UTF32: cdch_put_be(&b, cp, 4); break;
        default: break;
        }
    }
    *out = cdch_arena_memdup(a, b.data ? (const void *)b.data : "", b.len);
    *out_len = b.len;
    *nchars = n;
    cdch_buf_free(&b);
    return 0;
}

size_t sc_charset_count(sc_cs cs, const uint8_t *p, size_t len)
{
    size_t n = 0;
    switch (cs) {
    case SC_CS_UTF8MB4:
    case SC_CS_UTF8MB3:
        for (size_t i = 0; i < len; i++)
            if ((p[i] & 0xC0) != 0x80)
                n++;
        return n;
    case SC_CS_UCS2: return (len + 1) / 2;
    case SC_CS_UTF16:
    case SC_CS_UTF16LE:
        for (size_t i = 0; i + 1 < len; i += 2) {
            unsigned u = cs == SC_CS_UTF16 ? (unsigned)(p[i] << 8 | p[i + 1]) : (unsigned)(p[i + 1] << 8 | p[i]);
            if (u < 0xDC00 || u > 0xDFFF)
                n++;
        }
        return n + (len & 1);
    case SC_CS_UTF32: return (len + 3) / 4;
    default: return len;
    }
}

size_t sc_charset_strip_pad(sc_cs cs, const uint8_t *p, size_t len)
{
    switch (cs) {
    case SC_CS_BINARY:
        while (len > 0 && p[len - 1] == 0)
            len--;
        return len;
    case SC_CS_UCS2:
    case SC_CS_UTF16:
        while (len >= 2 && p[len - 2] == 0 && p[len - 1] == ' ')
            len -= 2;
        return len;
    case SC_CS_UTF16LE:
        while (len >= 2 && p[len - 2] == ' ' && p[len - 1] == 0)
            len -= 2;
        return len;
    case SC_CS_UTF32:
        while (len >= 4 && p[len - 4] == 0 && p[len - 3] == 0 && p[len - 2] == 0 && p[len - 1] == ' ')
            len -= 4;
        return len;
    default:
        while (len > 0 && p[len - 1] == ' ')
            len--;
        return len;
    }
}
