package dev.muster.common.kube;

import com.google.gson.JsonObject;
import dev.muster.core.model.QueueSpec;
import dev.muster.core.model.QueueState;
import dev.muster.core.resources.Resources;
import io.kubernetes.client.openapi.models.V1ObjectMeta;

/**
 * {@link VolcanoQueue} → core {@link QueueSpec}, following Volcano's {@code Queue} type
 * ({@code volcano-sh/apis pkg/apis/scheduling/v1beta1}):
 *
 * <ul>
 *   <li>state: Volcano keeps it in {@code status.state} (Open, Closed, Closing, Unknown; {@code vcctl queue operate
 *       --action close} ends there); its spec has no state, but a {@code spec.state} written by other tools is honoured
 *       and, when present, wins: Muster's controller writes {@code status.state} from this very state, so a status
 *       Closed that it wrote while the spec said Closed must not keep the queue closed once the spec says Open.
 *       Closed or Closing → {@link QueueState#CLOSED} (the wish is "closed"; the controller reports Closing while pods
 *       still run); Unknown → {@link QueueState#UNKNOWN}; absent or Open → {@link QueueState#OPEN};</li>
 *   <li>{@code spec.weight}: absent or 0 → 1 (Volcano's admission default); negative is an error;</li>
 *   <li>{@code spec.capability}: absent or empty → null (unlimited);</li>
 *   <li>{@code spec.deserved}, {@code spec.guarantee.resource}: absent → zero;</li>
 *   <li>{@code spec.reclaimable}: absent → true (Volcano's admission default).</li>
 * </ul>
 *
 * Stateless and thread-safe.
 */
public final class QueueConverter {
    private QueueConverter() {}

    /** @throws ConversionException naming the queue and the field */
    public static QueueSpec toCore(VolcanoQueue queue) {
        String name = nameOf(queue);
        String where = "queue " + name;
        CrdFields spec = new CrdFields(where + " spec", queue.getSpec());
        CrdFields status = new CrdFields(where + " status", queue.getStatus());
        Integer weight = spec.integer("weight");
        if (weight != null && weight < 0) {
            throw new ConversionException(where + " spec: weight must not be negative, got " + weight);
        }
        Resources capability = ResourceLists.fromJson(where + " spec.capability", spec.raw("capability"));
        Resources deserved = ResourceLists.fromJson(where + " spec.deserved", spec.raw("deserved"));
        JsonObject guaranteeObject = spec.object("guarantee");
        Resources guarantee = ResourceLists.fromJson(where + " spec.guarantee.resource",
                new CrdFields(where + " spec.guarantee", guaranteeObject).raw("resource"));
        Boolean reclaimable = spec.bool("reclaimable");
        boolean noCapability = capability.isZero() && isEmptyOrAbsent(spec.object("capability"));
        return new QueueSpec(name, stateOf(spec.string("state"), status.string("state")),
                weight == null || weight == 0 ? 1 : weight, noCapability ? null : capability, deserved, guarantee,
                reclaimable == null || reclaimable);
    }

    /** @throws ConversionException when metadata.name is missing */
    public static String nameOf(VolcanoQueue queue) {
        V1ObjectMeta meta = queue.getMetadata();
        if (meta == null || meta.getName() == null || meta.getName().isEmpty()) {
            throw new ConversionException("queue without metadata.name");
        }
        return meta.getName();
    }

    static QueueState stateOf(String specState, String statusState) {
        QueueState s = QueueState.parse(specState == null || specState.isEmpty() ? statusState : specState);
        return isClosed(s) ? QueueState.CLOSED : s;
    }

    private static boolean isClosed(QueueState s) {
        return s == QueueState.CLOSED || s == QueueState.CLOSING;
    }

    private static boolean isEmptyOrAbsent(JsonObject o) {
        return o == null || o.isEmpty();
    }
}
