package dev.muster.server.http;

import dev.muster.core.gang.BindResult;
import dev.muster.core.model.GangMembership;
import dev.muster.core.model.Pod;
import dev.muster.core.model.PodId;
import dev.muster.core.resources.ResourceNames;
import dev.muster.core.scheduler.FilterResult;
import dev.muster.core.scheduler.GangScheduler;
import dev.muster.core.scheduler.VerbRefusedException;
import dev.muster.core.scheduler.Victims;
import dev.muster.server.http.wire.BindingArgs;
import dev.muster.server.http.wire.ExtenderArgs;
import dev.muster.server.http.wire.PreemptionArgs;
import dev.muster.server.http.wire.WireDecoder;
import dev.muster.server.http.wire.WireEncoder;
import dev.muster.server.http.wire.WireFormatException;
import dev.muster.server.http.wire.WirePod;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The four kube-scheduler verbs over bytes: decode with the wire codec, decide with the
 * {@link GangScheduler}, encode. No HTTP here, so the golden and fuzz tests drive it directly.
 * A {@link WireFormatException} becomes a 400 naming the problem and changes nothing in the core — except one about
 * the pod's own content (a request Muster cannot read), which filter answers with the problem in its {@code Error}
 * field, so the pod's FailedScheduling event names it. A filter about a pod the core may not act on
 * ({@link VerbRefusedException}) is answered with the extender result's error, and changes nothing either — except a pod
 * the informers have not shown yet, which the filter first waits for (up to {@code podWait}; kube-scheduler's informer
 * often sees a new pod a few milliseconds first) and then answers normally. Every filter answered with an error is
 * counted and logged by {@link FilterErrors}.
 * Thread-safe (the only state is the last decoded filter, swapped atomically; the scheduler is thread-safe). Bind blocks its caller — the connection's thread —
 * until the gang barrier answers.
 *
 * <p>With {@code requireGangMarker} (kube-scheduler configured to bind through Muster only pods that request
 * {@link ResourceNames#GANG_MARKER}, as the chart configures it) a gang member that lacks the marker is refused at
 * filter: kube-scheduler would bind it itself, outside the gang's barrier.
 */
public final class ExtenderVerbs {
    /** An answer: HTTP status, JSON body, and the outcome label for metrics. */
    public record Reply(int status, byte[] body, String outcome) {}

    private final GangScheduler scheduler;
    private final Duration bindWaitLimit;
    private final boolean requireGangMarker;
    private final Duration podWait;
    private final FilterErrors filterErrors;
    /**
     * The last filter request, decoded: kube-scheduler follows each filter with a prioritize carrying the
     * byte-identical body, which then needs no second decode. Immutable value swapped atomically.
     */
    private final AtomicReference<Decoded> lastFilter = new AtomicReference<>();

    private record Decoded(byte[] body, ExtenderArgs args) {}

    /** {@code bindWaitLimit} bounds a bind's wait beyond the gang deadline (the barrier normally answers first). */
    public ExtenderVerbs(GangScheduler scheduler, Duration bindWaitLimit) {
        this(scheduler, bindWaitLimit, false);
    }

    /** @param requireGangMarker {@code --gang-marker}: refuse gang members that kube-scheduler would not bind through Muster */
    public ExtenderVerbs(GangScheduler scheduler, Duration bindWaitLimit, boolean requireGangMarker) {
        this(scheduler, bindWaitLimit, requireGangMarker, Duration.ZERO, new FilterErrors(new io.prometheus.client.CollectorRegistry()));
    }

    /**
     * @param podWait      how long a filter about a pod the informers have not shown yet (or, on a new leader, before the
     *                     preemption records are read: the admission hold) waits for it before it is
     *                     answered with an error ({@link GangScheduler#whenFilterable}); zero: not at all
     * @param filterErrors counts and logs the filters answered with an error
     */
    public ExtenderVerbs(GangScheduler scheduler, Duration bindWaitLimit, boolean requireGangMarker, Duration podWait, FilterErrors filterErrors) {
        this.scheduler = scheduler;
        this.bindWaitLimit = bindWaitLimit;
        this.requireGangMarker = requireGangMarker;
        this.podWait = podWait;
        this.filterErrors = filterErrors;
    }

    public Reply filter(byte[] body) {
        ExtenderArgs args;
        try {
            args = WireDecoder.decodeExtenderArgs(body);
        } catch (WireFormatException e) {
            if (e.aboutPod()) {
                filterErrors.error(FilterErrors.BAD_POD, e.getMessage());
                return new Reply(200, WireEncoder.encodeFilterFailure("muster cannot schedule this pod: " + e.getMessage()), "bad-pod");
            }
            return badRequest(WireEncoder.encodeFilterFailure("bad filter request: " + e.getMessage()));
        }
        lastFilter.set(new Decoded(body, args));
        Pod pod = served(args.pod());
        if (requireGangMarker && pod.gang() != null && !args.pod().gangMarked()) {
            return new Reply(200, WireEncoder.encodeFilterResult(args, unmarked(pod, args.nodeNames())), "unresolvable");
        }
        // an unmarked pod is bound by kube-scheduler itself when it binds through Muster only marked ones
        FilterResult r;
        try {
            r = filterOnceSeen(pod, args);
        } catch (VerbRefusedException e) {
            // an error, not failed nodes: kube-scheduler retries an errored pod from its backoff queue, never parks it
            filterErrors.error(e.cause().label(), e.getMessage());
            return new Reply(200, WireEncoder.encodeFilterFailure(e.getMessage()), "refused");
        }
        String outcome = r.feasible().isEmpty() ? (r.unresolvable().isEmpty() ? "unfit" : "unresolvable") : "fit";
        return new Reply(200, WireEncoder.encodeFilterResult(args, r), outcome);
    }

    /**
     * The filter's answer; about a pod the informers have not shown yet, once they do (or {@code podWait} passed). The
     * wait parks the connection's own thread, which has nothing else to do meanwhile (one request at a time on an HTTP/1.1
     * connection), without the core's lock.
     */
    private FilterResult filterOnceSeen(Pod pod, ExtenderArgs args) {
        boolean byKubeScheduler = requireGangMarker && !args.pod().gangMarked();
        try {
            return scheduler.filter(pod, args.nodeNames(), args.pod().softPreferences(), byKubeScheduler);
        } catch (VerbRefusedException e) {
            java.util.concurrent.CompletableFuture<Boolean> ended = podWait.isZero() ? null : scheduler.whenFilterable(e.cause(), pod.uid(), podWait);
            if (ended == null) {
                throw e;
            }
            boolean seen;
            try {
                seen = ended.get();
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
                throw e;
            } catch (ExecutionException ee) {
                throw e;
            }
            if (e.cause() == VerbRefusedException.Cause.NOT_SEEN) {
                filterErrors.waited(seen);
            }
            if (!seen) {
                throw new VerbRefusedException(e.cause(), e.getMessage() + " (waited up to " + podWait.toMillis() + " ms for it)");
            }
            return scheduler.filter(pod, args.nodeNames(), args.pod().softPreferences(), byKubeScheduler);
        }
    }

    public Reply prioritize(byte[] body) {
        Decoded last = lastFilter.get();
        ExtenderArgs args;
        if (last != null && Arrays.equals(last.body(), body)) {
            args = last.args();
        } else {
            try {
                args = WireDecoder.decodeExtenderArgs(body);
            } catch (WireFormatException e) {
                return badRequest(WireEncoder.encodeFilterFailure("bad prioritize request: " + e.getMessage()));
            }
        }
        int[] scores = scheduler.prioritize(served(args.pod()), args.nodeNames());
        return new Reply(200, WireEncoder.encodePrioritizeResult(args.nodeNames(), scores), "scored");
    }

    public Reply bind(byte[] body) {
        BindingArgs args;
        try {
            args = WireDecoder.decodeBindingArgs(body);
        } catch (WireFormatException e) {
            return badRequest(WireEncoder.encodeBindResult("bad bind request: " + e.getMessage()));
        }
        PodId pod = new PodId(args.podUID(), args.podNamespace(), args.podName());
        CompletableFuture<BindResult> pending = scheduler.bind(pod, args.node());
        BindResult result;
        try {
            result = pending.get(bindWaitLimit.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            scheduler.cancelBind(pod);
            result = BindResult.failed("bind of " + pod + " waited longer than " + bindWaitLimit.toSeconds() + "s");
        } catch (InterruptedException e) {
            scheduler.cancelBind(pod);
            Thread.currentThread().interrupt();
            result = BindResult.failed("bind of " + pod + " interrupted");
        } catch (ExecutionException e) {
            result = BindResult.failed(String.valueOf(e.getCause()));
        }
        return new Reply(200, WireEncoder.encodeBindResult(result.error()), result.ok() ? "bound" : "failed");
    }

    public Reply preempt(byte[] body) {
        PreemptionArgs args;
        try {
            args = WireDecoder.decodePreemptionArgs(body);
        } catch (WireFormatException e) {
            return badRequest(WireEncoder.encodeBindResult("bad preempt request: " + e.getMessage()));
        }
        Map<String, Victims> candidates = args.nodeNameToMetaVictims();
        Map<String, Victims> kept = scheduler.preempt(served(args.pod()), candidates);
        return new Reply(200, WireEncoder.encodePreemptionResult(kept), kept.size() == candidates.size() ? "unchanged" : "dropped-nodes");
    }

    /** Every candidate refused (unresolvable: a pod's requests cannot change, only a re-created pod gets the marker). */
    private static FilterResult unmarked(Pod pod, List<String> candidates) {
        String why = "pod " + pod.id().namespace() + "/" + pod.id().name() + " is a member of gang " + pod.gang()
                + " but requests no " + ResourceNames.GANG_MARKER + ", so kube-scheduler would bind it itself, outside the"
                + " gang's barrier; the admission policy that adds it (the chart's muster-gang-marker) did not see this pod:"
                + " check that it is installed and matches the pod's schedulerName, then re-create the pod";
        Map<String, String> all = new LinkedHashMap<>();
        for (String n : candidates) {
            all.put(n, why);
        }
        return new FilterResult(List.of(), Map.of(), all);
    }

    private static Reply badRequest(byte[] body) {
        return new Reply(400, body, "bad-request");
    }

    /** The pod as muster sees it: pods of other schedulers (extenders are global to all profiles) are not gang members. */
    private Pod served(WirePod pod) {
        return GangMembership.servedBy(pod.pod(), pod.schedulerName(), scheduler.config().schedulerName());
    }
}
