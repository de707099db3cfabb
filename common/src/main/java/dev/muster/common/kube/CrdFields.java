package dev.muster.common.kube;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.Map;

/** Typed reads of optional fields of a raw CRD JSON object; every error names the object and the field. */
final class CrdFields {
    private final String where;
    private final JsonObject object;

    /** {@code object} may be null (an absent spec): every field is then absent. */
    CrdFields(String where, JsonObject object) {
        this.where = where;
        this.object = object == null ? new JsonObject() : object;
    }

    JsonElement raw(String field) {
        JsonElement e = object.get(field);
        return e == null || e.isJsonNull() ? null : e;
    }

    Integer integer(String field) {
        JsonElement e = raw(field);
        if (e == null) {
            return null;
        }
        return toInt(field, e);
    }

    String string(String field) {
        JsonElement e = raw(field);
        if (e == null) {
            return null;
        }
        if (!(e instanceof JsonPrimitive p) || !p.isString()) {
            throw new ConversionException(where + ": " + field + ": expected a string, got " + ResourceLists.abbreviate(e.toString()));
        }
        return p.getAsString();
    }

    Boolean bool(String field) {
        JsonElement e = raw(field);
        if (e == null) {
            return null;
        }
        if (!(e instanceof JsonPrimitive p) || !p.isBoolean()) {
            throw new ConversionException(where + ": " + field + ": expected true or false, got " + ResourceLists.abbreviate(e.toString()));
        }
        return p.getAsBoolean();
    }

    JsonObject object(String field) {
        JsonElement e = raw(field);
        if (e == null) {
            return null;
        }
        if (!e.isJsonObject()) {
            throw new ConversionException(where + ": " + field + ": expected an object, got " + ResourceLists.abbreviate(e.toString()));
        }
        return e.getAsJsonObject();
    }

    /** A map of string to whole number, e.g. PodGroup {@code minTaskMember}; empty when absent. */
    Map<String, Integer> integerMap(String field) {
        JsonObject o = object(field);
        Map<String, Integer> out = new LinkedHashMap<>();
        if (o != null) {
            for (Map.Entry<String, JsonElement> e : o.entrySet()) {
                out.put(e.getKey(), toInt(field + "." + e.getKey(), e.getValue()));
            }
        }
        return out;
    }

    private int toInt(String field, JsonElement e) {
        if (e instanceof JsonPrimitive p && p.isNumber()) {
            try {
                return new BigDecimal(p.getAsString()).intValueExact();
            } catch (ArithmeticException | NumberFormatException ex) {
                // fall through to the error below
            }
        }
        throw new ConversionException(where + ": " + field + ": expected a whole number, got " + ResourceLists.abbreviate(String.valueOf(e)));
    }
}
