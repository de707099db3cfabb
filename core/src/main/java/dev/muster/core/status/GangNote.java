package dev.muster.core.status;

import dev.muster.core.model.GangKey;
import java.util.Objects;

/**
 * One Kubernetes Event the fold asks for about a PodGroup: a gang crossed its minimum ({@link GangShortfall#asNote}),
 * was preempted, or preempts others ({@link PreemptionNotes}). Immutable.
 *
 * @param reason  CamelCase, as {@code kubectl describe} shows it, e.g. {@code Preempted}
 * @param warning Warning rather than Normal
 * @param action  what was done (the Event's {@code action}), e.g. {@code Preempt}
 * @param note    what a person reads
 */
public record GangNote(GangKey gang, String reason, boolean warning, String action, String note) {
    public GangNote {
        Objects.requireNonNull(gang, "gang");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(action, "action");
        note = note == null ? "" : note;
    }
}
