package cdch.common;

import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The adapters' own JSON: the canonical string writer and value forms of consumers/README.md
 * "Output" ({"base64":...}, {"srid":N,"wkb":"<hex>"}), and a strict little reader (the session
 * protocol's lines; Canal validates JSON column text with it). No dependency: every adapter
 * compiles this in, whatever its consumer ships.
 */
public final class Json {
    private Json() {
    }

    /** s as a JSON string ("null" for null): quote, backslash and control characters escaped. */
    public static String quote(String s) {
        if (s == null) {
            return "null";
        }
        StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            switch (ch) {
                case '"': sb.append("\\\""); break;
                case '\\': sb.append("\\\\"); break;
                case '\n': sb.append("\\n"); break;
                case '\r': sb.append("\\r"); break;
                case '\t': sb.append("\\t"); break;
                default:
                    if (ch < 0x20) {
                        sb.append(String.format("\\u%04x", (int) ch));
                    } else {
                        sb.append(ch);
                    }
            }
        }
        return sb.append('"').toString();
    }

    /** Binary bytes as the canonical {"base64":"..."}. */
    public static String base64(byte[] b) {
        return "{\"base64\":\"" + Base64.getEncoder().encodeToString(b) + "\"}";
    }

    /** b[from..] as lowercase hex. */
    public static String hex(byte[] b, int from) {
        StringBuilder sb = new StringBuilder(Math.max(0, b.length - from) * 2);
        for (int i = from; i < b.length; i++) {
            sb.append(Character.forDigit((b[i] >> 4) & 15, 16)).append(Character.forDigit(b[i] & 15, 16));
        }
        return sb.toString();
    }

    /** A MySQL geometry value (4-byte little-endian SRID, then WKB; at least 4 bytes) as {"srid","wkb"}. */
    public static String geometry(byte[] b) {
        long srid = (b[0] & 0xffL) | (b[1] & 0xffL) << 8 | (b[2] & 0xffL) << 16 | (b[3] & 0xffL) << 24;
        return "{\"srid\":" + srid + ",\"wkb\":\"" + hex(b, 4) + "\"}";
    }

    /**
     * Parses one JSON text strictly: objects as Map (in order), arrays as List, strings, numbers
     * as their text, true/false as Boolean, null. Throws a RuntimeException on anything else.
     */
    public static Object parse(String s) {
        Reader r = new Reader(s);
        Object v = r.any();
        r.ws();
        if (r.i != s.length()) {
            throw new IllegalArgumentException("trailing text at " + r.i);
        }
        return v;
    }

    private static final class Reader {
        final String s;
        int i;

        Reader(String s) {
            this.s = s;
        }

        void ws() {
            while (i < s.length() && (s.charAt(i) == ' ' || s.charAt(i) == '\t' || s.charAt(i) == '\n' || s.charAt(i) == '\r')) {
                i++;
            }
        }

        char peek() {
            if (i >= s.length()) {
                throw new IllegalArgumentException("unexpected end");
            }
            return s.charAt(i);
        }

        void expect(char c) {
            if (peek() != c) {
                throw new IllegalArgumentException("expected " + c + " at " + i);
            }
            i++;
        }

        Object any() {
            ws();
            char c = peek();
            if (c == '{') {
                return object();
            }
            if (c == '[') {
                return array();
            }
            if (c == '"') {
                return string();
            }
            for (String w : new String[] {"true", "false", "null"}) {
                if (s.startsWith(w, i)) {
                    i += w.length();
                    return w.equals("null") ? null : Boolean.valueOf(w);
                }
            }
            return number();
        }

        Map<String, Object> object() {
            i++;
            Map<String, Object> m = new LinkedHashMap<>();
            ws();
            if (peek() == '}') {
                i++;
                return m;
            }
            while (true) {
                ws();
                String k = string();
                ws();
                expect(':');
                m.put(k, any());
                ws();
                if (peek() == ',') {
                    i++;
                    continue;
                }
                expect('}');
                return m;
            }
        }

        List<Object> array() {
            i++;
            List<Object> l = new ArrayList<>();
            ws();
            if (peek() == ']') {
                i++;
                return l;
            }
            while (true) {
                l.add(any());
                ws();
                if (peek() == ',') {
                    i++;
                    continue;
                }
                expect(']');
                return l;
            }
        }

        String number() {
            int st = i;
            if (peek() == '-') {
                i++;
            }
            digits();
            if (i < s.length() && s.charAt(i) == '.') {
                i++;
                digits();
            }
            if (i < s.length() && (s.charAt(i) == 'e' || s.charAt(i) == 'E')) {
                i++;
                if (i < s.length() && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
                    i++;
                }
                digits();
            }
            return s.substring(st, i);
        }

        void digits() {
            int st = i;
            while (i < s.length() && Character.isDigit(s.charAt(i))) {
                i++;
            }
            if (i == st) {
                throw new IllegalArgumentException("bad number at " + st);
            }
        }

        String string() {
            expect('"');
            StringBuilder sb = new StringBuilder();
            while (true) {
                char c = peek();
                i++;
                if (c == '"') {
                    return sb.toString();
                }
                if (c < 0x20) {
                    throw new IllegalArgumentException("control character in string");
                }
                if (c == '\\') {
                    escape(sb);
                } else {
                    sb.append(c);
                }
            }
        }

        void escape(StringBuilder sb) {
            char e = peek();
            i++;
            switch (e) {
                case '"': sb.append('"'); break;
                case '\\': sb.append('\\'); break;
                case '/': sb.append('/'); break;
                case 'b': sb.append('\b'); break;
                case 'f': sb.append('\f'); break;
                case 'n': sb.append('\n'); break;
                case 'r': sb.append('\r'); break;
                case 't': sb.append('\t'); break;
                case 'u':
                    if (i + 4 > s.length()) {
                        throw new IllegalArgumentException("bad \\u escape");
                    }
                    sb.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                    i += 4;
                    break;
                default:
                    throw new IllegalArgumentException("bad escape");
            }
        }
    }
}
