package dev.muster.server.wake;

import dev.muster.common.kube.KubeClients;
import dev.muster.core.model.PodId;
import dev.muster.core.scheduler.PodWaker;
import dev.muster.server.patch.PacedPodPatches;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import okhttp3.Call;
import okhttp3.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link PodWaker} over the Kubernetes API: has kube-scheduler try again a pod it parked after Muster's filter refused it,
 * by changing the pod — the one kind of change kube-scheduler's queue acts on for that very pod.
 *
 * <p><b>Why a status patch moves the pod.</b> kube-scheduler (v1.36) marks a pod an extender refused with the
 * pseudo-plugin {@code framework.ExtenderName} among its rejecting plugins, and registers for that name an enqueue
 * extension that matches every cluster event with no queueing hint ({@code defaultEnqueueExtension}). An update of an
 * unscheduled pod reaches {@code PriorityQueue.Update}; for a pod in the unschedulable pool the update is turned into
 * events ({@code PodSchedulingPropertiesChange}: when no specific one matches, an "other update" of the pod), each is
 * checked with {@code isPodWorthRequeuing}, and the extender's registration answers "queue after backoff": the pod
 * moves to the backoff or active queue. A pod being scheduled at that moment has the update recorded and is requeued
 * when its attempt ends. Only the pod's own resourceVersion has to change; any field does, status included. So Muster
 * writes one condition of its own on the pod's status — {@code muster.dev/Retry}, with what changed — through
 * {@code pods/status} (a strategic merge patch that leaves kube-scheduler's {@code PodScheduled} condition and every
 * other field alone), which is all the RBAC it needs: it never writes a pod's spec, labels or annotations. The patch
 * names the pod's UID, so a pod recreated under the same name is not touched. Each wake's message carries a sequence
 * number, so a second wake of the same pod within the same second is not a no-op the API server would drop.
 * {@code WakeE2eTest} shows it on the real control plane.
 *
 * <p><b>Pacing.</b> Wakes are queued per pod ({@link PacedPodPatches}: a pod woken again before its patch was sent is
 * patched once, with the latest reason, at the back of the line) and sent by one virtual thread, at most
 * {@code perSecond} a second: a Queue edit that wakes 1,000 parked pods costs 1,000 patches spread over 1,000/{@code perSecond} seconds, never a burst. At most {@code maxPending} pods wait;
 * beyond that the oldest is dropped (it comes back on the next cluster event, or kube-scheduler's 5-minute flush).
 *
 * <p><b>Leader only.</b> Asked right before every patch: a process that does not hold its Lease drops the wake (the
 * leader's filter refused the pod and remembers it; only it wakes it).
 *
 * <p>Thread-safe: the wakes waiting are {@link PacedPodPatches}' (its lock); the counters are atomic. {@link #close()}
 * stops the sender.
 */
public final class KubePodWaker implements PodWaker, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(KubePodWaker.class);
    /** The pod condition Muster writes: its only write to a pod. */
    public static final String CONDITION = "muster.dev/Retry";
    static final String PATCH_TYPE = "application/strategic-merge-patch+json";

    /** How each wake ended, for the metrics ({@code muster_pods_woken_total{outcome}}). */
    public enum Outcome {
        /** Patched: kube-scheduler will try the pod again. */
        SENT,
        /** The pod is gone, or was recreated under its name: nothing to wake. */
        GONE,
        /** Not sent: this process does not lead, or too many wakes were waiting. */
        DROPPED,
        /** The API server refused or failed the patch (logged): the pod waits for the next cluster event. */
        FAILED
    }

    private record Wake(PodId pod, String why) {}

    private final ApiClient client;
    private final BooleanSupplier leading;
    private final Map<Outcome, AtomicLong> outcomes = new java.util.EnumMap<>(Outcome.class);
    private final AtomicLong sequence = new AtomicLong();
    private final int maxPending;
    private final PacedPodPatches<Wake> wakes;

    /**
     * @param leading    asked right before every patch: false drops the wake
     * @param perSecond  at most this many patches a second
     * @param maxPending at most this many pods waiting to be patched (the oldest is dropped beyond)
     */
    public KubePodWaker(ApiClient client, BooleanSupplier leading, int perSecond, int maxPending) {
        this(client, leading, perSecond, maxPending, true);
    }

    /** {@code startSender} false: nothing is sent until {@link #sendPending()} (deterministic tests). */
    KubePodWaker(ApiClient client, BooleanSupplier leading, int perSecond, int maxPending, boolean startSender) {
        this.client = Objects.requireNonNull(client, "client");
        this.leading = Objects.requireNonNull(leading, "leading");
        this.maxPending = maxPending;
        for (Outcome o : Outcome.values()) {
            outcomes.put(o, new AtomicLong());
        }
        this.wakes = new PacedPodPatches<>("pod-waker", perSecond, maxPending, PacedPodPatches.Requeue.TO_THE_BACK,
                w -> outcomes.get(patch(w)).incrementAndGet(), startSender);
    }

    @Override
    public void wake(List<PodId> pods, String why) {
        int dropped = 0;
        for (PodId p : pods) {
            PacedPodPatches.Offered<Wake> offered = wakes.offer(p.uid(), new Wake(p, why));
            if (!offered.accepted()) {
                return;
            }
            dropped += offered.dropped().size();
        }
        if (dropped > 0) {
            outcomes.get(Outcome.DROPPED).addAndGet(dropped);
            log.warn("{} pod wakes dropped: more than {} were waiting to be sent", dropped, maxPending);
        }
    }

    /** How many wakes ended each way so far. */
    public long count(Outcome o) {
        return outcomes.get(o).get();
    }

    /** Pods waiting to be patched. */
    public int pending() {
        return wakes.pending();
    }

    @Override
    public void close() {
        wakes.close();
    }

    /** Sends every pending wake now, unpaced, on the caller's thread (tests). */
    void sendPending() {
        wakes.sendPending();
    }

    private Outcome patch(Wake w) {
        if (!leading.getAsBoolean()) {
            return Outcome.DROPPED;
        }
        PodId p = w.pod();
        String path = "/api/v1/namespaces/" + client.escapeString(p.namespace()) + "/pods/" + client.escapeString(p.name()) + "/status";
        try {
            Call call = KubeClients.call(client, "PATCH", path, new ArrayList<>(), body(p, w.why(), sequence.incrementAndGet(), Instant.now()),
                    Map.of("Accept", "application/json", "Content-Type", PATCH_TYPE));
            try (Response r = call.execute()) {
                if (r.isSuccessful()) {
                    log.debug("woke {}: {}", p, w.why());
                    return Outcome.SENT;
                }
                if (r.code() == 404 || r.code() == 409 || r.code() == 422) { // gone, or another pod under the name (UID differs)
                    return Outcome.GONE;
                }
                log.warn("waking pod {} ({}): HTTP {} {}", p, w.why(), r.code(), r.body() == null ? "" : r.body().string());
                return Outcome.FAILED;
            }
        } catch (ApiException | IOException | RuntimeException e) {
            log.warn("waking pod {} ({}): {}", p, w.why(), e.toString());
            return Outcome.FAILED;
        }
    }

    /**
     * The strategic merge patch: the pod's UID (a precondition: the API server refuses to change it) and Muster's own
     * condition, merged by type among the pod's conditions.
     */
    static byte[] body(PodId pod, String why, long sequence, Instant now) {
        String message = why + ": kube-scheduler was asked to try this pod again (wake " + sequence + ")";
        String json = "{\"metadata\":{\"uid\":" + quote(pod.uid()) + "},\"status\":{\"conditions\":[{\"type\":" + quote(CONDITION)
                + ",\"status\":\"True\",\"reason\":\"BooksChanged\",\"message\":" + quote(message)
                + ",\"lastTransitionTime\":" + quote(now.truncatedTo(ChronoUnit.SECONDS).toString()) + "}]}}";
        return json.getBytes(StandardCharsets.UTF_8);
    }

    private static String quote(String s) {
        return new com.google.gson.JsonPrimitive(s).toString();
    }
}
