package dev.muster.server.http.wire;

import com.fasterxml.jackson.core.JsonToken;
import dev.muster.core.resources.InvalidQuantityException;
import dev.muster.core.resources.Quantities;
import dev.muster.core.resources.ResourceList;
import dev.muster.core.resources.Resources;
import java.io.IOException;

/**
 * Reads a Kubernetes {@code ResourceList} ({@code {"cpu":"100m","memory":"64Mi"}}) into
 * {@link Resources}, with {@link Quantities} doing the exact parsing.
 *
 * <p>Quantities may be JSON strings or bare numbers (Go's {@code Quantity.UnmarshalJSON} accepts
 * both); a null quantity is absent. Resource names must be Kubernetes qualified names
 * ({@code cpu}, {@code nvidia.com/gpu}); negative amounts, duplicate names and unparsable quantities
 * are errors naming the path, e.g. {@code Pod.spec.overhead.cpu: overhead must not be negative, got "-1"}.
 * The checks are {@link ResourceList}'s (one validator for every input); a name no node offers counts as
 * {@code ResourceNames.UNKNOWN} and fits nowhere. Stateless.
 */
final class ResourceListReader {
    private ResourceListReader() {}

    /**
     * Reads the list at the current token (an object or null).
     *
     * @param noun what the amounts are, for messages ("requests", "overhead")
     */
    static Resources read(JsonInput in, String noun) throws IOException {
        ResourceList list = readList(in, noun);
        return list == null ? Resources.ZERO : list.build();
    }

    /** Like {@link #read}, keeping the list (it also says whether the gang marker was named); null when empty. */
    static ResourceList readList(JsonInput in, String noun) throws IOException {
        if (!in.objectOrNull("an object of resource quantities")) {
            return null;
        }
        ResourceList list = null;
        while (in.nextField()) {
            String name = in.fieldName();
            if (list == null) {
                list = new ResourceList(ResourceList.Names.KNOWN_ONLY, noun);
            }
            JsonToken t = in.next();
            if (t != JsonToken.VALUE_NULL && t != JsonToken.VALUE_STRING && t != JsonToken.VALUE_NUMBER_INT && t != JsonToken.VALUE_NUMBER_FLOAT) {
                throw in.typeError("a quantity", t);
            }
            try {
                if (t == JsonToken.VALUE_NULL) {
                    list.putNothing(name);
                } else {
                    list.put(name, in.text());
                }
            } catch (InvalidQuantityException e) {
                throw WireFormatException.aboutPod(in.error(e.getMessage()));
            }
        }
        return list;
    }
}
