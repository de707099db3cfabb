package dev.muster.core.scheduler;

import dev.muster.core.gang.Books;
import dev.muster.core.gang.Gang;
import dev.muster.core.gang.Outbox;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.Node;
import dev.muster.core.model.Pod;
import dev.muster.core.model.PodGroupSpec;
import dev.muster.core.model.PodId;
import dev.muster.core.model.QueueSpec;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The cluster-sync inputs of {@link GangScheduler} ({@link ClusterSink}, called under the scheduler's lock): each event is
 * folded into the books by {@link ClusterIntake}, and then what the facade remembers about pods follows it — a filter
 * waiting for the pod to be shown is answered ({@link PodArrivals}), a pod bound, finished or deleted is forgotten by
 * the {@link VerbGuard} and {@link ParkedPods}, and an edited Queue or PodGroup wakes the pods it refused
 * ({@link PodWaker}). Also wakes the pods refused on room when reservations give room back
 * ({@link #wakeWhereRoomWasFreed}), which the outermost lock holder runs before it unlocks. Keeps no state of its own.
 * Not thread-safe on its own: confined to the scheduler's lock; everything it hands to foreign code (a completed
 * arrival, the waker) goes through the {@link Outbox}, run after the lock is released.
 */
final class ClusterFeed {
    private final Books books;
    private final Outbox outbox;
    private final ClusterIntake intake;
    private final PodArrivals arrivals;
    private final VerbGuard guard;
    private final ParkedPods parked;
    private final PodWaker waker;

    ClusterFeed(Books books, Outbox outbox, ClusterIntake intake, PodArrivals arrivals, VerbGuard guard, ParkedPods parked,
                PodWaker waker) {
        this.books = Objects.requireNonNull(books, "books");
        this.outbox = Objects.requireNonNull(outbox, "outbox");
        this.intake = Objects.requireNonNull(intake, "intake");
        this.arrivals = Objects.requireNonNull(arrivals, "arrivals");
        this.guard = Objects.requireNonNull(guard, "guard");
        this.parked = Objects.requireNonNull(parked, "parked");
        this.waker = Objects.requireNonNull(waker, "waker");
    }

    void upsertNode(Node node) {
        intake.upsertNode(node);
    }

    void deleteNode(String name) {
        intake.deleteNode(name);
    }

    void upsertPod(Pod pod) {
        intake.upsertPod(pod);
        CompletableFuture<Boolean> arrival = arrivals.arrived(pod.uid());
        if (arrival != null) {
            outbox.later(() -> arrival.complete(true)); // a filter waits for this pod
        }
        if (pod.isBound() || pod.phase().isTerminal() || pod.terminating()) {
            guard.forget(pod.uid());
            parked.forget(pod.uid());
        }
    }

    void deletePod(String uid) {
        intake.deletePod(uid);
        arrivals.deleted(uid);
        guard.forget(uid);
        parked.forget(uid);
    }

    void upsertPodGroup(PodGroupSpec podGroup) {
        Gang before = books.gang(podGroup.key());
        boolean changed = before == null || !podGroup.equals(before.spec()); // not a status write the informer echoes
        intake.upsertPodGroup(podGroup);
        if (changed) {
            wake(parked.takeGang(podGroup.key()), "podgroup " + podGroup.key() + " changed");
        }
    }

    void deletePodGroup(GangKey key) {
        intake.deletePodGroup(key);
    }

    void upsertQueue(QueueSpec queue) {
        // the controller writes a Queue's status as its pods come and go: only a change of what admission reads wakes
        boolean changed = !queue.equals(books.queue(queue.name()));
        intake.upsertQueue(queue);
        if (changed) {
            wake(parked.takeQueue(queue.name()), "queue " + queue.name() + " changed");
        }
    }

    void deleteQueue(String name) {
        intake.deleteQueue(name);
    }

    /**
     * Reservations gave room back (a slot released or moved: a running gang's deadline, a late member's surplus slot, a
     * node taken...), which kube-scheduler never hears of: the pods refused on room other gangs held, and those refused
     * by these queues' verdicts, are woken. Run by the outermost lock holder before it unlocks, whatever the body did.
     */
    void wakeWhereRoomWasFreed() {
        Set<String> queues = books.ledger().takeFreed();
        if (queues.isEmpty() || parked.size() == 0) {
            return;
        }
        wake(parked.takeRoom(), "reserved room was given back");
        for (String q : queues) {
            wake(parked.takeQueue(q), "queue " + q + " has quota back");
        }
    }

    /** Wakes the pods of {@code gang} the filter refused (its room was just reserved outside a filter). */
    void wakeGang(GangKey gang, String why) {
        wake(parked.takeGang(gang), why);
    }

    /** Hands {@code pods} to the waker once the lock is released (foreign code never runs under it). */
    private void wake(List<PodId> pods, String why) {
        if (!pods.isEmpty()) {
            outbox.later(() -> waker.wake(pods, why));
        }
    }
}
