package dev.muster.core.scheduler;

import static dev.muster.core.testing.Fixtures.node;
import static dev.muster.core.testing.Fixtures.pod;
import static dev.muster.core.testing.Fixtures.podGroup;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.gang.BindResult;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.Pod;
import dev.muster.core.model.QueueSpec;
import dev.muster.core.model.QueueState;
import dev.muster.core.preempt.EvictionOutcome;
import dev.muster.core.preempt.PreemptionKind;
import dev.muster.core.preempt.PreemptionSettings;
import dev.muster.core.preempt.Victim;
import dev.muster.core.resources.Resources;
import dev.muster.core.stream.AllocationEvent;
import dev.muster.core.testing.Fixtures;
import dev.muster.core.testing.RecordingEvictor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * Preemption and reclaim under random demand, as the soak on a real control plane drives them but in-process and for
 * many seeds: 4–8 nodes of 4 cpu; three queues of random weights, one sometimes with a capability; gangs (a quarter
 * with a surplus member, a quarter under a budget that lets only the surplus go) and single pods of three priorities
 * arriving and finishing; a victim minimum runtime of 0, 5 or 20 s; now and then a dry run refused by a budget the
 * core has not seen; a kubelet that lets each job's evicted pods go together a round or a few later, and the job's
 * controller that replaces them; and a kube-scheduler that tries every pod not bound. After every round: the books hold
 * their invariants, no gang runs with fewer than minMember pods but more than none, no pod is asked to go twice, a
 * priority decision takes only lower priorities and a reclaim only other queues. Once demand stops changing, evictions
 * stop, and no eviction was wasted.
 */
class PreemptionPropertiesTest {
    private static final int[] PRIORITIES = {0, 100, 1000};
    private static final int CHURN_ROUNDS = 40;
    private static final int SETTLE_ROUNDS_AT_MOST = 400;

    @Property(tries = 300)
    void gangsStayWholeNothingIsEvictedForNothingAndEvictionsStopOnceDemandDoes(@ForAll long seed) {
        new World(new Random(seed)).run();
    }

    /** One random cluster and its demand. */
    private static final class World {
        final Random random;
        final RecordingEvictor evictor = new RecordingEvictor();
        final SchedulerHarness h;
        final Duration minRuntime;
        final List<String> queues = List.of("q0", "q1", "q2");
        final Map<String, Job> jobs = new LinkedHashMap<>(); // name → job, finished ones removed
        final Map<String, CompletableFuture<BindResult>> binding = new HashMap<>(); // pod uid → its bind in flight
        final Map<String, String> terminating = new HashMap<>(); // victim pod name → its job, asked to go, not gone yet
        final Set<String> budgeted = new HashSet<>(); // jobs under a budget that lets only their pods beyond minMember go
        int victimsSeen; // how many of evictor.asked() the kubelet has read
        int nextJob;

        World(Random random) {
            this.random = random;
            minRuntime = Duration.ofSeconds(List.of(0, 5, 20).get(random.nextInt(3)));
            h = new SchedulerHarness(SchedulerConfig.DEFAULT.withPreemption(new PreemptionSettings(true, true, minRuntime,
                    Duration.ofSeconds(30), PreemptionSettings.DEFAULT_RECLAIM_BAND)), evictor, this::budgetBlocking);
            int nodes = 4 + random.nextInt(5);
            for (int i = 0; i < nodes; i++) {
                h.nodes(node("n" + i, "4", "16Gi"));
            }
            for (String q : queues) {
                Resources capability = q.equals("q2") && random.nextBoolean() ? Fixtures.res("8", "64Gi") : null;
                h.scheduler.upsertQueue(new QueueSpec(q, QueueState.OPEN, 1 + random.nextInt(3), capability, Resources.ZERO, Resources.ZERO, true));
            }
            h.scheduler.markSynced();
        }

        void run() {
            fill();
            for (int round = 0; round < CHURN_ROUNDS; round++) {
                changeDemand();
                round();
            }
            // decisions the last changes caused may still evict (victims that ran less than the minimum runtime become
            // victims only once they have run it): demand stays as it is, and evictions must stop
            long quietFor = minRuntime.multipliedBy(2).plusSeconds(60).toNanos();
            long lastActivity = h.clock.getAsLong();
            long activity = activity();
            for (int round = 0; h.clock.getAsLong() - lastActivity < quietFor; round++) {
                assertThat(round).as("decisions and evictions stop while demand stays as it is").isLessThan(SETTLE_ROUNDS_AT_MOST);
                round();
                if (activity() != activity) {
                    activity = activity();
                    lastActivity = h.clock.getAsLong();
                }
            }
            assertThat(h.scheduler.preemptionStats().wastedEvictions()).as("every victim's room went to its preemptor").isZero();
        }

        /**
         * Evictions asked for so far, and decisions that sent them (a decision a dry run refused evicts nothing: its gang
         * tries again every few seconds, and a pod refused once is offered again a minute later, as budgets change).
         */
        long activity() {
            var stats = h.scheduler.preemptionStats();
            return stats.priorityDecisions() + stats.reclaimDecisions() - stats.endedRefused() + evictor.asked().size();
        }

        /** The cluster starts about full: gangs of low and middle priority in every queue, and a few single pods. */
        void fill() {
            for (int i = 0; i < 12; i++) {
                arrive(random.nextInt(2));
                round();
            }
        }

        void changeDemand() {
            if (random.nextInt(8) == 0 && !jobs.isEmpty()) {
                // a budget the core has not seen yet: the dry run of one running pod is refused from now on
                List<Job> all = new ArrayList<>(jobs.values());
                Job j = all.get(random.nextInt(all.size()));
                Pod p = j.pods.get(random.nextInt(j.pods.size()));
                evictor.answerCheck(p.id().name(), new EvictionOutcome.RefusedByBudget("Cannot evict pod as it would violate the pod's disruption budget."));
            }
            int what = random.nextInt(10);
            if (what < 5 && jobs.size() < 16) {
                arrive(random.nextInt(PRIORITIES.length));
            } else if (what < 8 && !jobs.isEmpty()) {
                List<Job> running = jobs.values().stream().filter(j -> bound(j) > 0).toList();
                if (!running.isEmpty()) {
                    finish(running.get(random.nextInt(running.size())));
                }
            }
        }

        void arrive(int priorityIndex) {
            String name = "j" + nextJob++;
            int priority = PRIORITIES[priorityIndex];
            if (random.nextInt(5) == 0) {
                Pod p = h.seen(pod(name).uid(name + "-uid").requests("1", "1Gi").priority(priority).build());
                jobs.put(name, new Job(name, null, "", priority, 1, new ArrayList<>(List.of(p))));
                return;
            }
            String queue = queues.get(random.nextInt(queues.size()));
            int minMember = 1 + random.nextInt(3);
            int size = minMember + (random.nextInt(4) == 0 ? 1 : 0); // a quarter with a surplus member
            h.scheduler.upsertPodGroup(podGroup("default", name, minMember, queue));
            List<Pod> pods = new ArrayList<>();
            for (int i = 0; i < size; i++) {
                pods.add(h.seen(pod(name + "-" + i).uid(name + "-" + i + "-uid").gang(name).requests("2", "1Gi").priority(priority).build()));
            }
            jobs.put(name, new Job(name, new GangKey("default", name), queue, priority, minMember, pods));
            if (random.nextInt(4) == 0) {
                budgeted.add(name);
            }
        }

        /** The budgets as the disruption controller computes them: healthy pods (bound, not asked to go) above minMember. */
        String budgetBlocking(java.util.Collection<dev.muster.core.model.PodId> pods) {
            Map<String, Integer> taken = new HashMap<>();
            for (var id : pods) {
                String job = jobOf(id.name());
                if (budgeted.contains(job)) {
                    taken.merge(job, 1, Integer::sum);
                }
            }
            for (var e : taken.entrySet()) {
                Job j = jobs.get(e.getKey());
                long healthy = j.pods.stream().filter(p -> p.isBound() && !terminating.containsKey(p.id().name())).count();
                if (e.getValue() > healthy - j.minMember) {
                    return "default/" + j.name;
                }
            }
            return null;
        }

        void finish(Job j) {
            jobs.remove(j.name);
            for (Pod p : j.pods) {
                h.scheduler.deletePod(p.uid());
                binding.remove(p.uid());
            }
            if (j.gang != null) {
                h.scheduler.deletePodGroup(j.gang);
            }
        }

        /** The tick; the kubelet lets victims go; kube-scheduler tries every pod not bound; time passes; then the checks. */
        void round() {
            h.scheduler.expireDue();
            victimsGo();
            schedule();
            h.clock.advance(Duration.ofMillis(500 + random.nextInt(2500)));
            check();
        }

        /** Newly evicted pods start terminating; each job's victims go together, a round or a few later. */
        void victimsGo() {
            List<String> asked = evictor.asked();
            for (String name : asked.subList(victimsSeen, asked.size())) {
                terminating.put(name, jobOf(name));
            }
            victimsSeen = asked.size();
            Set<String> going = new HashSet<>();
            for (String job : new HashSet<>(terminating.values())) {
                if (random.nextInt(4) != 0) {
                    going.add(job);
                }
            }
            for (var it = terminating.entrySet().iterator(); it.hasNext(); ) {
                var e = it.next();
                if (!going.contains(e.getValue())) {
                    continue;
                }
                it.remove();
                Job j = jobs.get(e.getValue());
                Pod p = j == null ? null : j.pods.stream().filter(x -> x.id().name().equals(e.getKey())).findFirst().orElse(null);
                if (p != null) {
                    j.pods.remove(p);
                    h.scheduler.deletePod(p.uid());
                    binding.remove(p.uid());
                    Pod again = replacement(j, p); // the job's controller makes a new pod in its place
                    j.pods.add(h.seen(again));
                }
            }
        }

        Pod replacement(Job j, Pod gone) {
            var b = pod(gone.id().name() + "r").uid(gone.id().name() + "r-uid").requests(j.gang == null ? "1" : "2", "1Gi").priority(j.priority);
            return j.gang == null ? b.build() : b.gang(j.name).build();
        }

        /** kube-scheduler: every pod neither bound nor binding is tried; a bind that succeeded is seen bound. */
        void schedule() {
            for (Job j : new ArrayList<>(jobs.values())) {
                for (int i = 0; i < j.pods.size(); i++) {
                    Pod p = j.pods.get(i);
                    if (p.isBound()) {
                        continue;
                    }
                    CompletableFuture<BindResult> f = binding.get(p.uid());
                    if (f == null || (f.isDone() && !f.join().ok())) {
                        binding.put(p.uid(), h.schedule(p));
                    }
                }
            }
            for (Job j : jobs.values()) {
                for (int i = 0; i < j.pods.size(); i++) {
                    Pod p = j.pods.get(i);
                    CompletableFuture<BindResult> f = binding.get(p.uid());
                    if (!p.isBound() && f != null && f.isDone() && f.join().ok()) {
                        binding.remove(p.uid());
                        Pod bound = boundOn(p, h.binder.boundNode(p.uid()));
                        j.pods.set(i, h.seen(bound)); // the informer shows it bound
                    }
                }
            }
        }

        void check() {
            assertThat(h.invariantViolations()).isEmpty();
            for (Job j : jobs.values()) {
                if (j.gang == null) {
                    continue;
                }
                int bound = bound(j);
                boolean leaving = terminating.containsValue(j.name);
                assertThat(bound == 0 || bound >= j.minMember || leaving)
                        .as("gang %s runs with %d of its minMember %d", j.name, bound, j.minMember).isTrue();
            }
            List<String> asked = evictor.asked();
            assertThat(new HashSet<>(asked)).as("no pod is asked to go twice").hasSize(asked.size());
            for (AllocationEvent.PreemptionDecided d : PreemptionTest.decisions(h)) {
                for (Victim v : d.victims()) {
                    if (d.kind() == PreemptionKind.PRIORITY) {
                        assertThat(v.priority()).as("victim %s of %s", v.pod(), d.preemptor()).isLessThan(d.priority());
                    } else {
                        assertThat(v.queue()).as("victim %s of reclaim by %s", v.pod(), d.preemptor()).isNotEqualTo(d.queue());
                    }
                }
            }
        }

        int bound(Job j) {
            Set<String> uids = new HashSet<>();
            for (Pod p : j.pods) {
                uids.add(p.uid());
            }
            return (int) h.scheduler.ledger().pods().stream().filter(r -> uids.contains(r.pod().uid())).count();
        }

        String jobOf(String podName) {
            for (Job j : jobs.values()) {
                for (Pod p : j.pods) {
                    if (p.id().name().equals(podName)) {
                        return j.name;
                    }
                }
            }
            return "";
        }
    }

    private static Pod boundOn(Pod p, String node) {
        var b = pod(p.id().name()).uid(p.uid()).request(p.request()).priority(p.priority()).resourceVersion("2").on(node);
        return p.gang() == null ? b.build() : b.gang(p.gang().name()).build();
    }

    private record Job(String name, GangKey gang, String queue, int priority, int minMember, List<Pod> pods) {}
}
