package cdch.common;

// A Debezium change record as Kafka Connect's JsonConverter writes it with schemas ({"schema",
// "payload"}: Debezium's embedded engine with the Json format, Flink CDC's
// JsonDebeziumDeserializationSchema(true)) -> the canonical change line (consumers/README.md
// "Output"), by the Connect schema's logical types: Debezium's default decimal/time/binary modes and
// the ones a Debezium user may configure (decimal.handling.mode, time.precision.mode; a binary
// column's string under binary.handling.mode base64 / base64-url-safe / hex is told apart from text by
// the caller's Binary). Shared by the debezium and flink-cdc adapters, which add this source root
// (java-common/src/debezium/java) to their build: it needs Jackson, which both consumers ship and the
// other Java adapters do not (src/main/java stays dependency-free).

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;

public final class DebeziumCanon {
    public static final ObjectMapper JSON = new ObjectMapper();
    public static final JsonNodeFactory NF = JsonNodeFactory.instance;

    private DebeziumCanon() {
    }

    /** A binary column's bytes from its string value, or null when the column is text (or bytes come as bytes). */
    public interface Binary {
        byte[] decode(JsonNode schema, String text);
    }

    /** Binary columns come as Connect bytes (binary.handling.mode=bytes, the default). */
    public static final Binary BYTES = (schema, text) -> null;

    /** The canonical line of one record (JSON text), or null for what is no row change. */
    public static String line(String record) throws java.io.IOException {
        JsonNode rec = JSON.readTree(record);
        return canonical(rec.path("schema"), rec.path("payload"), BYTES);
    }

    /** The canonical line of a record's schema and payload, or null for what is no row change. */
    public static String canonical(JsonNode schema, JsonNode payload, Binary bin) {
        if (!payload.isObject() || !payload.has("op")) {
            return null;   // schema change, heartbeat, transaction metadata
        }
        String op;
        switch (payload.path("op").asText()) {
            case "c":
            case "r":
                op = "insert";
                break;
            case "u":
                op = "update";
                break;
            case "d":
                op = "delete";
                break;
            default:
                return null;
        }
        Map<String, JsonNode> fields = new HashMap<>();
        for (JsonNode f : schema.path("fields")) {
            fields.put(f.path("field").asText(), f);
        }
        JsonNode source = payload.path("source");
        ObjectNode out = NF.objectNode();
        out.put("op", op);
        out.put("db", source.path("db").asText());
        out.put("table", source.path("table").asText());
        out.set("before", image(fields.get("before"), payload.get("before"), bin));
        out.set("after", image(fields.get("after"), payload.get("after"), bin));
        JsonNode gtid = source.get("gtid");
        if (gtid != null && !gtid.isNull()) {
            out.put("gtid", gtid.asText());
        }
        if (source.hasNonNull("file")) {
            ObjectNode pos = NF.objectNode();
            pos.put("file", source.path("file").asText());
            pos.put("pos", source.path("pos").asLong());
            out.set("pos", pos);
        }
        return out.toString();
    }

    public static JsonNode image(JsonNode schema, JsonNode value, Binary bin) {
        if (value == null || value.isNull() || schema == null) {
            return NF.nullNode();
        }
        ObjectNode o = NF.objectNode();
        for (JsonNode f : schema.path("fields")) {
            String name = f.path("field").asText();
            o.set(name, value(f, value.get(name), bin));
        }
        return o;
    }

    public static JsonNode value(JsonNode s, JsonNode v, Binary bin) {
        if (v == null || v.isNull()) {
            return NF.nullNode();
        }
        String type = s.path("type").asText();
        String name = s.path("name").asText("");
        switch (name) {
            case "io.debezium.time.Date":
            case "org.apache.kafka.connect.data.Date":
                return NF.textNode(LocalDate.ofEpochDay(v.asLong()).toString());
            case "io.debezium.time.Time":
            case "org.apache.kafka.connect.data.Time":   // time.precision.mode=connect: milliseconds
                return NF.textNode(time(v.asLong() * 1000L));
            case "org.apache.kafka.connect.data.Timestamp":   // time.precision.mode=connect: milliseconds
                return NF.textNode(datetime(v.asLong() * 1000L));
            case "io.debezium.time.IsoDate":   // time.precision.mode=isostring: "2023-11-21Z"
                return NF.textNode(LocalDate.parse(v.asText().replaceFirst("(Z|[+-]\\d\\d:\\d\\d)$", "")).toString());
            case "io.debezium.time.IsoTime": {   // "10:15:30.5Z"
                java.time.LocalTime t = java.time.OffsetTime.parse(v.asText()).withOffsetSameInstant(ZoneOffset.UTC).toLocalTime();
                return NF.textNode(time(t.toNanoOfDay() / 1000L));
            }
            case "io.debezium.time.IsoTimestamp": {   // "2023-11-21T18:29:26.5Z"
                Instant i = OffsetDateTime.parse(v.asText()).toInstant();
                return NF.textNode(datetime(i.getEpochSecond() * 1_000_000L + i.getNano() / 1000));
            }
            case "io.debezium.time.MicroTime":
                return NF.textNode(time(v.asLong()));
            case "io.debezium.time.NanoTime":
                return NF.textNode(time(v.asLong() / 1000L));
            case "io.debezium.time.Timestamp":
                return NF.textNode(datetime(v.asLong() * 1000L));
            case "io.debezium.time.MicroTimestamp":
                return NF.textNode(datetime(v.asLong()));
            case "io.debezium.time.NanoTimestamp":
                return NF.textNode(datetime(Math.floorDiv(v.asLong(), 1000L)));
            case "io.debezium.time.ZonedTimestamp": {
                Instant i = OffsetDateTime.parse(v.asText()).toInstant();
                return NF.textNode(datetime(i.getEpochSecond() * 1_000_000L + i.getNano() / 1000));
            }
            case "io.debezium.time.Year":
                return NF.numberNode(v.asInt());
            case "org.apache.kafka.connect.data.Decimal": {
                int scale = Integer.parseInt(s.path("parameters").path("scale").asText("0"));
                BigDecimal d = v.isTextual() ? new BigDecimal(new BigInteger(Base64.getDecoder().decode(v.asText())), scale) : v.decimalValue();
                return scale == 0 ? integer(d.toBigIntegerExact()) : NF.textNode(d.toPlainString());
            }
            case "io.debezium.data.Json":
                try {
                    return JSON.readTree(v.asText());
                } catch (Exception ex) {
                    return NF.textNode(v.asText());
                }
            case "io.debezium.data.Bits": {
                if (v.isBoolean()) {
                    return NF.numberNode(v.asBoolean() ? 1 : 0);
                }
                byte[] b = Base64.getDecoder().decode(v.asText());   // little-endian
                byte[] be = new byte[b.length + 1];
                for (int i = 0; i < b.length; i++) {
                    be[be.length - 1 - i] = b[i];
                }
                return integer(new BigInteger(be));
            }
            case "io.debezium.data.Enum":
                return NF.textNode(v.asText());
            case "io.debezium.data.EnumSet": {
                ArrayNode a = NF.arrayNode();
                if (!v.asText().isEmpty()) {
                    for (String member : v.asText().split(",", -1)) {
                        a.add(member);
                    }
                }
                return a;
            }
            case "io.debezium.data.geometry.Geometry":
            case "io.debezium.data.geometry.Point":
            case "io.debezium.data.geometry.Geography": {
                ObjectNode g = NF.objectNode();
                g.put("srid", v.path("srid").isNull() ? 0 : v.path("srid").asInt());
                g.put("wkb", Json.hex(Base64.getDecoder().decode(v.path("wkb").asText()), 0));
                return g;
            }
            default:
                break;
        }
        switch (type) {
            case "boolean":   // BIT(1) (and TINYINT(1) with a converter)
                return NF.numberNode(v.asBoolean() ? 1 : 0);
            case "string": {
                byte[] b = v.isTextual() ? bin.decode(s, v.asText()) : null;
                if (b != null) {
                    ObjectNode o = NF.objectNode();
                    o.put("base64", Base64.getEncoder().encodeToString(b));
                    return o;
                }
                return v;
            }
            case "bytes":
                if (v.isTextual()) {
                    ObjectNode b = NF.objectNode();
                    b.put("base64", v.asText());
                    return b;
                }
                return v;
            case "array": {   // e.g. vectors
                ArrayNode a = NF.arrayNode();
                for (JsonNode x : v) {
                    a.add(value(s.path("items"), x, bin));
                }
                return a;
            }
            default:
                return v;
        }
    }

    public static JsonNode integer(BigInteger b) {
        if (b.bitLength() < 64) {
            return NF.numberNode(b.longValue());
        }
        return NF.textNode(b.toString());
    }

    public static String frac(long micros) {
        if (micros == 0) {
            return "";
        }
        return String.format(".%06d", micros);
    }

    public static String time(long micros) {
        String sign = micros < 0 ? "-" : "";
        long m = Math.abs(micros);
        long secs = m / 1_000_000L;
        return String.format("%s%02d:%02d:%02d%s", sign, secs / 3600, (secs / 60) % 60, secs % 60, frac(m % 1_000_000L));
    }

    public static String datetime(long micros) {
        long secs = Math.floorDiv(micros, 1_000_000L);
        long f = Math.floorMod(micros, 1_000_000L);
        LocalDateTime t = LocalDateTime.ofEpochSecond(secs, 0, ZoneOffset.UTC);
        return String.format("%04d-%02d-%02d %02d:%02d:%02d%s", t.getYear(), t.getMonthValue(), t.getDayOfMonth(),
                t.getHour(), t.getMinute(), t.getSecond(), frac(f));
    }
}
