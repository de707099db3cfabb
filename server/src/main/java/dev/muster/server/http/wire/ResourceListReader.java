package dev.muster.server.http.wire;

import com.fasterxml.jackson.core.JsonToken;
import dev.muster.core.resources.Quantities;
import dev.muster.core.resources.Resources;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a Kubernetes {@code ResourceList} ({@code {"cpu":"100m","memory":"64Mi"}}) into
 * {@link Resources}, with {@link Quantities} doing the exact parsing.
 *
 * <p>Quantities may be JSON strings or bare numbers (Go's {@code Quantity.UnmarshalJSON} accepts
 * both); a null quantity is absent. Resource names must be Kubernetes qualified names
 * ({@code cpu}, {@code nvidia.com/gpu}); negative amounts, duplicate names and unparsable quantities
 * are errors naming the path, e.g. {@code Pod.spec.overhead.cpu: overhead must not be negative, got "-1"}.
 * Stateless.
 */
final class ResourceListReader {
    private ResourceListReader() {}

    /**
     * Reads the list at the current token (an object or null).
     *
     * @param noun what the amounts are, for messages ("requests", "overhead")
     */
    static Resources read(JsonInput in, String noun) throws IOException {
        if (!in.objectOrNull("an object of resource quantities")) {
            return Resources.ZERO;
        }
        Resources.Builder amounts = null;
        List<String> seen = null;
        while (in.nextField()) {
            String name = in.fieldName();
            if (seen == null) {
                seen = new ArrayList<>(4);
            } else if (seen.contains(name)) {
                throw in.error("duplicate key \"" + JsonInput.abbreviate(name) + "\"");
            }
            seen.add(name);
            if (!isQualifiedName(name)) {
                throw in.error("invalid resource name \"" + JsonInput.abbreviate(name)
                        + "\" (expected a qualified name such as cpu or nvidia.com/gpu)");
            }
            JsonToken t = in.next();
            if (t == JsonToken.VALUE_NULL) {
                continue;
            }
            if (t != JsonToken.VALUE_STRING && t != JsonToken.VALUE_NUMBER_INT && t != JsonToken.VALUE_NUMBER_FLOAT) {
                throw in.typeError("a quantity", t);
            }
            String text = in.text();
            long amount;
            try {
                amount = Quantities.parse(name, text);
            } catch (IllegalArgumentException e) {
                throw in.error(e.getMessage());
            }
            if (amount < 0 || isNegative(text)) {
                throw in.error(noun + " must not be negative, got \"" + JsonInput.abbreviate(text.trim()) + "\"");
            }
            if (amounts == null) {
                amounts = Resources.builder();
            }
            amounts.set(name, amount);
        }
        return amounts == null ? Resources.ZERO : amounts.build();
    }

    /** A leading minus with any non-zero digit before the suffix ("-1m", but not "-0"). */
    private static boolean isNegative(String text) {
        String s = text.trim();
        if (s.isEmpty() || s.charAt(0) != '-') {
            return false;
        }
        for (int i = 1; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c >= '1' && c <= '9') {
                return true;
            }
            if (c != '0' && c != '.') {
                return false;
            }
        }
        return false;
    }

    /** Kubernetes {@code IsQualifiedName}: an optional DNS-1123 subdomain prefix and "/", then a name of at most 63 characters. */
    static boolean isQualifiedName(String s) {
        int slash = s.indexOf('/');
        if (slash < 0) {
            return isName(s, 0, s.length());
        }
        if (s.indexOf('/', slash + 1) >= 0) {
            return false;
        }
        return isSubdomain(s, 0, slash) && isName(s, slash + 1, s.length());
    }

    private static boolean isName(String s, int from, int to) {
        int n = to - from;
        if (n < 1 || n > 63 || !isAlnum(s.charAt(from)) || !isAlnum(s.charAt(to - 1))) {
            return false;
        }
        for (int i = from + 1; i < to - 1; i++) {
            char c = s.charAt(i);
            if (!isAlnum(c) && c != '-' && c != '_' && c != '.') {
                return false;
            }
        }
        return true;
    }

    private static boolean isSubdomain(String s, int from, int to) {
        int n = to - from;
        if (n < 1 || n > 253) {
            return false;
        }
        char previous = '.';
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            boolean lowerAlnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
            if (c == '.') {
                if (previous == '.' || previous == '-') {
                    return false;
                }
            } else if (c == '-') {
                if (previous == '.') {
                    return false;
                }
            } else if (!lowerAlnum) {
                return false;
            }
            previous = c;
        }
        return previous != '.' && previous != '-';
    }

    private static boolean isAlnum(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    }
}
