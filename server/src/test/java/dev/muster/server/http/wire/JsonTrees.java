package dev.muster.server.http.wire;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * Test-side plain JSON handling, independent of the codec under test: parse into generic trees
 * (Map / List / String / BigDecimal / Boolean / null) and rewrite keys of a body.
 */
final class JsonTrees {
    private static final JsonFactory FACTORY = new JsonFactory();

    private JsonTrees() {}

    static Object parse(byte[] json) {
        try (JsonParser p = FACTORY.createParser(json)) {
            p.nextToken();
            Object tree = read(p);
            if (p.nextToken() != null) {
                throw new IllegalArgumentException("trailing data");
            }
            return tree;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Checks that {@code json} is one well-formed JSON value (duplicate keys allowed, as in Go). */
    static void wellFormed(byte[] json) {
        try (JsonParser p = FACTORY.createParser(json)) {
            if (p.nextToken() == null) {
                throw new IllegalArgumentException("no JSON value");
            }
            p.skipChildren();
            if (p.nextToken() != null) {
                throw new IllegalArgumentException("trailing data");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Object read(JsonParser p) throws IOException {
        JsonToken t = p.currentToken();
        switch (t) {
            case START_OBJECT -> {
                Map<String, Object> m = new LinkedHashMap<>();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String name = p.currentName();
                    p.nextToken();
                    if (m.containsKey(name)) {
                        throw new IllegalArgumentException("duplicate key " + name);
                    }
                    m.put(name, read(p));
                }
                return m;
            }
            case START_ARRAY -> {
                List<Object> l = new ArrayList<>();
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    l.add(read(p));
                }
                return l;
            }
            case VALUE_STRING -> {
                return p.getText();
            }
            case VALUE_NUMBER_INT -> {
                return new java.math.BigDecimal(p.getBigIntegerValue());
            }
            case VALUE_NUMBER_FLOAT -> {
                return p.getDecimalValue().stripTrailingZeros();
            }
            case VALUE_TRUE -> {
                return Boolean.TRUE;
            }
            case VALUE_FALSE -> {
                return Boolean.FALSE;
            }
            case VALUE_NULL -> {
                return null;
            }
            default -> throw new IllegalArgumentException("unexpected " + t);
        }
    }

    /** Re-serializes {@code json} (compact), passing every key through {@code renameKey}. */
    static byte[] renameKeys(byte[] json, UnaryOperator<String> renameKey) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(json.length);
        try (JsonParser p = FACTORY.createParser(json); JsonGenerator g = FACTORY.createGenerator(out)) {
            for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
                if (t == JsonToken.FIELD_NAME) {
                    g.writeFieldName(renameKey.apply(p.currentName()));
                } else {
                    g.copyCurrentEvent(p);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /** The shape of a tree: objects keep their keys, arrays the shape of each element, scalars their type. */
    static Object shape(Object tree) {
        if (tree instanceof Map<?, ?> m) {
            Map<Object, Object> s = new LinkedHashMap<>();
            m.forEach((k, v) -> s.put(k, shape(v)));
            return s;
        }
        if (tree instanceof List<?> l) {
            return l.stream().map(JsonTrees::shape).toList();
        }
        return tree == null ? "null" : tree.getClass().getSimpleName();
    }
}
