package dev.muster.core.stream;

import dev.muster.core.model.GangState;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodId;
import dev.muster.core.model.Refusal;
import dev.muster.core.preempt.PreemptionKind;
import dev.muster.core.preempt.Victim;
import java.util.List;
import dev.muster.core.resources.Resources;

/**
 * What the extender tells the controller: every allocation and release of capacity to a pod, and every
 * change of a gang's state. Events are facts in the order they happened; the controller folds them.
 */
public sealed interface AllocationEvent {

    /**
     * A pod now holds {@code resources} on {@code node} (bound by us, or observed bound by anyone).
     * {@code gang} is null and {@code queue} is "" for a pod outside any PodGroup.
     */
    record PodAllocated(PodId pod, GangKey gang, String queue, String node, Resources resources) implements AllocationEvent {}

    /** A pod no longer holds what it was allocated (deleted, finished, or its bind failed). */
    record PodReleased(PodId pod, GangKey gang, String queue, String node, Resources resources) implements AllocationEvent {}

    /**
     * A queue's fair share changed (the extender's admission pass computes it): what it should hold, and what it
     * holds beyond that ({@code borrowed}), per resource.
     */
    record QueueShareChanged(String queue, Resources fairShare, Resources borrowed) implements AllocationEvent {}

    /**
     * A gang changed state; {@code why} says why it is not going ahead (its cause, and the sentence a person
     * reads; {@link Refusal#NONE} when there is nothing to say).
     */
    record GangChanged(GangKey gang, String queue, GangState state, Refusal why) implements AllocationEvent {
        public GangChanged {
            why = why == null ? Refusal.NONE : why;
        }

        /** A change with a note only (no refusal cause). */
        public GangChanged(GangKey gang, String queue, GangState state, String note) {
            this(gang, queue, state, Refusal.note(note));
        }

        public String reason() {
            return why.text();
        }
    }

    /**
     * Muster decided to evict {@code victims} so that {@code preemptor} (of {@code queue}, priority {@code priority}) can
     * run: its room on {@code nodes} nodes is reserved for the preemptor from now on. Each victim's release follows as a
     * {@link PodReleased} once its pod is gone. A single pod (of no gang and no queue: {@code queue} is empty) preempts
     * under the key {@link #singlePod}: its namespace and {@value #SINGLE_POD_PREFIX} before its name, which no PodGroup
     * can have.
     */
    record PreemptionDecided(GangKey preemptor, String queue, int priority, PreemptionKind kind, List<Victim> victims, int nodes)
            implements AllocationEvent {
        /** What a single pod's preemptor key puts before the pod's name (a PodGroup's name never holds a colon). */
        public static final String SINGLE_POD_PREFIX = "pod:";

        public PreemptionDecided {
            victims = List.copyOf(victims);
        }

        /** The key a single pod's decision is filed under. */
        public static GangKey singlePod(String namespace, String podName) {
            return new GangKey(namespace, SINGLE_POD_PREFIX + podName);
        }

        /** Whether the preemptor is a single pod, not a gang. */
        public boolean bySinglePod() {
            return preemptor.name().startsWith(SINGLE_POD_PREFIX);
        }

        /** The preemptor as people name it: {@code ns/name} of its PodGroup, or {@code pod ns/name} for a single pod. */
        public String preemptorName() {
            return bySinglePod() ? "pod " + preemptor.namespace() + "/" + preemptor.name().substring(SINGLE_POD_PREFIX.length())
                    : preemptor.toString();
        }
    }
}
