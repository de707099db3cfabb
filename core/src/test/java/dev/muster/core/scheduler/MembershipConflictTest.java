package dev.muster.core.scheduler;

import static dev.muster.core.testing.Fixtures.pod;
import static dev.muster.core.testing.Fixtures.podGroup;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.GangMembership;
import dev.muster.core.model.Pod;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A pod naming two different groups is refused on every node with the reason, and joins neither gang. */
class MembershipConflictTest {
    @Test
    void aPodNamingTwoGroupsIsRefusedEverywhereAndJoinsNoGang() {
        SchedulerHarness h = SchedulerHarness.cluster(2, "4", "16Gi");
        h.scheduler.upsertPodGroup(podGroup("default", "a", 1, "default"));
        h.scheduler.upsertPodGroup(podGroup("default", "b", 1, "default"));
        GangMembership.Membership m = GangMembership.membershipOf("default", Map.of(GangMembership.GROUP_NAME, "a"),
                Map.of(GangMembership.POD_GROUP_LABEL, "b"), null);
        Pod base = pod("torn").requests("1", "1Gi").build();
        Pod torn = new Pod(base.id(), base.resourceVersion(), base.request(), m.gang(), "", 0, null, base.phase(), m.conflict());
        h.scheduler.upsertPod(torn);

        FilterResult r = h.scheduler.filter(torn, h.nodeNames);

        assertThat(r.feasible()).isEmpty();
        assertThat(r.unresolvable()).containsOnlyKeys(h.nodeNames);
        assertThat(r.unresolvable().values()).allSatisfy(reason -> assertThat(reason)
                .isEqualTo("pod default/torn: pod names two different groups: \"a\" (annotation scheduling.k8s.io/group-name)"
                        + " and \"b\" (label scheduling.x-k8s.io/pod-group); a pod can belong to one gang only"));
        assertThat(h.scheduler.gang(new GangKey("default", "a")).members()).isZero();
        assertThat(h.scheduler.gang(new GangKey("default", "b")).members()).isZero();
        assertThat(h.invariantViolations()).isEmpty();
    }
}
