package dev.muster.core.provision;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.model.GangKey;
import dev.muster.core.time.Backoff;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** A gang's request for nodes through its states, as the hold and the API side drive it (times in millis). */
class ProvisioningTest {
    private static final GangKey TRAIN = new GangKey("ml", "train");
    private static final Provisioning.Settings SETTINGS = new Provisioning.Settings(Provisioning.Settings.ATOMIC, Map.of(),
            new Backoff(Duration.ofSeconds(10), Duration.ofSeconds(80)));

    private static List<String> pods(int n) {
        return java.util.stream.IntStream.range(0, n).mapToObj(i -> "p" + i).toList();
    }

    private static Provisioning listed() {
        Provisioning p = new Provisioning(SETTINGS);
        p.listed();
        return p;
    }

    private static RequestStatus accepted() {
        return new RequestStatus(true, false, false, false, false, "", "");
    }

    private static RequestStatus provisioned() {
        return new RequestStatus(true, true, false, false, false, "", "");
    }

    private static RequestStatus failed(String reason, String message) {
        return new RequestStatus(true, false, true, false, false, reason, message);
    }

    @Test
    void aGangThatNeedsNodesGetsOneRequestThatIsAcceptedThenProvisioned() {
        Provisioning p = listed();
        assertThat(p.need(TRAIN, pods(8), 1_000).text()).isEqualTo("waiting for 8 nodes from the autoscaler (ProvisioningRequest ml/train-1: Requested)");
        assertThat(p.need(TRAIN, pods(8), 1_500).name()).isEqualTo("train-1");
        assertThat(p.drain()).containsExactly(new Provisioning.Work.Create(TRAIN, "train-1", 1, pods(8)));
        assertThat(p.drain()).isEmpty();

        p.observed(TRAIN, "train-1", accepted(), 2_000);
        assertThat(p.answer(TRAIN, 2_000).text()).isEqualTo("waiting for 8 nodes from the autoscaler (ProvisioningRequest ml/train-1: Accepted)");
        p.observed(TRAIN, "train-1", provisioned(), 31_000);
        assertThat(p.answer(TRAIN, 31_000).phase()).isEqualTo(Phase.PROVISIONED);
        assertThat(p.drainProvisionedSeconds()).containsExactly(30.0);
        p.runs(TRAIN);
        assertThat(p.answer(TRAIN, 32_000).phase()).isEqualTo(Phase.DONE);
        assertThat(p.drain()).isEmpty(); // the running gang's pods name the request: it stays while the gang lives
        assertThat(p.counts()).containsEntry(Phase.DONE, 1).containsEntry(Phase.REQUESTED, 0);
    }

    @Test
    void nothingIsRequestedBeforeTheRequestsThatExistWereListed() {
        Provisioning p = new Provisioning(SETTINGS);
        assertThat(p.need(TRAIN, pods(8), 1_000).text()).contains("to be listed");
        assertThat(p.drain()).isEmpty();
    }

    @Test
    void aFailedRequestIsDeletedAndTheNextAttemptIsMadeOnlyAfterTheBackoffSayingWhy() {
        Provisioning p = listed();
        p.need(TRAIN, pods(8), 0);
        p.drain();
        p.observed(TRAIN, "train-1", failed("FailedToBookCapacity", "no zone has 8 nodes"), 1_000);
        Provisioning.Answer a = p.answer(TRAIN, 1_000);
        assertThat(a.phase()).isEqualTo(Phase.FAILED);
        assertThat(a.text()).isEqualTo("no nodes from the autoscaler: ProvisioningRequest ml/train-1 Failed (FailedToBookCapacity: no zone has 8 nodes);"
                + " attempt 1 failed, asking again in 10s");
        assertThat(p.drain()).containsExactly(new Provisioning.Work.Delete(TRAIN, "train-1"));

        assertThat(p.need(TRAIN, pods(8), 10_999).phase()).isEqualTo(Phase.FAILED); // still backing off
        assertThat(p.drain()).isEmpty();
        assertThat(p.need(TRAIN, pods(8), 11_000).text()).isEqualTo("waiting for 8 nodes from the autoscaler (ProvisioningRequest ml/train-2: Requested)");
        assertThat(p.drain()).containsExactly(new Provisioning.Work.Create(TRAIN, "train-2", 2, pods(8)));

        p.observed(TRAIN, "train-2", failed("", "again"), 12_000); // the second failure waits twice as long
        assertThat(p.answer(TRAIN, 12_000).text()).endsWith("attempt 2 failed, asking again in 20s");
        // the first request's last word arrives late: it changes nothing
        p.observed(TRAIN, "train-1", failed("", "late"), 12_500);
        assertThat(p.answer(TRAIN, 12_500).name()).isEqualTo("train-2");
    }

    @Test
    void aBookingThatExpiresBeforeTheGangRunsIsAskedForAgainAndAfterwardChangesNothing() {
        Provisioning p = listed();
        p.need(TRAIN, pods(4), 0);
        p.observed(TRAIN, "train-1", provisioned(), 1_000);
        p.observed(TRAIN, "train-1", new RequestStatus(true, true, false, true, false, "CapacityReservationTimeExpired", "expired"), 600_000);
        assertThat(p.answer(TRAIN, 600_000).text()).contains("ProvisioningRequest ml/train-1 BookingExpired (CapacityReservationTimeExpired: expired)");

        GangKey other = new GangKey("ml", "other");
        p.need(other, pods(4), 0);
        p.observed(other, "other-1", provisioned(), 1_000);
        p.runs(other);
        p.drain();
        p.observed(other, "other-1", new RequestStatus(true, true, false, false, true, "", "revoked"), 700_000);
        assertThat(p.answer(other, 700_000).phase()).isEqualTo(Phase.DONE);
        assertThat(p.drain()).isEmpty();
    }

    @Test
    void aGangDeletedOrNoLongerInNeedHasItsRequestDeleted() {
        Provisioning p = listed();
        p.need(TRAIN, pods(8), 0);
        p.gangGone(TRAIN);
        assertThat(p.drain()).containsExactly(new Provisioning.Work.Delete(TRAIN, "train-1")); // the create is not made at all
        assertThat(p.answer(TRAIN, 0)).isNull();

        GangKey fits = new GangKey("ml", "fits");
        p.need(fits, pods(2), 0);
        p.drain();
        p.withdraw(fits);
        assertThat(p.drain()).containsExactly(new Provisioning.Work.Delete(fits, "fits-1"));
    }

    @Test
    void aRequestSomeoneElseDeletesCountsAsFailed() {
        Provisioning p = listed();
        p.need(TRAIN, pods(8), 0);
        p.drain();
        p.observed(TRAIN, "train-1", accepted(), 10);
        p.requestDeleted(TRAIN, "train-1", 20);
        assertThat(p.answer(TRAIN, 20).text()).contains("ProvisioningRequest ml/train-1 was deleted").contains("asking again in 10s");
    }

    @Test
    void aRestartedProcessAdoptsTheRequestsItFindsAndMakesNoSecond() {
        Provisioning p = new Provisioning(SETTINGS);
        p.observed(TRAIN, "train-3", accepted(), 0); // listed: an earlier process's third attempt
        p.listed();
        assertThat(p.need(TRAIN, pods(8), 100).text()).isEqualTo("waiting for 8 nodes from the autoscaler (ProvisioningRequest ml/train-3: Accepted)");
        assertThat(p.drain()).isEmpty();
        // an older attempt left behind is deleted
        p.observed(TRAIN, "train-2", failed("", "old"), 200);
        assertThat(p.drain()).containsExactly(new Provisioning.Work.Delete(TRAIN, "train-2"));
        assertThat(p.answer(TRAIN, 200).phase()).isEqualTo(Phase.ACCEPTED);
    }

    @Test
    void longNamesStayWithinTheLimit() {
        String name = Provisioning.nameFor(new GangKey("ns", "x".repeat(253)), 12);
        assertThat(name.length()).isLessThanOrEqualTo(240);
        assertThat(name).endsWith("-12");
        assertThat(Provisioning.attemptOf(name)).isEqualTo(12);
    }

    @Test
    void manyThreadsAskingForTheSameGangsMakeExactlyOneRequestEach() throws Exception {
        Provisioning p = listed();
        int gangs = 200;
        int threads = 8;
        ExecutorService pool = Executors.newFixedThreadPool(threads + 1);
        CyclicBarrier start = new CyclicBarrier(threads + 1);
        try {
            List<Future<?>> askers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                askers.add(pool.submit(() -> {
                    start.await();
                    for (int round = 0; round < 20; round++) {
                        for (int g = 0; g < gangs; g++) {
                            GangKey k = new GangKey("ns", "g" + g);
                            p.need(k, pods(2), round);
                            p.observed(k, "g" + g + "-1", accepted(), round);
                        }
                    }
                    return null;
                }));
            }
            Future<List<Provisioning.Work>> drainer = pool.submit(() -> {
                start.await();
                List<Provisioning.Work> all = new ArrayList<>();
                while (!askers.stream().allMatch(Future::isDone)) {
                    all.addAll(p.drain());
                }
                return all;
            });
            for (Future<?> f : askers) {
                f.get();
            }
            List<Provisioning.Work> all = new ArrayList<>(drainer.get());
            all.addAll(p.drain());
            assertThat(all).hasSize(gangs).allMatch(w -> w instanceof Provisioning.Work.Create c && c.attempt() == 1);
            assertThat(all.stream().map(Provisioning.Work::name).distinct()).hasSize(gangs);
            assertThat(p.counts()).containsEntry(Phase.ACCEPTED, gangs);
        } finally {
            pool.shutdownNow();
        }
    }
}
