package dev.muster.common.kube;

import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.openapi.models.V1ListMeta;
import io.kubernetes.client.openapi.models.V1Status;
import java.io.IOException;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * What the slim decoders ({@link SlimPodJson}, {@link SlimNodeJson}) share: watch events, list metadata, Status
 * objects, quantities kept as text, and typed scalar reads that name the field when a value has the wrong JSON type.
 * Everything is read from a Gson {@link JsonReader} in one pass; what a decoder does not ask for is skipped. Stateless
 * and thread-safe.
 */
final class SlimJson {
    private SlimJson() {}

    /** Reads one object of a watch stream or list. */
    @FunctionalInterface
    interface ObjectReader<T> {
        T read(JsonReader in) throws IOException;
    }

    /** One event of a watch stream: its type and either an object or (type {@code ERROR}) a status. */
    record Event<T>(String type, T object, V1Status status) {}

    /**
     * One watch event ({@code {"type": ..., "object": ...}}). The object is read as a Status when the type is
     * {@code ERROR}; should the object come before the type (the API server writes the type first), an error's code
     * and message are lost — the informer then relists, which is always safe.
     */
    static <T> Event<T> readEvent(JsonReader in, ObjectReader<T> objects) throws IOException {
        String type = null;
        T object = null;
        V1Status status = null;
        in.beginObject();
        while (in.hasNext()) {
            switch (in.nextName()) {
                case "type" -> type = string(in, "type");
                case "object" -> {
                    if ("ERROR".equals(type)) {
                        status = readStatus(in);
                    } else {
                        object = objects.read(in);
                    }
                }
                default -> in.skipValue();
            }
        }
        in.endObject();
        if (type == null) {
            throw new IOException("watch event without a type");
        }
        if ("ERROR".equals(type) && status == null) {
            status = new V1Status().kind("Status").status("Failure").message("watch error without a status");
        }
        return new Event<>(type, object, status);
    }

    /** A list object's parts: the typed list classes share no setters. */
    record ListParts<T>(String apiVersion, String kind, V1ListMeta metadata, List<T> items) {}

    /** A JSON array, each element read by {@code element} (as it answers, nulls too); {@code null} reads as empty. */
    static <T> List<T> array(JsonReader in, ObjectReader<T> element) throws IOException {
        List<T> out = new ArrayList<>();
        if (in.peek() == JsonToken.NULL) {
            in.nextNull();
            return out;
        }
        in.beginArray();
        while (in.hasNext()) {
            out.add(element.read(in));
        }
        in.endArray();
        return out;
    }

    /** A list ({@code PodList}, {@code NodeList}, ...): list metadata ({@code resourceVersion}, {@code continue}) and items. */
    static <T> ListParts<T> readList(JsonReader in, ObjectReader<T> items) throws IOException {
        String apiVersion = null;
        String kind = null;
        V1ListMeta metadata = null;
        List<T> out = new ArrayList<>();
        in.beginObject();
        while (in.hasNext()) {
            switch (in.nextName()) {
                case "apiVersion" -> apiVersion = string(in, "apiVersion");
                case "kind" -> kind = string(in, "kind");
                case "metadata" -> metadata = listMeta(in);
                case "items" -> out = array(in, items);
                default -> in.skipValue();
            }
        }
        in.endObject();
        return new ListParts<>(apiVersion, kind, metadata, out);
    }

    /** A string map, keeping only the keys {@code keep} accepts; null when none is kept. */
    static Map<String, String> strings(JsonReader in, String where, Predicate<String> keep) throws IOException {
        if (in.peek() == JsonToken.NULL) {
            in.nextNull();
            return null;
        }
        Map<String, String> kept = null;
        in.beginObject();
        while (in.hasNext()) {
            String key = in.nextName();
            if (keep.test(key)) {
                if (kept == null) {
                    kept = new HashMap<>(8);
                }
                kept.put(key, string(in, where + "." + key));
            } else {
                in.skipValue();
            }
        }
        in.endObject();
        return kept;
    }

    static V1Status readStatus(JsonReader in) throws IOException {
        V1Status s = new V1Status();
        in.beginObject();
        while (in.hasNext()) {
            switch (in.nextName()) {
                case "apiVersion" -> s.setApiVersion(string(in, "apiVersion"));
                case "kind" -> s.setKind(string(in, "kind"));
                case "status" -> s.setStatus(string(in, "status"));
                case "message" -> s.setMessage(string(in, "message"));
                case "reason" -> s.setReason(string(in, "reason"));
                case "code" -> s.setCode(integer(in, "code"));
                default -> in.skipValue();
            }
        }
        in.endObject();
        return s;
    }

    static V1ListMeta listMeta(JsonReader in) throws IOException {
        V1ListMeta m = new V1ListMeta();
        in.beginObject();
        while (in.hasNext()) {
            switch (in.nextName()) {
                case "resourceVersion" -> m.setResourceVersion(string(in, "metadata.resourceVersion"));
                case "continue" -> m.setContinue(string(in, "metadata.continue"));
                default -> in.skipValue();
            }
        }
        in.endObject();
        return m;
    }

    static Map<String, Quantity> quantities(JsonReader in, String where) throws IOException {
        if (in.peek() == JsonToken.NULL) {
            in.nextNull();
            return null;
        }
        Map<String, Quantity> out = new HashMap<>(4);
        in.beginObject();
        while (in.hasNext()) {
            String name = in.nextName();
            String value = string(in, where + "." + name);
            if (value != null) {
                out.put(name, new Text(value));
            }
        }
        in.endObject();
        return out;
    }

    /**
     * A quantity kept as the API server wrote it: {@link #toSuffixedString()} is that text, which is what
     * {@link ResourceLists#fromQuantities} parses (with the core's parser, which names a malformed value). client-java's
     * own parse (a regular expression compiled per call, then BigDecimal arithmetic) and its formatting back to text
     * were a tenth of the extender's allocation in the real loop; here they run only if the number itself is asked for.
     */
    static final class Text extends Quantity {
        private final String text;
        private volatile Quantity parsed; // lazily, only for getNumber/getFormat/equals

        Text(String text) {
            super(java.math.BigDecimal.ZERO, Format.DECIMAL_SI);
            this.text = text;
        }

        private Quantity parsed() {
            Quantity q = parsed;
            if (q == null) {
                q = new Quantity(text);
                parsed = q;
            }
            return q;
        }

        @Override
        public java.math.BigDecimal getNumber() {
            return parsed().getNumber();
        }

        @Override
        public Format getFormat() {
            return parsed().getFormat();
        }

        @Override
        public String toSuffixedString() {
            return text;
        }

        @Override
        public String toString() {
            return text;
        }

        /**
         * Equal texts are equal without a parse (pods' specs are compared when they are shared, {@link SlimPodSharing});
         * other quantities are compared by value, and a text that does not parse equals only the same text.
         */
        @Override
        public boolean equals(Object o) {
            if (o instanceof Text t && t.text.equals(text)) {
                return true;
            }
            try {
                return o instanceof Quantity q && parsed().equals(q instanceof Text t ? t.parsed() : q);
            } catch (RuntimeException malformed) {
                return false;
            }
        }

        /** The value in thousandths as the core parses it (equal values, equal hashes), or the text's when it does not parse. */
        @Override
        public int hashCode() {
            try {
                return Long.hashCode(dev.muster.core.resources.Quantities.parseMillis(text));
            } catch (RuntimeException malformed) {
                return text.hashCode();
            }
        }
    }

    static OffsetDateTime time(JsonReader in, String where) throws IOException {
        String s = string(in, where);
        try {
            return s == null ? null : OffsetDateTime.parse(s);
        } catch (DateTimeParseException e) {
            throw new IOException(where + ": not an RFC 3339 time: \"" + s + "\"", e);
        }
    }

    static String string(JsonReader in, String where) throws IOException {
        JsonToken t = in.peek();
        if (t == JsonToken.NULL) {
            in.nextNull();
            return null;
        }
        if (t != JsonToken.STRING) {
            throw new IOException(where + ": expected a string, found " + t);
        }
        return in.nextString();
    }

    static Long longValue(JsonReader in, String where) throws IOException {
        return number(in, where, false);
    }

    static Integer integer(JsonReader in, String where) throws IOException {
        Long n = number(in, where, true);
        return n == null ? null : n.intValue();
    }

    /** A JSON integer (null for JSON null) that fits 32 ({@code int32}) or 64 bits. */
    private static Long number(JsonReader in, String where, boolean int32) throws IOException {
        JsonToken t = in.peek();
        if (t == JsonToken.NULL) {
            in.nextNull();
            return null;
        }
        if (t != JsonToken.NUMBER) {
            throw new IOException(where + ": expected an integer, found " + t);
        }
        try {
            return int32 ? in.nextInt() : in.nextLong();
        } catch (NumberFormatException e) {
            throw new IOException(where + ": not an " + (int32 ? "int32" : "int64"), e);
        }
    }

    static Boolean bool(JsonReader in, String where) throws IOException {
        JsonToken t = in.peek();
        if (t == JsonToken.NULL) {
            in.nextNull();
            return null;
        }
        if (t != JsonToken.BOOLEAN) {
            throw new IOException(where + ": expected true or false, found " + t);
        }
        return in.nextBoolean();
    }
}
