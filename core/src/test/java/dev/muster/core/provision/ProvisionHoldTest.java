package dev.muster.core.provision;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.gang.Gang;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.Refusal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The hold's answers for each outlook and phase, on a room that says what the test wants (times in millis). */
class ProvisionHoldTest {
    private static final GangKey KEY = new GangKey("ml", "train");

    /** A room whose outlook and reservation the test sets, counting how often it was judged. */
    private static final class StubRoom implements Room {
        Outlook outlook = Outlook.NEEDS_NODES;
        boolean admitted;
        Refusal reserve = Refusal.of(Refusal.Cause.RESOURCES, "needs 4 cpu more");
        final List<String> calls = new ArrayList<>();

        @Override
        public Outlook outlook(Gang g) {
            calls.add("outlook");
            return outlook;
        }

        @Override
        public boolean admitted(Gang g) {
            return admitted;
        }

        @Override
        public Refusal reserve(Gang g) {
            calls.add("reserve");
            if (reserve == null) {
                admitted = true;
            }
            return reserve;
        }
    }

    private final Provisioning provisioning = new Provisioning(Provisioning.Settings.atomic());
    private final StubRoom room = new StubRoom();
    private final ProvisionHold hold = new ProvisionHold(provisioning, room);
    private final Gang gang = new Gang(KEY, 1);

    ProvisionHoldTest() {
        provisioning.listed();
        for (int i = 0; i < 8; i++) {
            gang.putMember(dev.muster.core.testing.Fixtures.pod("train-" + i).ns("ml").gang("train").requests("1", "1Gi").build());
        }
    }

    @Test
    void holdsWhileTheNodesAreAskedForThenReservesTheProvisionedRoomAndLetsGoWithTheAnnotations() {
        assertThat(hold.reason(gang, 0)).isEqualTo("waiting for 8 nodes from the autoscaler (ProvisioningRequest ml/train-1: Requested)");
        assertThat(hold.annotations(gang)).isEmpty();
        provisioning.observed(KEY, "train-1", new RequestStatus(true, false, false, false, false, "", ""), 10);
        assertThat(hold.reason(gang, 20)).isEqualTo("waiting for 8 nodes from the autoscaler (ProvisioningRequest ml/train-1: Accepted)");

        provisioning.observed(KEY, "train-1", new RequestStatus(true, true, false, false, false, "", ""), 30);
        // the nodes are not all seen yet: still held, the reservation tried
        assertThat(hold.reason(gang, 40)).isEqualTo("waiting for 8 nodes from the autoscaler (ProvisioningRequest ml/train-1: Provisioned);"
                + " its room is not all there yet: needs 4 cpu more");
        room.reserve = null;
        assertThat(hold.reason(gang, 50)).isNull();
        assertThat(room.calls).containsSubsequence("reserve", "reserve");
        assertThat(hold.annotations(gang)).isEqualTo(Map.of(
                "autoscaling.x-k8s.io/consume-provisioning-request", "train-1",
                "autoscaling.x-k8s.io/provisioning-class-name", "best-effort-atomic-scale-up.autoscaling.x-k8s.io",
                "cluster-autoscaler.kubernetes.io/consume-provisioning-request", "train-1",
                "cluster-autoscaler.kubernetes.io/provisioning-class-name", "best-effort-atomic-scale-up.autoscaling.x-k8s.io"));
        assertThat(provisioning.drain()).containsExactly(new Provisioning.Work.Create(KEY, "train-1", 1,
                List.of("train-0", "train-1", "train-2", "train-3", "train-4", "train-5", "train-6", "train-7"))); // one request, never a second
    }

    @Test
    void aGangThatFitsOrThatPreemptionWouldPlaceIsLetGoWithoutARequest() {
        room.outlook = Room.Outlook.FITS;
        assertThat(hold.reason(gang, 0)).isNull();
        GangKey other = new GangKey("ml", "other");
        Gang preempts = new Gang(other, 2);
        room.outlook = Room.Outlook.PREEMPTS;
        assertThat(hold.reason(preempts, 0)).isNull();
        assertThat(provisioning.drain()).isEmpty();
    }

    @Test
    void aFailedRequestKeepsTheHoldSayingWhyAndIsJudgedAgainAfterTheBackoff() {
        hold.reason(gang, 0);
        provisioning.observed(KEY, "train-1", new RequestStatus(true, false, true, false, false, "", "out of stock"), 1_000);
        assertThat(hold.reason(gang, 2_000)).isEqualTo("no nodes from the autoscaler: ProvisioningRequest ml/train-1 Failed (out of stock);"
                + " attempt 1 failed, asking again in 9s");
        assertThat(hold.annotations(gang)).isEmpty();
        int judged = (int) room.calls.stream().filter("outlook"::equals).count();
        assertThat(hold.reason(gang, 11_000)).isEqualTo("waiting for 8 nodes from the autoscaler (ProvisioningRequest ml/train-2: Requested)");
        assertThat(room.calls.stream().filter("outlook"::equals).count()).isEqualTo(judged + 1L); // judged again before asking
    }

    @Test
    void roomThatComesFreeBeforeTheNodesWithdrawsTheRequest() {
        hold.reason(gang, 0);
        provisioning.drain();
        room.outlook = Room.Outlook.FITS;
        assertThat(hold.reason(gang, 1_000)).isNotNull(); // judged at most every few seconds
        assertThat(hold.reason(gang, ProvisionHold.RECHECK_MILLIS + 1)).isNull();
        assertThat(provisioning.drain()).containsExactly(new Provisioning.Work.Delete(KEY, "train-1"));
    }
}
