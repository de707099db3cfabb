package dev.muster.core.scheduler;

import dev.muster.core.model.DisruptionMode;
import dev.muster.core.model.GangApi;
import dev.muster.core.model.PodGroupSpec;
import dev.muster.core.model.PreemptionPolicy;
import dev.muster.core.model.PreemptionTerms;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import dev.muster.core.gang.BindResult;
import dev.muster.core.gang.Binder;
import static dev.muster.core.testing.Fixtures.node;
import static dev.muster.core.testing.Fixtures.pod;
import static dev.muster.core.testing.Fixtures.podGroup;
import static dev.muster.core.testing.Fixtures.queue;
import static dev.muster.core.testing.Fixtures.req;
import static dev.muster.core.testing.Fixtures.res;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.time.Backoff;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.Pod;
import dev.muster.core.model.PodPhase;
import dev.muster.core.model.GangState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class GangSchedulerTest {
    private static SchedulerHarness cluster(int nodes, String cpu, String mem) {
        return SchedulerHarness.cluster(nodes, cpu, mem);
    }


    private static List<Pod> members(String pg, int n, String cpu, String mem) {
        List<Pod> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(pod(pg + "-" + i).gang(pg).requests(cpu, mem).build());
        }
        return out;
    }

    @Test
    void singlePodBindsAtOnceAndIsAllocated() {
        SchedulerHarness h = cluster(2, "4", "8Gi");
        Pod p = pod("web").requests("1", "1Gi").build();
        h.scheduler.upsertPod(p);

        assertThat(h.schedule(p).join().ok()).isTrue();
        assertThat(h.binder.bound()).containsKey(p.uid());
        assertThat(h.totals().allocatedByQueue().get("")).isEqualTo(req("1", "1Gi"));
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void gangOfEightIsBoundWholeOnlyWhenTheLastMemberBinds() {
        SchedulerHarness h = cluster(4, "8", "32Gi");
        h.scheduler.upsertPodGroup(podGroup("default", "train", 8, "default"));
        List<Pod> pods = members("train", 8, "2", "4Gi");
        pods.forEach(h.scheduler::upsertPod);

        List<CompletableFuture<BindResult>> binds = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            binds.add(h.schedule(pods.get(i)));
        }
        assertThat(binds).noneMatch(CompletableFuture::isDone);
        assertThat(h.binder.bound()).isEmpty();
        assertThat(h.scheduler.gang(new GangKey("default", "train")).waiting()).isEqualTo(7);

        binds.add(h.schedule(pods.get(7)));
        assertThat(binds).allMatch(f -> f.join().ok());
        assertThat(h.binder.bound()).hasSize(8);
        assertThat(h.scheduler.gang(new GangKey("default", "train")).state()).isEqualTo(GangState.BOUND);
        assertThat(h.totals().allocatedByQueue().get("default")).isEqualTo(req("2", "4Gi").times(8));
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void firstMembersPassOnAProvisionalWholeGangReservationAndWaitForTheRest() {
        // kube-scheduler offers the first pods of a `kubectl create` before the last exist: none may be refused
        // (a refused pod can be parked until an unrelated cluster event), and nothing binds before all can
        SchedulerHarness h = cluster(4, "8", "32Gi");
        h.scheduler.upsertPodGroup(podGroup("default", "pg", 8, "default"));
        List<Pod> pods = members("pg", 8, "1", "1Gi");
        GangKey key = new GangKey("default", "pg");
        List<CompletableFuture<BindResult>> binds = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            h.scheduler.upsertPod(pods.get(i));
            binds.add(h.schedule(pods.get(i)));
        }
        assertThat(binds).noneMatch(CompletableFuture::isDone);
        assertThat(h.scheduler.gang(key).state()).isEqualTo(GangState.RESERVED);
        assertThat(h.scheduler.gang(key).reason()).contains("(1/8 pods exist)");
        assertThat(h.scheduler.gang(key).slotNodes()).hasSize(8); // the whole gang's room, held once
        assertThat(h.binder.bound()).isEmpty();

        for (int i = 3; i < 8; i++) {
            h.scheduler.upsertPod(pods.get(i));
            binds.add(h.schedule(pods.get(i)));
        }
        assertThat(binds).allMatch(f -> f.join().ok());
        assertThat(h.binder.bound()).hasSize(8);
        assertThat(h.scheduler.gang(key).state()).isEqualTo(GangState.BOUND);
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void lateMemberWithAnotherRequestTradesAProvisionalSlotForItsOwn() {
        SchedulerHarness h = cluster(2, "8", "32Gi");
        h.scheduler.upsertPodGroup(podGroup("default", "pg", 3, "default"));
        Pod w0 = pod("pg-0").gang("pg").requests("1", "1Gi").build();
        Pod w1 = pod("pg-1").gang("pg").requests("1", "1Gi").build();
        Pod ps = pod("pg-ps").gang("pg").requests("3", "4Gi").build();
        h.scheduler.upsertPod(w0);
        CompletableFuture<BindResult> b0 = h.schedule(w0);
        h.scheduler.upsertPod(w1);
        CompletableFuture<BindResult> b1 = h.schedule(w1);
        assertThat(h.scheduler.ledger().heldByQueue("default").asMap()).isEqualTo(req("1", "1Gi").times(3).asMap());

        h.scheduler.upsertPod(ps);
        CompletableFuture<BindResult> b2 = h.schedule(ps);
        assertThat(List.of(b0, b1, b2)).allMatch(f -> f.join().ok());
        assertThat(h.totals().allocatedByQueue().get("default").asMap()).isEqualTo(req("1", "1Gi").times(2).plus(req("3", "4Gi")).asMap());
        assertThat(h.scheduler.ledger().heldByQueue("default").asMap()).isEqualTo(req("1", "1Gi").times(2).plus(req("3", "4Gi")).asMap()); // no stand-in slot left behind
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void gangThatDoesNotFitFailsEveryNodeWithWhatIsShort() {
        SchedulerHarness h = cluster(5, "4", "16Gi");
        h.scheduler.upsertPodGroup(podGroup("default", "big", 8, "default"));
        List<Pod> pods = members("big", 8, "4", "16Gi");
        pods.forEach(h.scheduler::upsertPod);

        // the member passes filter (a refusal could park it in kube-scheduler); its bind is held, then fails
        CompletableFuture<BindResult> bind = h.schedule(pods.getFirst());
        assertThat(bind).isNotDone();
        assertThat(h.scheduler.gang(new GangKey("default", "big")).state()).isEqualTo(GangState.UNSCHEDULABLE);
        assertThat(h.scheduler.gang(new GangKey("default", "big")).reason()).isEqualTo("gang default/big: needs 8×(4 cpu, 16Gi memory), fits 5");
        assertThat(h.scheduler.ledger().reservations().size()).isZero();

        h.clock.advance(SchedulerConfig.DEFAULT.admissionHold());
        h.scheduler.expireDue();
        assertThat(bind.join().error()).isEqualTo("gang default/big: needs 8×(4 cpu, 16Gi memory), fits 5");
        assertThat(h.binder.bound()).isEmpty();
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void heldMembersAreAdmittedTheMomentARunningPodIsDeleted() {
        // kube-scheduler retries a refused pod only on events it thinks relevant: the members wait in muster
        SchedulerHarness h = cluster(4, "4", "16Gi");
        Pod hog = pod("hog").requests("4", "16Gi").on("n0").build();
        h.scheduler.upsertPod(hog);
        List<Pod> pods = knownGang(h, 4, "4", "16Gi");
        List<String> free = List.of("n1", "n2", "n3");
        List<CompletableFuture<BindResult>> binds = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            h.scheduler.filter(pods.get(i), List.of(free.get(i)));
            binds.add(h.scheduler.bind(pods.get(i).id(), free.get(i)));
        }
        assertThat(binds).noneMatch(CompletableFuture::isDone);

        h.scheduler.deletePod(hog.uid());
        assertThat(h.scheduler.gang(new GangKey("default", "g")).state()).isEqualTo(GangState.RESERVED);
        binds.add(h.schedule(pods.get(3)));
        assertThat(binds).allMatch(f -> f.join().ok());
        assertThat(h.binder.bound().values()).containsExactlyInAnyOrder("n0", "n1", "n2", "n3");
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void twoGangsEachNeedingSixtyPercentNeverDeadlock() {
        SchedulerHarness h = cluster(10, "4", "16Gi");
        h.scheduler.upsertPodGroup(podGroup("default", "a", 6, "default"));
        h.scheduler.upsertPodGroup(podGroup("default", "b", 6, "default"));
        List<Pod> a = members("a", 6, "4", "16Gi");
        List<Pod> b = members("b", 6, "4", "16Gi");
        a.forEach(h.scheduler::upsertPod);
        b.forEach(h.scheduler::upsertPod);

        // interleave the members as a busy scheduler queue would
        List<CompletableFuture<BindResult>> aBinds = new ArrayList<>();
        List<CompletableFuture<BindResult>> bBinds = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            aBinds.add(h.schedule(a.get(i)));
            bBinds.add(h.schedule(b.get(i)));
        }
        assertThat(aBinds).allMatch(f -> f.join().ok());
        assertThat(h.binder.bound()).hasSize(6);
        assertThat(h.scheduler.gang(new GangKey("default", "b")).state()).isEqualTo(GangState.UNSCHEDULABLE);
        h.clock.advance(SchedulerConfig.DEFAULT.admissionHold());
        h.scheduler.expireDue();
        assertThat(bBinds).allMatch(f -> f.isDone() && !f.join().ok());
        assertThat(h.binder.bound()).hasSize(6);

        // gang a finishes: b gets the room
        a.forEach(p -> h.scheduler.upsertPod(p.withNode(h.binder.bound().get(p.uid())).withPhase(PodPhase.SUCCEEDED)));
        List<CompletableFuture<BindResult>> retry = b.stream().map(h::schedule).toList();
        assertThat(retry).allMatch(f -> f.join().ok());
        assertThat(h.binder.bound()).hasSize(12);
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void secondGangGetsTheRoomAfterTheFirstReservationExpires() {
        SchedulerHarness h = cluster(10, "4", "16Gi");
        h.scheduler.upsertPodGroup(podGroup("default", "a", 6, "default"));
        h.scheduler.upsertPodGroup(podGroup("default", "b", 6, "default"));
        List<Pod> a = members("a", 6, "4", "16Gi");
        List<Pod> b = members("b", 6, "4", "16Gi");
        a.forEach(h.scheduler::upsertPod);
        b.forEach(h.scheduler::upsertPod);

        List<CompletableFuture<BindResult>> aBinds = new ArrayList<>();
        for (int i = 0; i < 5; i++) { // a's last member never shows up at bind
            aBinds.add(h.schedule(a.get(i)));
        }
        List<String> aSlots = h.scheduler.gang(new GangKey("default", "a")).slotNodes();
        assertThat(h.scheduler.filter(b.getFirst(), h.nodeNames).feasible()).doesNotContainAnyElementsOf(aSlots);

        h.clock.advance(Duration.ofSeconds(61));
        h.scheduler.expireDue();
        assertThat(aBinds).allMatch(f -> f.isDone() && f.join().error().contains("deadline passed with 5/6"));
        assertThat(h.scheduler.gang(new GangKey("default", "a")).state()).isEqualTo(GangState.BACKED_OFF);
        assertThat(h.binder.bound()).isEmpty();

        List<CompletableFuture<BindResult>> bBinds = b.stream().map(h::schedule).toList();
        assertThat(bBinds).allMatch(f -> f.join().ok());
        assertThat(h.invariantViolations()).isEmpty();
    }

    /** One node, queue default, gang default/g of 2 whose {@code members} exist, deadline 10 s. */
    private static SchedulerHarness oneNodeWithAGangOfTwo(Backoff backoff, Duration admissionHold, List<Pod> members) {
        SchedulerHarness h = new SchedulerHarness(SchedulerConfig.DEFAULT.withGangDeadline(Duration.ofSeconds(10))
                .withBackoff(backoff).withAdmissionHold(admissionHold));
        h.nodes(node("n0", "8", "32Gi"));
        h.scheduler.upsertQueue(queue("default"));
        h.scheduler.upsertPodGroup(podGroup("default", "g", 2, "default"));
        members.forEach(h.scheduler::upsertPod);
        return h;
    }

    @Test
    void expiredGangBacksOffWithGrowingCappedDelay() {
        List<Pod> pods = members("g", 2, "1", "1Gi");
        SchedulerHarness h = oneNodeWithAGangOfTwo(new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(5)), Duration.ofSeconds(30), pods);
        GangKey key = new GangKey("default", "g");

        assertThat(h.schedule(pods.getFirst())).isNotDone();
        for (int attempt = 1; attempt <= 3; attempt++) {
            h.clock.advance(Duration.ofSeconds(10));
            h.scheduler.expireDue();
            assertThat(h.scheduler.gang(key).state()).isEqualTo(GangState.BACKED_OFF);
            // while backing off the member is not refused (that could park it): its bind is held
            CompletableFuture<BindResult> held = h.schedule(pods.getFirst());
            assertThat(held).isNotDone();
            long expectedDelay = Math.min(2L << (attempt - 1), 5);
            h.clock.advance(Duration.ofSeconds(expectedDelay).minusMillis(1));
            h.scheduler.expireDue();
            assertThat(h.scheduler.gang(key).slotNodes()).isEmpty();
            h.clock.advance(Duration.ofMillis(1));
            h.scheduler.expireDue(); // the backoff ends: the held member is admitted and waits at the barrier
            assertThat(h.scheduler.gang(key).slotNodes()).hasSize(2);
            assertThat(h.scheduler.gang(key).waiting()).isEqualTo(1);
            assertThat(held).isNotDone();
        }
    }

    @Test
    void heldBindFailsAfterTheHoldWithTheBackoffReason() {
        List<Pod> pods = members("g", 2, "1", "1Gi");
        SchedulerHarness h = oneNodeWithAGangOfTwo(new Backoff(Duration.ofSeconds(20), Duration.ofSeconds(20)), Duration.ofSeconds(3), pods);
        assertThat(h.schedule(pods.getFirst())).isNotDone();
        h.clock.advance(Duration.ofSeconds(10));
        h.scheduler.expireDue();

        CompletableFuture<BindResult> held = h.schedule(pods.getFirst());
        h.clock.advance(Duration.ofSeconds(3));
        h.scheduler.expireDue();
        assertThat(held.join().error()).startsWith("gang default/g: backing off for 17s after: gang default/g: deadline passed with 1/2");
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void memberDeletedAsTheBarrierOpensLeavesTheGangReportedShortNeverBound() {
        // Kubernetes has no multi-pod binding: one Binding fails ("no longer exists") while the others succeed
        SchedulerHarness h = cluster(4, "8", "32Gi");
        List<Pod> pods = gangOfFourWhoseLastMemberFailsToBind(h);
        List<CompletableFuture<BindResult>> binds = pods.stream().map(h::schedule).toList();

        assertThat(binds.subList(0, 3)).allMatch(f -> f.join().ok());
        assertThat(binds.get(3).join().ok()).isFalse();
        GangKey key = new GangKey("default", "g");
        assertThat(h.scheduler.gang(key).state()).isEqualTo(GangState.UNSCHEDULABLE);
        assertThat(h.scheduler.gang(key).reason()).contains("only 3/4 members could be bound");
        assertThat(h.scheduler.gang(key).slotNodes()).isEmpty(); // the failed member's room is released at once
        assertThat(h.scheduler.ledger().heldByQueue("default").asMap()).isEqualTo(req("2", "2Gi").times(3).asMap());

        // a replacement member joins the running gang, which is then reported bound
        Pod replacement = pod("g-4").gang("g").requests("2", "2Gi").build();
        h.scheduler.upsertPod(replacement);
        assertThat(h.schedule(replacement).join().ok()).isTrue();
        assertThat(h.scheduler.gang(key).state()).isEqualTo(GangState.BOUND);
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void aMemberSeenBoundBeforeItsBinderAnswersIsNotCountedTwiceWhenAnotherFails() {
        // seen on the real control plane: the watch showed a member bound while its Binding POST had not answered
        // yet, and the failure of another member counted it both as bound and as in flight (4/4: never short)
        SchedulerHarness h = cluster(4, "8", "32Gi");
        List<Pod> pods = gangOfFourWhoseLastMemberFailsToBind(h);
        List<CompletableFuture<BindResult>> binds = scheduleHoldingEveryBinding(h, pods);

        Pod first = pods.getFirst();
        h.scheduler.upsertPod(first.withNode(h.binder.heldNode(first.uid()))); // the cluster shows it bound first
        h.binder.completeHeld(pods.get(3).uid());                              // then another member's Binding fails

        assertThat(binds.get(3).join().ok()).isFalse();
        reportedShortAndStaysShortOnceTheHeldBindingsSucceed(h, binds.subList(0, 3), "only 3/4 members could be bound");
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void aMemberDeletedAfterItWasBoundWhileOthersAreStillBindingLeavesTheGangReportedShort() {
        // the third way to lose a member in the window: its Binding succeeded, then the pod was deleted before the
        // other Bindings answered; they all succeed, and 3 of 4 bound must not be left RESERVED "binding together"
        SchedulerHarness h = cluster(4, "8", "32Gi");
        List<Pod> pods = knownGang(h, 4, "2", "2Gi");
        List<CompletableFuture<BindResult>> binds = scheduleHoldingEveryBinding(h, pods);

        h.binder.completeHeld(pods.getFirst().uid());
        assertThat(binds.getFirst().join().ok()).isTrue();
        h.scheduler.deletePod(pods.getFirst().uid());
        // at once: 0 bound + 3 in flight < 4
        reportedShortAndStaysShortOnceTheHeldBindingsSucceed(h, binds.subList(1, 4), "only 3/4 members could be bound",
                "pod default/g-0 was deleted");
        GangKey key = new GangKey("default", "g");
        assertThat(h.scheduler.ledger().heldByQueue("default").asMap()).isEqualTo(req("2", "2Gi").times(3).asMap());

        Pod replacement = pod("g-4").gang("g").requests("2", "2Gi").build();
        h.scheduler.upsertPod(replacement);
        CompletableFuture<BindResult> joined = h.schedule(replacement); // joins the running gang like a single pod
        h.binder.releaseHeld();
        assertThat(joined.join().ok()).isTrue();
        assertThat(h.scheduler.gang(key).state()).isEqualTo(GangState.BOUND);
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void aMemberThatSucceedsBeforeTheLastBindingAnswersStillCountsAsPlaced() {
        // a fast task completes while another member's Binding is in flight: the gang started whole, it is not short
        SchedulerHarness h = cluster(2, "8", "32Gi");
        GangKey key = new GangKey("default", "g");
        CompletableFuture<BindResult> last = firstOfTwoMembersEndsBeforeTheOthersBindingAnswers(h, PodPhase.SUCCEEDED);
        assertThat(h.scheduler.gang(key).state()).isEqualTo(GangState.RESERVED);

        h.binder.releaseHeld();
        assertThat(last.join().ok()).isTrue();
        assertThat(h.scheduler.gang(key).state()).isEqualTo(GangState.BOUND);
        assertThat(h.scheduler.gang(key).reason()).contains("2 members bound together");
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void aMemberThatFailsBeforeTheLastBindingAnswersIsLostLikeADeletedOne() {
        SchedulerHarness h = cluster(2, "8", "32Gi");
        CompletableFuture<BindResult> last = firstOfTwoMembersEndsBeforeTheOthersBindingAnswers(h, PodPhase.FAILED);
        reportedShortAndStaysShortOnceTheHeldBindingsSucceed(h, List.of(last), "only 1/2 members could be bound",
                "pod default/g-0 finished (Failed)");
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void minMemberRaisedWhileTheBindingsAreInFlightReportsTheGangShort() {
        SchedulerHarness h = cluster(2, "8", "32Gi");
        List<CompletableFuture<BindResult>> binds = scheduleHoldingEveryBinding(h, knownGang(h, 2, "2", "2Gi"));
        h.scheduler.upsertPodGroup(podGroup("default", "g", 3, "default"));
        reportedShortAndStaysShortOnceTheHeldBindingsSucceed(h, binds, "only 2/3 members could be bound",
                "podgroup default/g now asks minMember 3");
        assertThat(h.invariantViolations()).isEmpty();
    }

    /** Gang default/g of 2: the first member is bound, then ends in {@code phase}; returns the other's bind, held. */
    private static CompletableFuture<BindResult> firstOfTwoMembersEndsBeforeTheOthersBindingAnswers(SchedulerHarness h, PodPhase phase) {
        List<Pod> pods = knownGang(h, 2, "2", "2Gi");
        List<CompletableFuture<BindResult>> binds = scheduleHoldingEveryBinding(h, pods);
        Pod first = pods.getFirst();
        h.binder.completeHeld(first.uid());
        assertThat(binds.getFirst().join().ok()).isTrue();
        h.scheduler.upsertPod(first.withNode(h.binder.boundNode(first.uid())).withPhase(phase));
        return binds.get(1);
    }

    @Test
    void aBoundMemberThatFinishesAfterTheGangWasBoundLeavesItBound() {
        // settling decides only the window between the barrier opening and BOUND: a finished member is normal life
        SchedulerHarness h = cluster(2, "8", "32Gi");
        List<Pod> pods = knownGang(h, 2, "2", "2Gi");
        assertThat(pods.stream().map(h::schedule).toList()).allMatch(f -> f.join().ok());
        GangKey key = new GangKey("default", "g");
        assertThat(h.scheduler.gang(key).state()).isEqualTo(GangState.BOUND);

        Pod first = pods.getFirst();
        h.scheduler.upsertPod(first.withNode(h.binder.boundNode(first.uid())).withPhase(PodPhase.SUCCEEDED));
        assertThat(h.scheduler.gang(key).state()).isEqualTo(GangState.BOUND);
        assertThat(h.invariantViolations()).isEmpty();
    }

    /** Gang default/g is reported short, saying {@code why}; once the held Bindings answer, {@code others} succeed and it stays short. */
    private static void reportedShortAndStaysShortOnceTheHeldBindingsSucceed(SchedulerHarness h, List<CompletableFuture<BindResult>> others,
                                                                            String... why) {
        GangKey key = new GangKey("default", "g");
        assertThat(h.scheduler.gang(key).state()).isEqualTo(GangState.UNSCHEDULABLE);
        assertThat(h.scheduler.gang(key).reason()).contains(why);
        h.binder.releaseHeld();
        assertThat(others).allMatch(f -> f.join().ok());
        assertThat(h.scheduler.gang(key).state()).isEqualTo(GangState.UNSCHEDULABLE);
    }

    /** Schedules every pod; the binder holds every Binding POST until the test completes or releases it. */
    private static List<CompletableFuture<BindResult>> scheduleHoldingEveryBinding(SchedulerHarness h, List<Pod> pods) {
        h.binder.holdAll();
        return pods.stream().map(h::schedule).toList();
    }

    /** PodGroup default/g (minMember {@code size}) and its {@code size} members of {@code cpu}/{@code memory}, all known. */
    private static List<Pod> knownGang(SchedulerHarness h, int size, String cpu, String memory) {
        h.scheduler.upsertPodGroup(podGroup("default", "g", size, "default"));
        List<Pod> pods = members("g", size, cpu, memory);
        pods.forEach(h.scheduler::upsertPod);
        return pods;
    }

    /** PodGroup default/g (minMember 4) and its four members, all known; the Binding of the last one will fail. */
    private static List<Pod> gangOfFourWhoseLastMemberFailsToBind(SchedulerHarness h) {
        List<Pod> pods = knownGang(h, 4, "2", "2Gi");
        h.binder.failFor(pods.get(3).uid());
        return pods;
    }

    @Test
    void memberDeletedWhileItsBindingIsInFlightLeavesNoPhantomCapacity() {
        SchedulerHarness h = cluster(2, "8", "32Gi");
        List<Pod> pods = knownGang(h, 2, "2", "2Gi");
        List<CompletableFuture<BindResult>> binds = scheduleHoldingEveryBinding(h, pods);

        h.scheduler.deletePod(pods.get(1).uid()); // the Binding POST is under way
        h.binder.releaseHeld();                   // ... and succeeds
        assertThat(binds).allMatch(CompletableFuture::isDone);
        assertThat(h.scheduler.ledger().heldByQueue("default").asMap()).isEqualTo(req("2", "2Gi").asMap());
        GangKey key = new GangKey("default", "g");
        assertThat(h.scheduler.gang(key).state()).isEqualTo(GangState.UNSCHEDULABLE); // short, not left "binding together"
        assertThat(h.scheduler.gang(key).reason()).contains("only 1/2 members could be bound", "was deleted while its Binding was in flight");
        h.scheduler.deletePod(pods.get(0).uid());
        assertThat(h.scheduler.ledger().heldByQueue("default").isZero()).isTrue();
        assertThat(h.scheduler.ledger().empty()).isTrue();
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void lastMemberThatNeverArrivesReleasesEverything() {
        SchedulerHarness h = cluster(4, "8", "32Gi");
        List<Pod> pods = knownGang(h, 4, "2", "2Gi");
        List<CompletableFuture<BindResult>> binds = pods.subList(0, 3).stream().map(h::schedule).toList();

        h.clock.advance(Duration.ofSeconds(60));
        h.scheduler.expireDue();

        assertThat(binds).allMatch(f -> !f.join().ok());
        assertThat(h.binder.bound()).isEmpty();
        assertThat(h.scheduler.ledger().empty()).isTrue();
        assertThat(h.totals().allocatedByQueue()).isEmpty();
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void repeatedBindOfTheSamePodReplacesTheWaiterInsteadOfCountingTwice() {
        SchedulerHarness h = cluster(2, "8", "32Gi");
        List<Pod> pods = knownGang(h, 3, "1", "1Gi");

        CompletableFuture<BindResult> first = h.schedule(pods.get(0));
        String node = h.scheduler.gang(new GangKey("default", "g")).slotNodes().getFirst();
        CompletableFuture<BindResult> again = h.scheduler.bind(pods.get(0).id(), h.binder.bound().getOrDefault(pods.get(0).uid(), node));
        CompletableFuture<BindResult> second = h.schedule(pods.get(1));

        assertThat(first.join().error()).contains("replaced");
        assertThat(again).isNotDone();
        assertThat(second).isNotDone();
        assertThat(h.scheduler.gang(new GangKey("default", "g")).waiting()).isEqualTo(2);

        CompletableFuture<BindResult> third = h.schedule(pods.get(2));
        assertThat(List.of(again, second, third)).allMatch(f -> f.join().ok());
        assertThat(h.binder.bound()).hasSize(3);
    }

    @Test
    void slotMovesWhenTheMemberIsOfferedOnlyOtherNodes() {
        SchedulerHarness h = cluster(4, "4", "16Gi");
        List<Pod> pods = knownGang(h, 2, "4", "16Gi");
        FilterResult first = h.scheduler.filter(pods.get(0), h.nodeNames);
        List<String> slots = h.scheduler.gang(new GangKey("default", "g")).slotNodes();
        List<String> others = h.nodeNames.stream().filter(n -> !slots.contains(n)).toList();
        assertThat(first.feasible()).isNotEmpty();

        // kube-scheduler's own filters (e.g. affinity) leave only non-slot nodes for the second member
        FilterResult f = h.scheduler.filter(pods.get(1), others);
        assertThat(f.feasible()).hasSize(1);
        assertThat(h.scheduler.gang(new GangKey("default", "g")).slotNodes()).hasSize(2).contains(f.feasible().getFirst());
        assertThat(h.invariantViolations()).isEmpty();
    }

    /**
     * Prioritize for a member: its own slot's node and free slots that fit it score 10; a slot earmarked for another
     * member and nodes without slots score what the scoring policy gives any pod of that request there.
     */
    @Test
    void aMembersScoresAreTenOnItsUsableSlotsAndThePolicysElsewhere() {
        SchedulerHarness h = cluster(5, "8", "32Gi");
        List<Pod> pods = knownGang(h, 3, "6", "8Gi"); // one member per node: three slots on three nodes
        GangKey key = new GangKey("default", "g");
        String own = h.scheduler.filter(pods.get(0), h.nodeNames).feasible().getFirst();
        String taken = h.scheduler.filter(pods.get(1), h.nodeNames).feasible().getFirst();
        List<String> slots = h.scheduler.gang(key).slotNodes();
        String free = slots.stream().filter(n -> !n.equals(own) && !n.equals(taken)).findFirst().orElseThrow();
        Pod single = pod("alone").requests("6", "8Gi").build();

        int[] scores = h.scheduler.prioritize(pods.get(0), h.nodeNames);

        for (int i = 0; i < h.nodeNames.size(); i++) {
            String n = h.nodeNames.get(i);
            if (n.equals(own) || n.equals(free)) {
                assertThat(scores[i]).as(n).isEqualTo(10);
            } else {
                assertThat(scores[i]).as(n).isEqualTo(h.scheduler.prioritize(single, List.of(n))[0]);
            }
        }
        assertThat(slots).hasSize(3).contains(own, taken, free);
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void memberWithNoSlotOnKubeSchedulersNodePassesAndItsBindIsHeldThenFailsWithAReason() {
        SchedulerHarness h = cluster(2, "4", "16Gi");
        h.nodes(node("full", "4", "16Gi"));
        h.scheduler.upsertPod(pod("hog").requests("4", "16Gi").on("full").build());
        List<Pod> pods = knownGang(h, 2, "4", "16Gi");
        h.scheduler.filter(pods.get(0), List.of("n0", "n1"));

        // kube-scheduler offers only "full": in its view the hog is gone, in Muster's not yet. Refusing would park the
        // member until some other event; it passes, and its bind waits for Muster's view instead
        FilterResult f = h.scheduler.filter(pods.get(1), List.of("full"));
        assertThat(f.feasible()).containsExactly("full");
        CompletableFuture<BindResult> held = h.scheduler.bind(pods.get(1).id(), "full");
        assertThat(held).isNotDone();
        assertThat(h.scheduler.stats().heldBinds()).isEqualTo(1);

        h.clock.advance(SchedulerConfig.DEFAULT.admissionHold().plusSeconds(1));
        h.scheduler.expireDue();
        assertThat(held.join().error()).contains("holds no slot on the node kube-scheduler chose");
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void memberHeldOnANodeMustersViewHasNotCaughtUpWithBindsOnceItDoes() {
        SchedulerHarness h = cluster(2, "4", "16Gi");
        h.nodes(node("full", "4", "16Gi"));
        Pod hog = pod("hog").requests("4", "16Gi").on("full").build();
        h.scheduler.upsertPod(hog);
        List<Pod> pods = knownGang(h, 2, "4", "16Gi");
        h.scheduler.filter(pods.get(0), List.of("n0", "n1"));
        CompletableFuture<BindResult> first = h.scheduler.bind(pods.get(0).id(), h.scheduler.filter(pods.get(0), List.of("n0", "n1")).feasible().getFirst());

        assertThat(h.scheduler.filter(pods.get(1), List.of("full")).feasible()).containsExactly("full");
        CompletableFuture<BindResult> second = h.scheduler.bind(pods.get(1).id(), "full");
        h.scheduler.deletePod(hog.uid()); // Muster's informer catches up: its slot moves to "full" and the barrier opens

        assertThat(first.join().ok()).isTrue();
        assertThat(second.join().ok()).isTrue();
        assertThat(h.binder.bound()).containsEntry(pods.get(1).uid(), "full");
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void podPlacedByAnotherSchedulerMovesTheSlotOrReleasesTheReservation() {
        SchedulerHarness h = cluster(3, "4", "16Gi");
        List<Pod> pods = knownGang(h, 2, "4", "16Gi");
        h.scheduler.filter(pods.getFirst(), h.nodeNames);
        GangKey key = new GangKey("default", "g");
        String taken = h.scheduler.gang(key).slotNodes().getFirst();

        // the default scheduler places a pod on a slot node: the slot moves to the free third node
        h.scheduler.upsertPod(pod("intruder").requests("4", "16Gi").on(taken).build());
        assertThat(h.scheduler.gang(key).slotNodes()).hasSize(2).doesNotContain(taken);
        assertThat(h.invariantViolations()).isEmpty();

        // another intruder on a slot node: no room left anywhere → reservation released, gang replans later
        String second = h.scheduler.gang(key).slotNodes().getFirst();
        h.scheduler.upsertPod(pod("intruder2").requests("4", "16Gi").on(second).build());
        assertThat(h.scheduler.gang(key).slotNodes()).isEmpty();
        assertThat(h.scheduler.gang(key).state()).isEqualTo(GangState.WAITING);
        assertThat(h.scheduler.gang(key).reason()).contains("reservation lost");
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void memberWhosePodGroupIsNotSeenYetIsHeldAndAdmittedWhenItAppears() {
        SchedulerHarness h = cluster(2, "4", "16Gi");
        Pod p = pod("late-0").gang("late").build();
        h.scheduler.upsertPod(p);
        CompletableFuture<BindResult> bind = h.schedule(p);
        assertThat(bind).isNotDone();
        h.scheduler.upsertPodGroup(podGroup("default", "late", 1, "default"));
        assertThat(bind.join().ok()).isTrue();

        Pod orphan = h.seen(pod("orphan").gang("nope").build());
        CompletableFuture<BindResult> never = h.schedule(orphan);
        h.clock.advance(SchedulerConfig.DEFAULT.admissionHold());
        h.scheduler.expireDue();
        assertThat(never.join().error()).isEqualTo("podgroup default/nope does not exist (yet)");
    }

    @Test
    void closedQueueIsUnresolvableAndCapabilityIsAHardCeiling() {
        SchedulerHarness h = cluster(4, "8", "32Gi");
        h.scheduler.upsertQueue(new dev.muster.core.model.QueueSpec("closed", dev.muster.core.model.QueueState.CLOSED, 1, null, null, null, true));
        h.scheduler.upsertQueue(queue("small", res("4", "64Gi")));
        h.scheduler.upsertPodGroup(podGroup("default", "c", 1, "closed"));
        h.scheduler.upsertPodGroup(podGroup("default", "s", 2, "small"));
        Pod c = pod("c-0").gang("c").build();
        List<Pod> s = members("s", 2, "3", "1Gi");
        h.scheduler.upsertPod(c);
        s.forEach(h.scheduler::upsertPod);

        assertThat(h.scheduler.filter(c, h.nodeNames).unresolvable().values()).allMatch(r -> r.contains("queue closed is Closed"));
        FilterResult f = h.scheduler.filter(s.getFirst(), h.nodeNames);
        assertThat(f.unresolvable().values()).allMatch(r -> r.contains("capability") && r.contains("cpu by 2"));
    }

    @Test
    void preemptionNeverTakesARunningGangBelowMinMember() {
        SchedulerHarness h = cluster(2, "8", "32Gi");
        List<Pod> pods = knownGang(h, 2, "1", "1Gi");
        pods.forEach(p -> h.schedule(p));
        assertThat(h.binder.bound()).hasSize(2);
        Pod loner = pod("loner").requests("1", "1Gi").on("n1").build();
        h.scheduler.upsertPod(loner);
        String gangNode = h.binder.bound().get(pods.getFirst().uid());

        Map<String, Victims> candidates = Map.of(
                gangNode, new Victims(List.of(pods.getFirst().uid()), 0),
                "n1", new Victims(List.of(loner.uid()), 0));
        Map<String, Victims> answer = h.scheduler.preempt(pod("vip").build(), candidates);
        if (gangNode.equals("n1")) {
            assertThat(answer).isEmpty();
        } else {
            assertThat(answer).containsOnlyKeys("n1");
        }
    }

    @ParameterizedTest(name = "disruption mode {0}: a surplus member may be a victim: {1}")
    @CsvSource({"SINGLE, true", "ALL, false"})
    void preemptionTakesASurplusMemberOnlyFromAGangDisruptedMemberByMember(DisruptionMode mode, boolean surplusMayGo) {
        SchedulerHarness h = cluster(2, "8", "32Gi");
        PodGroupSpec spec = podGroup("default", "g", 2, "default");
        h.scheduler.upsertPodGroup(new PodGroupSpec(spec.key(), 2, Map.of(), spec.minResources(), spec.queue(), "", null,
                GangApi.KUBERNETES, null, "", new PreemptionTerms(null, PreemptionPolicy.PREEMPT_LOWER_PRIORITY, mode)));
        List<Pod> pods = members("g", 3, "1", "1Gi");
        pods.forEach(h.scheduler::upsertPod);
        pods.forEach(p -> h.schedule(p));
        assertThat(h.binder.bound()).as("minMember 2 and one more").hasSize(3);
        String node = h.binder.bound().get(pods.getLast().uid());

        Map<String, Victims> oneMember = Map.of(node, new Victims(List.of(pods.getLast().uid()), 0));
        assertThat(h.scheduler.preempt(pod("vip").build(), oneMember)).hasSize(surplusMayGo ? 1 : 0);
    }

    @Test
    void bindOfUnknownPodFailsWithAReason() {
        SchedulerHarness h = cluster(1, "4", "16Gi");
        BindResult r = h.scheduler.bind(pod("ghost").build().id(), "n0").join();
        assertThat(r.ok()).isFalse();
        assertThat(r.error()).contains("has not been seen in the cluster by muster");
    }

    @Test
    void failedBindingFreesTheSlotAndTheCapacity() {
        SchedulerHarness h = cluster(2, "8", "32Gi");
        Pod single = pod("s").requests("2", "2Gi").build();
        h.scheduler.upsertPod(single);
        h.binder.failFor(single.uid());
        BindResult r = h.schedule(single).join();
        assertThat(r.error()).contains("injected");
        assertThat(h.totals().allocatedByQueue()).isEmpty();
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void membersBeyondMinMemberBindLikeSinglePodsOnceTheGangRuns() {
        SchedulerHarness h = cluster(4, "8", "32Gi");
        List<Pod> pods = knownGang(h, 2, "1", "1Gi");
        pods.forEach(h::schedule);
        Pod late = pod("g-late").gang("g").requests("1", "1Gi").build();
        h.scheduler.upsertPod(late);

        assertThat(h.schedule(late).join().ok()).isTrue();
        assertThat(h.binder.bound()).hasSize(3);
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void twoThousandWaitingBindsOfOneGangAllComplete() {
        SchedulerHarness h = cluster(250, "64", "256Gi");
        int n = 2000;
        h.scheduler.upsertPodGroup(podGroup("default", "huge", n, "default"));
        List<Pod> pods = members("huge", n, "1", "1Gi");
        pods.forEach(h.scheduler::upsertPod);
        List<CompletableFuture<BindResult>> binds = new ArrayList<>();
        IntStream.range(0, n).forEach(i -> binds.add(h.schedule(pods.get(i))));
        assertThat(binds).allMatch(f -> f.join().ok());
        assertThat(h.binder.bound()).hasSize(n);
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void restartRebuildsTheSameLedgerFromTheClusterWithoutDoubleAllocation() {
        SchedulerHarness h = cluster(4, "8", "32Gi");
        List<Pod> pods = knownGang(h, 4, "2", "2Gi");
        pods.forEach(h::schedule);
        Map<String, String> bound = h.binder.bound();

        SchedulerHarness restarted = new SchedulerHarness();
        for (String n : h.nodeNames) {
            restarted.nodes(node(n, "8", "32Gi"));
        }
        restarted.scheduler.upsertQueue(queue("default"));
        restarted.scheduler.upsertPodGroup(podGroup("default", "g", 4, "default"));
        pods.forEach(p -> restarted.scheduler.upsertPod(p.withNode(bound.get(p.uid())).withPhase(PodPhase.RUNNING)));
        restarted.scheduler.markSynced();

        List<?> rebuilt = restarted.scheduler.ledger().nodes();
        List<?> original = h.scheduler.ledger().nodes();
        assertThat(rebuilt).isEqualTo(original);
        assertThat(restarted.scheduler.gang(new GangKey("default", "g")).state()).isEqualTo(GangState.BOUND);
        assertThat(restarted.totals().allocatedByQueue()).isEqualTo(h.totals().allocatedByQueue());
        // a repeated bind after the restart is answered from the truth, not allocated again
        assertThat(restarted.scheduler.bind(pods.getFirst().id(), bound.get(pods.getFirst().uid())).join().ok()).isTrue();
        assertThat(restarted.binder.calls()).isZero();
        assertThat(restarted.invariantViolations()).isEmpty();
    }
}
