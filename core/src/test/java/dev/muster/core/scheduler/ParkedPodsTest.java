package dev.muster.core.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodId;
import org.junit.jupiter.api.Test;

class ParkedPodsTest {
    private static final GangKey G = new GangKey("ns", "g");

    private static PodId pod(String name) {
        return new PodId("uid-" + name, "ns", name);
    }

    @Test
    void aQueueEditTakesOnlyThePodsThatQueueRefused() {
        ParkedPods parked = new ParkedPods();
        parked.refused(pod("a"), G, "q1");
        parked.refused(pod("b"), G, "q2");
        parked.refused(pod("web"), null, null);

        assertThat(parked.takeQueue("q1")).containsExactly(pod("a"));
        assertThat(parked.takeQueue("q1")).as("woken once per refusal").isEmpty();
        assertThat(parked.size()).isEqualTo(2);
    }

    @Test
    void roomGivenBackTakesOnlyThePodsRefusedOnRoom() {
        ParkedPods parked = new ParkedPods();
        parked.refused(pod("a"), G, "q1");
        parked.refused(pod("web"), null, null);
        parked.refused(pod("m"), G, null);

        assertThat(parked.takeRoom()).containsExactly(pod("web"), pod("m"));
        assertThat(parked.takeQueue("q1")).containsExactly(pod("a"));
    }

    @Test
    void aPodGroupEditTakesItsMembersWhateverRefusedThem() {
        ParkedPods parked = new ParkedPods();
        parked.refused(pod("a"), G, "q1");
        parked.refused(pod("b"), G, null);
        parked.refused(pod("c"), new GangKey("ns", "other"), "q1");

        assertThat(parked.takeGang(G)).containsExactly(pod("a"), pod("b"));
        assertThat(parked.size()).isEqualTo(1);
    }

    @Test
    void aPodThatPassedOrWentAwayIsForgotten() {
        ParkedPods parked = new ParkedPods();
        parked.refused(pod("a"), G, "q1");
        parked.forget(pod("a").uid());
        assertThat(parked.takeQueue("q1")).isEmpty();
    }

    @Test
    void aPodRefusedAgainIsRememberedOnceForItsLatestCause() {
        ParkedPods parked = new ParkedPods();
        parked.refused(pod("a"), G, "q1");
        parked.refused(pod("a"), G, null); // its queue admits now; room others hold refuses it

        assertThat(parked.size()).isEqualTo(1);
        assertThat(parked.takeQueue("q1")).isEmpty();
        assertThat(parked.takeRoom()).containsExactly(pod("a"));
    }

    @Test
    void memoryIsBoundedTheOldestRefusalForgottenFirst() {
        ParkedPods parked = new ParkedPods(2);
        parked.refused(pod("a"), null, null);
        parked.refused(pod("b"), null, null);
        parked.refused(pod("a"), null, null); // refused again: now the newest
        parked.refused(pod("c"), null, null);

        assertThat(parked.size()).isEqualTo(2);
        assertThat(parked.takeRoom()).containsExactly(pod("a"), pod("c"));
    }

    @Test
    void aBoundBelowOneIsRefused() {
        assertThatThrownBy(() -> new ParkedPods(0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("max must be at least 1");
    }
}
