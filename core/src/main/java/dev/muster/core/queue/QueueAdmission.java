package dev.muster.core.queue;

import dev.muster.core.model.Refusal;
import dev.muster.core.model.QueueSpec;
import dev.muster.core.model.QueueState;
import dev.muster.core.resources.ResourceNames;
import dev.muster.core.resources.Resources;

/**
 * Whether a queue admits a gang: it must exist and be {@code Open}, and what the queue already holds
 * (allocated + reserved) plus the gang's request must stay within {@code capability} for every resource
 * the capability names. Pure and thread-safe.
 */
public final class QueueAdmission {
    private QueueAdmission() {}

    /** The verdict: admitted, refused for now (may change as pods finish), or refused until the queue changes. */
    public sealed interface Verdict {
        record Admitted() implements Verdict {}

        /** Refused for {@code why} (cause QUEUE_MISSING, QUEUE_CLOSED, QUEUE_CAPABILITY, or QUEUE_FULL). */
        record Refused(Refusal why) implements Verdict {
            public String reason() {
                return why.text();
            }

            /** Only a full queue may admit later without a change to the queue itself (as its pods finish). */
            public boolean resolvable() {
                return why.cause() == Refusal.Cause.QUEUE_FULL;
            }
        }
    }

    public static Verdict check(String queueName, QueueSpec queue, Resources held, Resources gangRequest) {
        if (queue == null) {
            return new Verdict.Refused(Refusal.of(Refusal.Cause.QUEUE_MISSING, "queue " + queueName + " does not exist"));
        }
        if (queue.state() != QueueState.OPEN) {
            return new Verdict.Refused(Refusal.of(Refusal.Cause.QUEUE_CLOSED,
                    "queue " + queueName + " is " + queue.state().wire() + " and admits no new gangs"));
        }
        Resources capability = queue.capability();
        if (capability == null) {
            return new Verdict.Admitted();
        }
        String over = over(held.plus(gangRequest), capability);
        if (over.isEmpty()) {
            return new Verdict.Admitted();
        }
        if (gangRequest.fitsIn(capabilityWithoutPods(capability))) {
            return new Verdict.Refused(Refusal.of(Refusal.Cause.QUEUE_FULL, "queue " + queueName + " is full for now: it holds "
                    + held + " of its capability " + capability + ", and the gang needs " + gangRequest + " more (" + over + " over)"));
        }
        return new Verdict.Refused(Refusal.of(Refusal.Cause.QUEUE_CAPABILITY, "queue " + queueName + "'s capability " + capability
                + " is less than the gang alone needs, " + gangRequest + " (" + over(gangRequest, capability) + " over)"));
    }

    /** By how much {@code amount} exceeds {@code capability}, per resource it names ({@code "cpu by 2"}); empty when it does not. */
    private static String over(Resources amount, Resources capability) {
        StringBuilder over = new StringBuilder();
        for (var e : capability.asMap().entrySet()) {
            int i = ResourceNames.indexOf(e.getKey());
            if (i == ResourceNames.PODS_INDEX) {
                continue;
            }
            long cap = e.getValue();
            if (amount.get(i) > cap) {
                if (!over.isEmpty()) {
                    over.append(", ");
                }
                over.append(e.getKey()).append(" by ").append(dev.muster.core.resources.Quantities.format(e.getKey(), amount.get(i) - cap));
            }
        }
        return over.toString();
    }

    private static Resources capabilityWithoutPods(Resources capability) {
        // capability names only some resources; unnamed ones are unlimited
        Resources.Builder b = Resources.builder();
        int width = Math.max(capability.width(), ResourceNames.count());
        for (int i = 0; i < width; i++) {
            b.set(i, capability.asMap().containsKey(ResourceNames.nameOf(i)) && i != ResourceNames.PODS_INDEX
                    ? capability.get(i) : Long.MAX_VALUE);
        }
        return b.build();
    }
}
