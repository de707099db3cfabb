package dev.muster.common.kube;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import dev.muster.core.resources.InvalidQuantityException;
import dev.muster.core.resources.ResourceList;
import dev.muster.core.resources.Quantities;
import dev.muster.core.resources.Resources;
import io.kubernetes.client.custom.Quantity;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Kubernetes resource lists ({@code {cpu: 500m, memory: 1Gi}}) to core {@link Resources}, parsed by
 * {@link Quantities}. Two shapes arrive: client-java's typed {@code Map<String, Quantity>} (pods, nodes) and raw JSON
 * objects whose values are strings or numbers (Volcano CRDs, read without a schema). Stateless and thread-safe.
 */
public final class ResourceLists {
    private ResourceLists() {}

    /**
     * Parses a typed resource list; null or empty is {@link Resources#ZERO}.
     *
     * @param where names the list in error messages, e.g. {@code node n1 status.allocatable}; asked for only when a
     *     value is malformed (every pod event's requests are parsed here, and the name is text built per pod)
     * @throws ConversionException naming {@code where}, the resource and the problem
     */
    public static Resources fromQuantities(Supplier<String> where, Map<String, Quantity> list) {
        if (list == null || list.isEmpty()) {
            return Resources.ZERO;
        }
        ResourceList b = new ResourceList(ResourceList.Names.REGISTER, "quantity");
        for (Map.Entry<String, Quantity> e : list.entrySet()) {
            Quantity q = e.getValue();
            put(b, where, e.getKey(), q == null ? null : q.toSuffixedString());
        }
        return b.build();
    }

    /**
     * Parses a resource list held as raw JSON; null, JSON null or empty is {@link Resources#ZERO}.
     *
     * @throws ConversionException when the element is not an object or a value is not a quantity
     */
    public static Resources fromJson(String where, JsonElement list) {
        if (list == null || list.isJsonNull()) {
            return Resources.ZERO;
        }
        if (!list.isJsonObject()) {
            throw new ConversionException(where + ": expected a map of resource name to quantity, got " + abbreviate(list.toString()));
        }
        JsonObject object = list.getAsJsonObject();
        ResourceList b = new ResourceList(ResourceList.Names.REGISTER, "quantity");
        for (Map.Entry<String, JsonElement> e : object.entrySet()) {
            JsonElement v = e.getValue();
            if (!(v instanceof JsonPrimitive p) || p.isBoolean()) {
                throw new ConversionException(where + ": " + e.getKey() + ": expected a quantity, got " + abbreviate(String.valueOf(v)));
            }
            put(b, () -> where, e.getKey(), p.getAsString());
        }
        return b.build();
    }

    private static void put(ResourceList b, Supplier<String> where, String resource, String text) {
        try {
            b.put(resource, text);
        } catch (InvalidQuantityException e) {
            throw new ConversionException(where.get() + ": " + resource + ": " + e.getMessage(), e);
        }
    }

    static String abbreviate(String s) {
        return s.length() <= 64 ? s : s.substring(0, 61) + "...";
    }
}
